/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text format (what prom-client writes): samples only, comments skipped. */
export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1] as string] = l[2] as string;
    }
    out.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return out;
}

/** The sum of the samples of `name` whose labels include `labels`. */
export function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((a, s) => a + s.value, 0);
}

/** Metric names used in a PromQL expression (identifiers followed by `{`, `[`, `)` ... that are not functions or keywords). */
export function metricNamesIn(expr: string): string[] {
  const withoutLabels = expr.replace(/\{[^}]*\}/g, '{}').replace(/"[^"]*"/g, '""');
  const words = [...withoutLabels.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)].map((m) => m[0]);
  const notMetrics = new Set([
    'sum',
    'max',
    'min',
    'avg',
    'count',
    'by',
    'without',
    'rate',
    'increase',
    'irate',
    'histogram_quantile',
    'absent',
    'or',
    'and',
    'unless',
    'on',
    'ignoring',
    'group_left',
    'group_right',
    'le',
    'job',
    'status',
    'kind',
    'reason',
    'queue',
    'state',
    'outcome',
    'instance',
    'm',
    's',
    'h',
  ]);
  return [...new Set(words.filter((w) => !notMetrics.has(w) && /^(bullbeat|process)_/.test(w)))];
}
