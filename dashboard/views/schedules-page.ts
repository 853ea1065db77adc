import type { RunCounter } from '../../src/store/index.js';
import type { ScheduleStatus, ScheduleView } from '../schedule-view.js';
import { fireTimes } from './fire-times.js';
import { html, type SafeHtml } from './html.js';
import { layout, type PageContext } from './layout.js';
import { pauseNoteLine, scheduleActions, statusCell } from './schedule-actions.js';

export interface SchedulesPageData {
  items: ScheduleView[];
  total: number;
  /** `total` is a lower bound (a search counted up to a budget). */
  totalAtLeast?: boolean;
  offset: number;
  limit: number;
  q: string;
  /** A label selector (`tenant=acme`), '' for none. */
  selector?: string;
  status: ScheduleStatus | undefined;
  counts: Record<ScheduleStatus, number>;
  totals: Record<RunCounter, number>;
  /** A message after an action (`paused "x"`), shown once. */
  flash?: { ok: boolean; text: string } | undefined;
}

/** ` · tenant=acme team=billing`: a schedule's labels in its row. */
function labelsLine(s: ScheduleView): SafeHtml | '' {
  const labels = Object.entries(s.definition.labels ?? {});
  if (labels.length === 0) return '';
  return html` · <span data-labels>${labels.map(([k, v]) => `${k}=${v}`).join(' ')}</span>`;
}

const STATUSES: ScheduleStatus[] = ['active', 'paused', 'completed', 'errored'];

/** `/`: every schedule, paginated and searchable on the server. */
export function schedulesPage(ctx: PageContext, d: SchedulesPageData, selfUrl: string): string {
  const query = (offset: number) => {
    const p = new URLSearchParams();
    if (d.q) p.set('q', d.q);
    if (d.selector) p.set('selector', d.selector);
    if (d.status) p.set('status', d.status);
    if (offset > 0) p.set('offset', String(offset));
    const s = p.toString();
    return `${ctx.base}/${s ? `?${s}` : ''}`;
  };
  const all = d.counts.active + d.counts.paused + d.counts.completed + d.counts.cancelled + d.counts.errored;
  const stat = (n: number, label: string) =>
    html`<div class="stat"><b>${n.toLocaleString('en-US')}</b><span>${label}</span></div>`;
  const rows = d.items.map(
    (s) => html`<tr data-id="${s.id}">
  <td><a class="name" href="${ctx.base}/schedules/${encodeURIComponent(s.id)}">${s.name}</a>
    <div class="sub">${s.id === s.name ? '' : html`id ${s.id} · `}queue ${s.queue}${s.source === 'code' ? ' · code' : ''}${labelsLine(s)}</div></td>
  <td>${s.description}</td>
  <td>${statusCell(s)}${pauseNoteLine(ctx, s)}${s.error ? html`<div class="sub error" data-error title="${s.error.reason}">${s.error.reason.length > 120 ? `${s.error.reason.slice(0, 120)}…` : s.error.reason}</div>` : ''}</td>
  <td class="times">${fireTimes(ctx.zone, s.nextFireTimes, s.timezone, s.jitterMs)}</td>
  <td>${s.lastOutcome ? html`<span class="pill ${s.lastOutcome}">${s.lastOutcome}</span>` : html`<span class="muted">none yet</span>`}
    ${s.lastError ? html`<div class="sub" title="${s.lastError}">${s.lastError.length > 80 ? `${s.lastError.slice(0, 80)}…` : s.lastError}</div>` : ''}</td>
  <td class="num">${s.counts.runs}</td>
  <td class="num">${s.counts.errors}</td>
  <td class="actions">${scheduleActions(ctx, s, selfUrl)}</td>
</tr>`,
  );
  const last = Math.min(d.offset + d.limit, d.total);
  const body = html`
${d.flash ? html`<div class="flash ${d.flash.ok ? 'ok' : 'bad'}" role="status">${d.flash.text}</div>` : ''}
<h1>Schedules</h1>
<div class="stats">
  ${stat(all, 'schedules')}${stat(d.counts.active, 'active')}${stat(d.counts.paused, 'paused')}${stat(d.counts.completed, 'completed')}${d.counts.errored > 0 ? stat(d.counts.errored, 'errored') : ''}
  ${stat(d.totals.runs, 'runs')}${stat(d.totals.errors, 'errors')}${stat(d.totals.skipped, 'skipped')}${stat(d.totals.missed, 'missed')}${stat(d.totals.coalesced, 'coalesced')}
</div>
<p class="muted" data-totals-note>Runs, errors, skipped, missed and coalesced: every occurrence since the deployment began, removed schedules included (as the <code>bullbeat_runs_recorded</code> metric); each schedule's own are in its row.</p>
<form class="toolbar" method="get" action="${ctx.base}/" role="search">
  <input type="search" name="q" value="${d.q}" placeholder="Search name, id or queue" aria-label="Search schedules">
  <input type="search" name="selector" value="${d.selector ?? ''}" placeholder="Labels: tenant=acme,team!=ops" aria-label="Label selector">
  <select name="status" aria-label="Status">
    <option value="">any status</option>
    ${STATUSES.map((s) => html`<option value="${s}"${d.status === s ? ' selected' : ''}>${s}</option>`)}
  </select>
  <button type="submit">Search</button>
  ${d.q || d.status || d.selector ? html`<a href="${ctx.base}/">clear</a>` : ''}
  ${ctx.readOnly ? '' : html`<a class="button primary" style="margin-left:auto" href="${ctx.base}/new">New schedule</a>`}
</form>
${
  d.items.length === 0
    ? html`<div class="panel empty">${d.total === 0 && !d.q && !d.status && !d.selector ? 'No schedules yet.' : 'No schedule matches.'}</div>`
    : html`<table id="schedules">
<thead><tr><th>Name</th><th>Trigger</th><th>Status</th><th>Next 5 fire times</th><th>Last outcome</th><th>Runs</th><th>Errors</th><th></th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}
<div class="pager">
  <span data-range>${d.total === 0 ? '0' : `${d.offset + 1}–${last}`} of ${d.totalAtLeast ? 'at least ' : ''}${d.total.toLocaleString('en-US')}</span>
  ${d.offset > 0 ? html`<a href="${query(Math.max(0, d.offset - d.limit))}" rel="prev">← previous</a>` : ''}
  ${last < d.total ? html`<a href="${query(d.offset + d.limit)}" rel="next">next →</a>` : ''}
</div>`;
  return layout(ctx, 'Schedules', 'schedules', body);
}
