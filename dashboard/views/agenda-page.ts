import type { Agenda } from '../../src/insight/index.js';
import { html } from './html.js';
import { layout, type PageContext } from './layout.js';
import { labelledTime, timeAt, windowAt, zoneFor } from './time-zone.js';

/** How many columns the timeline has. */
export const AGENDA_SLICES = 72;
const BUCKETS = AGENDA_SLICES;

/**
 * `/agenda`: a timeline of the coming hours per queue (one bar per slice of the window, its height
 * the number of fires in it, so bursts stand out), then the instants in time order.
 */
export function agendaPage(ctx: PageContext, a: Agenda, nextText: string, queue: string | undefined): string {
  const span = (a.to - a.from) / BUCKETS;
  // the window and the timeline in the zone chosen (UTC for `schedule`: they mix schedules); each
  // instant in the list in its schedule's zone under `schedule`
  const zone = zoneFor(ctx.zone);
  const queues = Object.keys(a.perQueue).sort();
  // counted over every instant of the window (the agenda's slices), not only the listed entries
  const counts = new Map<string, number[]>(
    queues.map((q) => [q, a.perQueueSlices?.[q] ?? new Array<number>(BUCKETS).fill(0)]),
  );
  if (!a.perQueueSlices) {
    for (const e of a.entries) {
      const i = Math.min(BUCKETS - 1, Math.floor((e.at - a.from) / span));
      const row = counts.get(e.queue);
      if (row) row[i] = (row[i] ?? 0) + 1;
    }
  }
  const max = Math.max(1, ...[...counts.values()].flat());
  const rows = queues.map((q) => {
    const row = counts.get(q) ?? [];
    return html`<div class="tl-row" data-queue="${q}"><div class="tl-label">${q} <span class="sub">${a.perQueue[q] ?? 0}</span></div><div class="tl-bars">${row.map(
      (n, i) =>
        html`<span class="tl-bar" data-count="${n}" title="${labelledTime(a.from + i * span, zone)} – ${labelledTime(a.from + (i + 1) * span, zone)}: ${n} fire${n === 1 ? '' : 's'}" style="height:${n === 0 ? 0 : Math.max(8, Math.round((n / max) * 100))}%"></span>`,
    )}</div></div>`;
  });
  const list = a.entries
    .slice(0, 500)
    .map(
      (e) =>
        html`<tr><td>${e.jitterMs ? windowAt(e.at, e.jitterMs, zoneFor(ctx.zone, e.zone)) : timeAt(e.at, zoneFor(ctx.zone, e.zone), true)}</td><td>${e.queue}</td><td><a href="${ctx.base}/schedules/${encodeURIComponent(e.scheduleId)}">${e.scheduleId}</a></td></tr>`,
    );
  const body = html`
<h1>Agenda</h1>
<form method="get" action="${ctx.base}/agenda" class="toolbar">
  <label>Next <input name="next" value="${nextText}" size="6"></label>
  <label>Queue <input name="queue" value="${queue ?? ''}" size="16" placeholder="all"></label>
  <button type="submit" class="small">Show</button>
</form>
<p class="sub" id="agenda-window">${timeAt(a.from, zone)} to ${timeAt(a.to, zone)}, ${BUCKETS} slices of ${Math.round(span / 60_000)} min; bar height = fires in the slice (tallest: ${max}).</p>
<div class="panel timeline" id="timeline">${queues.length === 0 ? html`<div class="empty">Nothing fires in this window.</div>` : rows}</div>
${a.capped.length > 0 ? html`<p class="sub" id="agenda-capped">Counted up to the per-schedule bound only (its later instants in the window are not in the timeline): ${a.capped.join(', ')}</p>` : ''}
${a.unknown.length > 0 ? html`<p class="sub">Not shown (custom triggers defined in code only): ${a.unknown.join(', ')}</p>` : ''}
<h2>Fire instants${a.entries.length > 500 || a.truncated ? html` (the first ${Math.min(500, a.entries.length)} of ${Object.values(a.perQueue).reduce((x, y) => x + y, 0)})` : ''}</h2>
${a.entries.some((e) => e.jitterMs) ? html`<p class="sub" data-jitter-note>A jittered schedule's instant is its window: it runs once, at a random time in it.</p>` : ''}
<table id="agenda"><thead><tr><th>Time</th><th>Queue</th><th>Schedule</th></tr></thead><tbody>${list}</tbody></table>
<style>
.timeline .tl-row { display: flex; align-items: flex-end; gap: 8px; margin: 6px 0; }
.timeline .tl-label { width: 180px; font-size: 13px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.timeline .tl-bars { flex: 1; display: flex; align-items: flex-end; gap: 1px; height: 40px; border-bottom: 1px solid #ccc; }
.timeline .tl-bar { flex: 1; background: var(--accent, #36c); min-width: 2px; }
</style>`;
  return layout(ctx, 'Agenda', 'other', body);
}
