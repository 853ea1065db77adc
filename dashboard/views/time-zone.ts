import { formatWallTime } from '../../src/cron/index.js';
import { formatDuration, html, type SafeHtml } from './html.js';

/**
 * The zone the dashboard shows its times in, one choice for every page (the switch in the header,
 * kept in the `bb_tz` cookie): UTC (the default, also without JavaScript), the viewer's own zone (the
 * client script tells it, as `local:<IANA zone>`), or each schedule's own zone where it has one (UTC
 * elsewhere).
 */
export type ZoneChoice = { kind: 'utc' } | { kind: 'schedule' } | { kind: 'local'; zone: string };

/** The cookie that keeps the choice across pages. */
export const ZONE_COOKIE = 'bb_tz';

const UTC: ZoneChoice = { kind: 'utc' };

/** Whether `zone` is an IANA zone this process can show times in. */
export function isKnownZone(zone: string): boolean {
  if (zone === '' || zone.length > 64) return false;
  try {
    formatWallTime(0, zone);
    return true;
  } catch {
    return false;
  }
}

/** The choice a cookie (or the switch's `tz` field) holds: `utc`, `schedule`, `local:<zone>`; else UTC. */
export function parseZoneChoice(text: string | undefined): ZoneChoice {
  if (text === 'schedule') return { kind: 'schedule' };
  if (text?.startsWith('local:')) {
    const zone = text.slice('local:'.length);
    if (isKnownZone(zone)) return { kind: 'local', zone };
  }
  return UTC;
}

/** The cookie's form of a choice (the inverse of `parseZoneChoice`). */
export function zoneChoiceText(c: ZoneChoice): string {
  return c.kind === 'local' ? `local:${c.zone}` : c.kind;
}

/** The zone a time is shown in under choice `c`: for a schedule's time, `scheduleZone` (its trigger's, or null). */
export function zoneFor(c: ZoneChoice, scheduleZone: string | null = null): string {
  if (c.kind === 'local') return c.zone;
  if (c.kind === 'schedule') return scheduleZone ?? 'UTC';
  return 'UTC';
}

/** An instant as `2026-12-02 14:00:00 Europe/Paris` (wall time, then its zone), or a dash. */
export function labelledTime(ms: number | null | undefined, zone: string, weekday = false): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  return `${wall(ms, zone, weekday)} ${zone}`;
}

function wall(ms: number, zone: string, weekday: boolean): string {
  try {
    return formatWallTime(ms, zone, { weekday });
  } catch {
    return formatWallTime(ms, 'UTC', { weekday });
  }
}

/**
 * An instant as a `<time>` element labelled with its zone (`data-zone`, the text ending in it), or a
 * dash. `weekday` for fire times, where the day matters.
 */
export function timeAt(ms: number | null | undefined, zone: string, weekday = false): SafeHtml {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return html`—`;
  return html`<time datetime="${new Date(ms).toISOString()}" data-ms="${ms}" data-zone="${zone}">${labelledTime(ms, zone, weekday)}</time>`;
}

/**
 * A jittered occurrence: the window it runs in, from its planned instant to `jitterMs` later, as
 * `Mon 2026-12-02 14:00:00–14:00:30 Europe/Paris` (the end's date only when it is another day);
 * `jitterNote` says what the window is, once under a list of them.
 */
export function windowAt(ms: number, jitterMs: number, zone: string): SafeHtml {
  const start = wall(ms, zone, true);
  const end = wall(ms + jitterMs, zone, true);
  const sameDay = start.slice(0, 14) === end.slice(0, 14);
  return html`<time datetime="${new Date(ms).toISOString()}" data-ms="${ms}" data-zone="${zone}" data-jitter-ms="${jitterMs}" title="runs once, at a random time in this window (jitter ${jitterWords(jitterMs)})">${start}–${sameDay ? end.slice(15) : end} ${zone}</time>`;
}

/** What a list of windows means: `each at a random time in its window (jitter 30 s)`. */
export function jitterNote(jitterMs: number): SafeHtml {
  return html`<span class="sub" data-jitter-note>each at a random time in its window (jitter ${jitterWords(jitterMs)})</span>`;
}

/** A jitter as `30 s`, `2 min 0 s`. */
function jitterWords(ms: number): string {
  return ms % 1000 === 0 && ms < 60_000 ? `${ms / 1000} s` : formatDuration(ms);
}

/** The switch's options: value, words. `local` is added by the client script, which knows the viewer's zone. */
export function zoneOptions(c: ZoneChoice): { value: string; label: string; selected: boolean }[] {
  const options = [
    { value: 'utc', label: 'UTC', selected: c.kind === 'utc' },
    { value: 'schedule', label: "each schedule's zone", selected: c.kind === 'schedule' },
  ];
  if (c.kind === 'local')
    options.push({ value: zoneChoiceText(c), label: `${c.zone} (yours)`, selected: true });
  return options;
}
