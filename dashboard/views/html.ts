import { formatWallTime } from '../../src/cron/index.js';

/** HTML-escape a value for text and attribute positions (`&`, `<`, `>`, `"`, `'`). */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** Markup that is already safe (built by `html` or trusted constants). */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Part = SafeHtml | string | number | boolean | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof SafeHtml) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(part);
}

/**
 * Tagged template for markup: every interpolated value is escaped unless it is `SafeHtml` (the
 * result of another `html` call), arrays are joined. The one way views build HTML.
 */
export function html(strings: TemplateStringsArray, ...values: Part[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
}

/** Trusted markup (constants only; never user input). */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** An instant as `2026-11-30 14:05:00` in UTC, or a dash. */
export function formatTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, '');
}

/** A duration in ms as `850 ms`, `12.3 s`, `4 min 5 s`, `2 h 3 min`. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  const sign = ms < 0 ? '−' : '';
  const a = Math.abs(ms);
  if (a < 1000) return `${sign}${Math.round(a)} ms`;
  if (a < 60_000) return `${sign}${(a / 1000).toFixed(1)} s`;
  if (a < 3_600_000) return `${sign}${Math.floor(a / 60_000)} min ${Math.round((a % 60_000) / 1000)} s`;
  return `${sign}${Math.floor(a / 3_600_000)} h ${Math.round((a % 3_600_000) / 60_000)} min`;
}

/** An instant as wall time in `zone`: `Mon 2026-11-30 09:00:00`. */
export function formatInZone(ms: number, zone: string): string {
  try {
    return formatWallTime(ms, zone, { weekday: true });
  } catch {
    return formatTime(ms);
  }
}
