import { ConfigError } from '../../errors/index.js';
import { parseDuration } from '../../store/index.js';

/** How a notifier delivers: a JSON webhook (signed), a Slack-compatible incoming webhook, PagerDuty Events v2. */
export const NOTIFIER_KINDS = ['webhook', 'slack', 'pagerduty'] as const;
export type NotifierKind = (typeof NOTIFIER_KINDS)[number];

/** PagerDuty's Events API v2 endpoint (a notifier's `url=` option replaces it). */
export const PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com/v2/enqueue';

/** One notifier, as the operator named it (`--notifier ops=webhook:https://…;secret=…`). */
export interface NotifierConfig {
  name: string;
  kind: NotifierKind;
  /** Where deliveries are POSTed. */
  url: string;
  /** webhook: the HMAC-SHA256 key of the `X-Bullbeat-Signature` header; none: unsigned. */
  secret?: string;
  /** pagerduty: the integration's routing key. */
  routingKey?: string;
}

/** The dead man's switch: a request sent once per period by one live scheduler replica. */
export interface HeartbeatConfig {
  url: string;
  everyMs: number;
}

/** What the operator configured for alerts (environment, or the CLI's flags put there). */
export interface ResolvedAlertOptions {
  notifiers: NotifierConfig[];
  heartbeat: HeartbeatConfig | undefined;
}

const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/i;

function httpUrl(setting: string, what: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(setting, `${what}: must be an http(s) URL, got ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(setting, `${what}: must be an http(s) URL, got ${JSON.stringify(text)}`);
  }
  return url.toString();
}

/**
 * One notifier from its spec, `name=kind:target[;key=value…]`: `ops=webhook:https://h.example/x;secret=s`,
 * `chat=slack:https://hooks.slack.com/services/…`, `pd=pagerduty:<routing key>[;url=<events URL>]`.
 * Errors name `setting` (the flag or variable) and what is wrong.
 */
export function parseNotifier(spec: string, setting: string): NotifierConfig {
  const eq = spec.indexOf('=');
  const name = eq < 0 ? '' : spec.slice(0, eq).trim();
  if (!NAME.test(name)) {
    throw new ConfigError(
      setting,
      `expected name=kind:target (a name of letters, digits, - and _), got ${JSON.stringify(spec)}`,
    );
  }
  const rest = spec.slice(eq + 1);
  const colon = rest.indexOf(':');
  const kind = rest.slice(0, colon < 0 ? undefined : colon).trim();
  if (!(NOTIFIER_KINDS as readonly string[]).includes(kind)) {
    throw new ConfigError(
      setting,
      `notifier "${name}": kind must be one of ${NOTIFIER_KINDS.join(', ')}, got ${JSON.stringify(kind)}`,
    );
  }
  const [target = '', ...opts] = rest.slice(colon + 1).split(';');
  const options = new Map<string, string>();
  for (const o of opts) {
    const at = o.indexOf('=');
    const key = at < 0 ? o : o.slice(0, at);
    const allowed = kind === 'webhook' ? ['secret'] : kind === 'pagerduty' ? ['url'] : [];
    if (!allowed.includes(key)) {
      throw new ConfigError(
        setting,
        `notifier "${name}": unknown option ${JSON.stringify(key)} (a ${kind} takes ${allowed.join(', ') || 'none'})`,
      );
    }
    options.set(key, o.slice(at + 1));
  }
  const what = `notifier "${name}"`;
  if (kind === 'pagerduty') {
    if (target.trim() === '')
      throw new ConfigError(setting, `${what}: a pagerduty notifier needs its routing key`);
    return {
      name,
      kind,
      routingKey: target.trim(),
      url: httpUrl(setting, `${what}: url`, options.get('url') ?? PAGERDUTY_EVENTS_URL),
    };
  }
  const secret = options.get('secret');
  if (secret !== undefined && secret === '') throw new ConfigError(setting, `${what}: secret is empty`);
  return {
    name,
    kind: kind as NotifierKind,
    url: httpUrl(setting, `${what}: the ${kind} URL`, target.trim()),
    ...(secret !== undefined && { secret }),
  };
}

/** Notifiers from specs separated by whitespace (one per line in `BULLBEAT_NOTIFIERS`); names unique. */
export function parseNotifiers(specs: readonly string[], setting: string): NotifierConfig[] {
  const out: NotifierConfig[] = [];
  for (const spec of specs.flatMap((s) => s.split(/\s+/)).filter((s) => s !== '')) {
    const n = parseNotifier(spec, setting);
    if (out.some((o) => o.name === n.name)) {
      throw new ConfigError(setting, `notifier "${n.name}" is named twice`);
    }
    out.push(n);
  }
  return out;
}

/** The heartbeat from its URL and period (a duration with its unit, default `30s`). */
export function parseHeartbeat(
  url: string | undefined,
  every: string | undefined,
  settings: { url: string; every: string },
): HeartbeatConfig | undefined {
  if (url === undefined || url.trim() === '') {
    if (every !== undefined && every.trim() !== '') {
      throw new ConfigError(settings.every, `needs ${settings.url} (where the heartbeat goes)`);
    }
    return undefined;
  }
  const everyMs = every === undefined || every.trim() === '' ? { ms: 30_000 } : parseDuration(every.trim());
  if ('problem' in everyMs) throw new ConfigError(settings.every, everyMs.problem);
  if (everyMs.ms < 1000)
    throw new ConfigError(settings.every, `must be at least 1s, got ${JSON.stringify(every)}`);
  return { url: httpUrl(settings.url, 'the heartbeat', url.trim()), everyMs: everyMs.ms };
}

/** The alert settings of a manager, from its environment (`BULLBEAT_NOTIFIERS`, `BULLBEAT_HEARTBEAT_*`). */
export function resolveAlertOptions(env: NodeJS.ProcessEnv): ResolvedAlertOptions {
  return {
    notifiers: parseNotifiers([env.BULLBEAT_NOTIFIERS ?? ''], 'BULLBEAT_NOTIFIERS'),
    heartbeat: parseHeartbeat(env.BULLBEAT_HEARTBEAT_URL, env.BULLBEAT_HEARTBEAT_EVERY, {
      url: 'BULLBEAT_HEARTBEAT_URL',
      every: 'BULLBEAT_HEARTBEAT_EVERY',
    }),
  };
}
