import type { AlertsReport, Delivery } from '../../src/store/index.js';
import { html, type SafeHtml } from './html.js';
import { layout, type PageContext } from './layout.js';
import { labelledTime, timeAt, zoneFor } from './time-zone.js';

/** `/alerts`: open incidents, then the recent ones, each with its why, its occurrence and its deliveries. */
export function alertsPage(ctx: PageContext, report: AlertsReport): string {
  const zone = zoneFor(ctx.zone);
  const open = report.incidents.filter((i) => i.status === 'open');
  const notifiers = Object.entries(report.notifiers);
  const row = (i: AlertsReport['incidents'][number]) => {
    const schedule = `${ctx.base}/schedules/${encodeURIComponent(i.scheduleId)}`;
    const noOccurrence = i.cause === 'no-worker' || i.cause === 'no-scheduler';
    return html`<tr data-incident="${i.id}" data-cause="${i.cause}" data-status="${i.status}">
  <td>${i.id}</td>
  <td><span class="pill ${i.status === 'open' ? 'failed' : 'active'}">${i.status}</span></td>
  <td><b>${i.cause}</b></td>
  <td><a href="${schedule}">${i.scheduleId}</a></td>
  <td>${noOccurrence ? html`<span class="muted">—</span>` : html`<a href="${schedule}/why?at=${String(i.occurrence)}" title="why this occurrence did or did not run">${timeAt(i.occurrence, zone)}</a>`}</td>
  <td title="${labelledTime(i.openedAt, zone)}">${timeAt(i.openedAt, zone)}</td>
  <td>${i.resolvedAt === undefined ? html`<span class="muted">open</span>` : timeAt(i.resolvedAt, zone)}</td>
  <td class="why">${i.why}${i.resolvedWhy ? html`<div class="sub">resolved: ${i.resolvedWhy}</div>` : ''}</td>
  <td>${deliveriesCell(i.deliveries)}</td>
</tr>`;
  };
  const body = html`
<h1>Alerts</h1>
<p id="alerts-summary" data-open="${open.length}" data-outbox="${report.outbox}">
  <b>${open.length}</b> open incident${open.length === 1 ? '' : 's'} ·
  <b>${report.outbox}</b> deliver${report.outbox === 1 ? 'y' : 'ies'} waiting ·
  notifiers: ${notifiers.length === 0 ? html`<span class="muted">none announced (give the scheduler <code>--notifier</code>)</span>` : notifiers.map(([n, k], x) => html`${x ? ', ' : ''}<b>${n}</b> (${k})`)}
</p>
${
  report.incidents.length === 0
    ? html`<p class="muted" id="no-incidents">No incident. Schedules with <code>expect</code> open one when an occurrence is late, missed, failed, overdue or stuck, or when no worker consumes their queue.</p>`
    : html`<table id="incidents">
<thead><tr><th>id</th><th>status</th><th>cause</th><th>schedule</th><th>occurrence</th><th>opened</th><th>resolved</th><th>why</th><th>deliveries</th></tr></thead>
<tbody>
${[...open, ...report.incidents.filter((i) => i.status !== 'open')].map(row)}
</tbody>
</table>`
}
<h2>Deliveries by notifier</h2>
${
  Object.keys(report.deliveryCounts).length === 0
    ? html`<p class="muted" id="delivery-counts">No delivery attempted yet.</p>`
    : html`<table id="delivery-counts"><thead><tr><th>notifier</th><th>sent</th><th>retried</th><th>given up</th></tr></thead><tbody>
${Object.entries(report.deliveryCounts).map(
  ([n, c]) =>
    html`<tr data-notifier="${n}"><td>${n}</td><td class="num">${String(c.sent ?? 0)}</td><td class="num">${String(c.retry ?? 0)}</td><td class="num">${String(c.failed ?? 0)}</td></tr>`,
)}
</tbody></table>`
}`;
  return layout(ctx, 'Alerts', 'alerts', body);
}

function deliveriesCell(ds: readonly Delivery[]): SafeHtml {
  if (ds.length === 0) return html`<span class="muted">none</span>`;
  return html`${ds.map(
    (d) =>
      html`<div data-delivery="${d.id}" data-status="${d.status}"><b>${d.notifier}</b> ${d.event}: <span class="pill ${d.status === 'sent' ? 'active' : d.status === 'failed' ? 'failed' : 'late'}">${d.status}</span>${d.attempts > 1 ? html` after ${String(d.attempts)} attempts` : ''}${d.lastError && d.status !== 'sent' ? html` <span class="sub">${d.lastError}</span>` : ''}</div>`,
  )}`;
}
