import type { AuditEntry, Incident, RunRecord } from '../../src/store/index.js';
import {
  describeExpectations,
  formatSpread,
  laneOf,
  occurrenceJobId,
  spreadOffsetMs,
} from '../../src/store/index.js';
import type { ScheduleView } from '../schedule-view.js';
import { auditPanel } from './audit-panel.js';
import { backfillPanel } from './backfill-panel.js';
import { fireTimes } from './fire-times.js';
import { formatDuration, html, raw, type SafeHtml } from './html.js';
import { layout, type PageContext } from './layout.js';
import { editable } from './new-schedule-page.js';
import { revertButton } from './revert-button.js';
import { scheduleActions, statusCell } from './schedule-actions.js';
import { timeAt, type ZoneChoice, zoneFor } from './time-zone.js';

/**
 * The first attempt's start (or the enqueue, when it never started) minus the intended fire time, in
 * ms: how late the occurrence began, not how late its last retry did (`startedAt` is the last attempt's).
 */
export function latenessOf(r: RunRecord): number | null {
  const first = r.previousAttempts?.find((a) => a.startedAt !== undefined)?.startedAt;
  const at = first ?? r.startedAt ?? r.enqueuedAt;
  return at === undefined ? null : at - r.fireAt;
}

export function durationOf(r: RunRecord): number | null {
  return r.startedAt !== undefined && r.finishedAt !== undefined ? r.finishedAt - r.startedAt : null;
}

/** The Bull Board page of an occurrence's job (`/admin/queues/queue/<queue>/<jobId>`). */
export function jobUrl(base: string, queue: string, r: RunRecord): string | null {
  if (r.outcome === 'missed' || (r.outcome === 'skipped' && !r.jobId && !r.enqueuedAt)) return null;
  const jobId = r.jobId ?? occurrenceJobId(r.scheduleId, r.fireAt, laneOf(r.kind));
  return `${base}/admin/queues/queue/${encodeURIComponent(r.queue ?? queue)}/${encodeURIComponent(jobId)}`;
}

function dl(entries: [string, SafeHtml | string | number | null | undefined][]): SafeHtml {
  return html`<dl class="def">${entries
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
}

const json = (v: unknown) => html`<pre>${JSON.stringify(v, null, 2)}</pre>`;

/** The newest occurrences the schedule page lists (the JSON API reads up to 1,000 of those kept). */
export const OCCURRENCES_SHOWN = 100;

/** How many occurrences' records the schedule keeps, and the most it keeps (`historyLimit`). */
export interface KeptHistory {
  kept: number;
  limit: number;
}

/**
 * The occurrences' heading and, when there are more than the page lists or the oldest were trimmed, a
 * line that says where the others are.
 */
function occurrencesHeading(ctx: PageContext, s: ScheduleView, shown: number, h: KeptHistory): SafeHtml {
  const kept = Math.max(h.kept, shown);
  const api = `${ctx.base}/api/schedules/${encodeURIComponent(s.id)}/runs?limit=${Math.min(kept, 1000)}`;
  return html`<h2 data-occurrences="${shown} of ${kept}">Occurrences (newest first, ${shown} of ${kept.toLocaleString('en-US')} kept)</h2>
    ${kept > shown ? html`<p class="muted" data-older>The ${(kept - shown).toLocaleString('en-US')} older ones kept: <a href="${api}">all ${kept.toLocaleString('en-US')} as JSON</a> (<code>GET /api/schedules/:id/runs?limit=</code>, up to 1,000).</p>` : ''}
    ${kept >= h.limit ? html`<p class="muted" data-trimmed>Older occurrences are not kept: each schedule keeps its newest ${h.limit.toLocaleString('en-US')} records (<code>historyLimit</code>); the counts under Definition cover every occurrence.</p>` : ''}`;
}

/** `/schedules/:id`: definition and options, the runs chart and the occurrence history. */
export function schedulePage(
  ctx: PageContext,
  s: ScheduleView,
  runs: RunRecord[],
  flash?: { ok: boolean; text: string },
  audit: readonly AuditEntry[] = [],
  history: KeptHistory = { kept: runs.length, limit: Number.POSITIVE_INFINITY },
  incidents: readonly Incident[] = [],
): string {
  const d = s.definition;
  // every time of this page in the zone chosen in the header (this schedule's own, for `schedule`)
  const zone = zoneFor(ctx.zone, s.timezone);
  const at = (ms: number | null | undefined) => timeAt(ms, zone);
  const chartData = runs
    .slice()
    .reverse()
    .map((r) => ({
      fireAt: r.fireAt,
      kind: r.kind,
      outcome: r.outcome,
      lateness: latenessOf(r),
      duration: durationOf(r),
    }));
  const rows = runs.map((r) => {
    const link = jobUrl(ctx.base, s.queue, r);
    return html`<tr data-outcome="${r.outcome}" data-fire-at="${r.fireAt}">
  <td>${at(r.fireAt)}${r.kind !== 'scheduled' ? html` <span class="sub">${r.kind}</span>` : ''}</td>
  <td><span class="pill ${r.outcome}">${r.outcome}</span>${r.reason ? html` <span class="sub">${r.reason}${r.group ? ` (${r.group})` : ''}</span>` : ''}${r.coalesced ? html` <span class="sub">stands for ${r.coalesced}</span>` : ''}${r.consumer === 'foreign' ? html` <span class="sub" title="run by a consumer other than bullbeat's worker; read from BullMQ">foreign consumer</span>` : ''}</td>
  <td class="num">${formatDuration(latenessOf(r))}</td>
  <td class="num">${formatDuration(durationOf(r))}</td>
  <td class="num">${r.attempts ?? '—'}</td>
  <td class="error">${r.error ?? ''}</td>
  <td>${link ? html`<a href="${link}" data-job-link>job</a>` : html`<span class="muted">—</span>`} <a href="${ctx.base}/schedules/${encodeURIComponent(s.id)}/why?at=${r.fireAt}" data-why-link>why</a></td>
</tr>`;
  });
  const back = `${ctx.base}/schedules/${encodeURIComponent(s.id)}`;
  const body = html`
${flash ? html`<div class="flash ${flash.ok ? 'ok' : 'bad'}" role="status">${flash.text}</div>` : ''}
<p><a href="${ctx.base}/">← all schedules</a></p>
<h1><span class="name">${s.name}</span> ${statusCell(s)}</h1>
<div class="toolbar">${scheduleActions(ctx, s, back, true)}${!ctx.readOnly && editable(s) ? html` <a href="${back}/edit" data-edit>Edit</a>` : ''} <a href="${back}/why" data-why>Why didn't it run?</a></div>
${s.pauseNote ? html`<div class="panel" data-pause-note-panel><b>Paused</b> by ${s.pauseNote.by}${s.pauseNote.onBehalfOf !== undefined ? ` (for ${s.pauseNote.onBehalfOf})` : ''} at ${at(s.pauseNote.at)}${s.pauseNote.note !== '' ? html`: ${s.pauseNote.note}` : ''}</div>` : ''}
${openIncidents(ctx, s, incidents, at)}
${s.error ? html`<div class="flash bad" role="alert" data-error><b>Errored${s.error.at !== null ? html` at ${at(s.error.at)}` : ''}${s.error.fireAt !== null ? html`, planning the occurrence of ${at(s.error.fireAt)}` : ''}:</b> ${s.error.reason}<br><span class="sub">It fires no more until it is fixed: update or re-deploy it, resume it to retry, or remove it.</span></div>` : ''}
<div class="layout-2">
  <section>
    <h2>Recent runs</h2>
    <div class="panel chart" id="runs-chart" data-zone="${zone}"><div class="sub muted">Lateness = the first attempt's start (or the enqueue) minus the intended fire time. Duration = finish minus the last attempt's start.</div></div>
    <script type="application/json" id="runs-data">${raw(JSON.stringify(chartData).replaceAll('<', '\\u003c'))}</script>
    ${occurrencesHeading(ctx, s, runs.length, history)}
    ${
      runs.length === 0
        ? html`<div class="panel empty">No occurrence recorded yet.</div>`
        : html`<table id="runs"><thead><tr><th>Fire time</th><th>Outcome</th><th>Lateness</th><th>Duration</th><th>Attempts</th><th>Error</th><th>Bull Board</th></tr></thead><tbody>${rows}</tbody></table>`
    }
    ${auditPanel(audit, zone, `${ctx.base}/api/schedules/${encodeURIComponent(s.id)}/history`, revertButton(ctx, s))}
  </section>
  <aside>
    <h2>Definition</h2>
    <div class="panel">${dl([
      ['Id', s.id],
      ['Job name', s.name],
      ['Queue', html`<a href="${ctx.base}/admin/queues/queue/${encodeURIComponent(s.queue)}">${s.queue}</a>`],
      ['Source', s.source === 'code' ? 'code (jobs module)' : 'runtime (API)'],
      ['Trigger', s.description],
      ['Time zone', s.timezone],
      ['Calendar', calendarRow(ctx, d.trigger)],
      ['Next fire times', fireTimes(ctx.zone, s.nextFireTimes, s.timezone, s.jitterMs)],
      ...(s.wakeUpTime !== undefined
        ? [['Wakes up', html`${at(s.wakeUpTime)} (its calendar moves the run)`] as [string, SafeHtml]]
        : []),
      ...spreadRows(ctx.zone, s),
      ['Runs / errors', `${s.counts.runs} / ${s.counts.errors}`],
      ['Skipped / missed / coalesced', `${s.counts.skipped} / ${s.counts.missed} / ${s.counts.coalesced}`],
      ['Enqueued so far', s.fired],
      ['Last fire', at(s.lastFireAt)],
      ['Created', at(s.createdAt)],
      ['Overlap', d.run.overlap],
      [
        'Max instances',
        d.run.slot.mode === 'skip' ? d.run.slot.cap : d.run.slot.mode === 'none' ? 'unlimited' : 1,
      ],
      [
        'Pause on failure',
        d.run.pauseOnFailure !== undefined ? `after ${d.run.pauseOnFailure} failed runs in a row` : undefined,
      ],
      ['Exclusion group', d.run.exclusionGroup],
      [
        'Group',
        d.run.group
          ? `${d.run.group.key}: at most ${d.run.group.max} at once, overflow ${d.run.group.overflow ?? 'skip'}`
          : undefined,
      ],
      ['Timeout', d.run.timeoutMs !== undefined ? formatDuration(d.run.timeoutMs) : undefined],
      ['Attempts', d.attempts],
      ['Backoff', d.backoff !== undefined ? backoffWords(d.backoff) : undefined],
      ['Misfire', `${d.misfire} (grace ${formatDuration(d.misfireGraceMs)})`],
      ['Catch-up window', d.catchUpWindowMs !== undefined ? formatDuration(d.catchUpWindowMs) : 'unlimited'],
      ['Max catch-up', d.maxCatchUp],
      ['Start at', d.startAt !== undefined ? at(d.startAt) : undefined],
      ['End at', d.endAt !== undefined ? at(d.endAt) : undefined],
      ['Max runs', d.maxRuns],
      [
        'Expects',
        d.expect !== undefined
          ? html`<span data-expects>${describeExpectations(d.expect, s.timezone ?? 'UTC')}</span>`
          : undefined,
      ],
    ])}</div>
    ${backfillPanel(ctx, s)}
    <h2>Trigger</h2>
    ${json(d.trigger)}
    ${d.args.length > 0 ? html`<h2>Arguments</h2>${json(d.args)}` : ''}
    ${d.data !== undefined ? html`<h2>Data</h2>${json(d.data)}` : ''}
    ${d.jobOptions !== undefined ? html`<h2>Job options</h2>${json(d.jobOptions)}` : ''}
  </aside>
</div>`;
  return layout(ctx, s.name, 'other', body);
}

/**
 * The schedule's open incidents (what its `expect` found wrong now), each with its cause, the
 * occurrence that opened it and why, linked to that occurrence's `why` page and to the alerts page.
 */
function openIncidents(
  ctx: PageContext,
  s: ScheduleView,
  incidents: readonly Incident[],
  at: (ms: number | null | undefined) => SafeHtml | string,
): SafeHtml | string {
  const open = incidents.filter((i) => i.status === 'open');
  if (open.length === 0) return '';
  const why = (i: Incident) =>
    i.cause === 'no-worker'
      ? ''
      : html` <a href="${ctx.base}/schedules/${encodeURIComponent(s.id)}/why?at=${i.occurrence}" data-incident-why>why</a>`;
  return html`<div class="flash bad" role="alert" data-open-incidents="${open.length}"><b>${open.length} open incident${open.length === 1 ? '' : 's'}</b> (<a href="${ctx.base}/alerts?schedule=${encodeURIComponent(s.id)}">alerts</a>)<ul>${open.map(
    (i) =>
      html`<li data-incident="${i.id}" data-cause="${i.cause}"><b>${i.cause}</b>${i.cause === 'no-worker' ? '' : html`, occurrence ${at(i.occurrence)}`}, opened ${at(i.openedAt)}: ${i.why}${why(i)}</li>`,
  )}</ul></div>`;
}

/** A BullMQ backoff in words (`exponential from 1.0 s, doubling`), never raw JSON cut by the column. */
export function backoffWords(backoff: unknown): string {
  if (typeof backoff === 'number') return `fixed ${formatDuration(backoff)}`;
  if (backoff === null || typeof backoff !== 'object') return String(backoff);
  const { type, delay } = backoff as { type?: unknown; delay?: unknown };
  const after = typeof delay === 'number' ? formatDuration(delay) : undefined;
  if (type === 'exponential') return after ? `exponential from ${after}, doubling` : 'exponential';
  if (type === 'fixed') return after ? `fixed ${after}` : 'fixed';
  return after ? `${String(type)} (${after})` : String(type);
}

/**
 * A spread schedule's rows: its window and offset (from its id), and the instants its next occurrences
 * fire at (each nominal time above plus the offset). None without `spread`.
 */
function spreadRows(zone: ZoneChoice, s: ScheduleView): [string, SafeHtml | string][] {
  const spreadMs = s.definition.spreadMs;
  if (spreadMs === undefined) return [];
  const offset = spreadOffsetMs(s.id, spreadMs);
  return [
    [
      'Spread',
      `${formatSpread(spreadMs)} window; this schedule fires ${formatSpread(offset)} after each time`,
    ],
    [
      'Fires at (spread)',
      fireTimes(
        zone,
        s.nextFireTimes.map((t) => t + offset),
        s.timezone,
        s.jitterMs,
      ),
    ],
  ];
}

/** The named calendar a schedule's trigger uses, linked to its section of the calendars page, with its roll. */
function calendarRow(ctx: PageContext, trigger: ScheduleView['definition']['trigger']): SafeHtml | undefined {
  if (trigger.type !== 'calendar') return undefined;
  const roll = trigger.onExcluded ?? 'skip';
  return html`<a data-calendar-link href="${ctx.base}/calendars#${trigger.calendar}">${trigger.calendar}</a> <span class="sub">(on a day off: ${roll === 'skip' ? 'skip' : `${roll} business day`})</span>`;
}
