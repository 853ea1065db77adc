/**
 * Labels on a schedule (`labels: { tenant: 'acme', team: 'billing' }`), by Kubernetes' rules so that a
 * key or value never needs quoting in a selector or in a Redis key of the label index:
 *
 * - a key is a name of at most 63 characters (`[A-Za-z0-9]` at both ends, `-`, `_`, `.` inside), with
 *   an optional prefix of at most 253 characters (lower-case DNS labels joined by `.`) and a `/`;
 * - a value is empty or a name of at most 63 characters, by the same rule;
 * - at most `MAX_LABELS` labels per schedule.
 */
export type Labels = Record<string, string>;

/** How many labels one schedule may carry. */
export const MAX_LABELS = 64;

const NAME = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/;
const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** Why a label key is refused, or undefined. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (slash >= 0) {
    const prefix = key.slice(0, slash);
    if (prefix.length === 0 || prefix.length > 253 || !prefix.split('.').every((p) => DNS_LABEL.test(p))) {
      return `key ${JSON.stringify(key)}: its prefix must be a DNS subdomain (lower-case letters, digits, "-" and ".") of at most 253 characters`;
    }
  }
  if (!NAME.test(name)) {
    return `key ${JSON.stringify(key)}: must be 1-63 characters of letters, digits, "-", "_" and ".", starting and ending with a letter or digit (an optional "prefix/" before it)`;
  }
  return undefined;
}

/** Why a label value is refused, or undefined. */
export function labelValueProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return `must be a string, got ${typeof value}`;
  if (value === '' || NAME.test(value)) return undefined;
  return `value ${JSON.stringify(value)}: must be empty or 1-63 characters of letters, digits, "-", "_" and ".", starting and ending with a letter or digit`;
}

/** The first problem of a labels object as `{ path, reason }` (path under `labels`), or undefined. */
export function labelsProblem(labels: unknown): { path: string[]; reason: string } | undefined {
  if (typeof labels !== 'object' || labels === null || Array.isArray(labels)) {
    return { path: [], reason: `must be an object of key: value strings, got ${JSON.stringify(labels)}` };
  }
  const entries = Object.entries(labels);
  if (entries.length > MAX_LABELS) return { path: [], reason: `must hold at most ${MAX_LABELS} labels` };
  for (const [key, value] of entries) {
    const problem = labelKeyProblem(key) ?? labelValueProblem(value);
    if (problem !== undefined) return { path: [key], reason: problem };
  }
  return undefined;
}

/** Labels sorted by key: one stored form whatever order they were given in. */
export function sortedLabels(labels: Labels): Labels {
  const out: Labels = {};
  for (const key of Object.keys(labels).sort()) out[key] = labels[key]!;
  return out;
}

/**
 * The labels as the upsert script takes them (`upsert-9`, ARGV[14]): `key=value` lines. Neither a key
 * nor a value can hold `=` or a newline, so the script splits them without escaping.
 */
export function labelsArg(labels: Labels | undefined): string {
  if (labels === undefined) return '';
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
}
