import type { CalendarOverview } from '../../src/insight/index.js';
import { html, type SafeHtml } from './html.js';
import { layout, type PageContext } from './layout.js';
import { timeAt, zoneFor } from './time-zone.js';

/**
 * `/calendars`: every named calendar with its current version, its dates and rules, the schedules that
 * use it and its next excluded days (one section each, anchored by name: `/calendars#us-market-days`).
 */
export function calendarsPage(ctx: PageContext, calendars: readonly CalendarOverview[]): string {
  const zone = zoneFor(ctx.zone);
  const link = (id: string) => html`<a href="${ctx.base}/schedules/${encodeURIComponent(id)}">${id}</a>`;
  const one = (c: CalendarOverview): SafeHtml => html`
<section class="panel calendar" id="cal-${c.name}" data-calendar="${c.name}" data-version="${String(c.version)}">
<h2><a id="${c.name}"></a>${c.name} <span class="pill active">v${String(c.version)}</span></h2>
<p class="sub">Version ${String(c.version)} (${c.origin}), by ${c.by} at ${timeAt(c.at, zone)}.</p>
${c.error ? html`<p class="pill failed" data-calendar-error>${c.error}</p>` : ''}
<table class="kv">
<tr><th>Rules</th><td data-rules>${c.spec.rules.length === 0 ? html`<span class="muted">none</span>` : c.spec.rules.map((r, i) => html`${i ? ', ' : ''}<code>${r}</code>`)}</td></tr>
<tr><th>Dates (${String(c.spec.dates.length)})</th><td data-dates>${
    c.spec.dates.length === 0
      ? html`<span class="muted">none</span>`
      : html`<ul class="dates">${c.spec.dates.slice(0, 200).map((d) => html`<li><code>${d.date}</code>${d.name ? html` ${d.name}` : ''}</li>`)}</ul>${c.spec.dates.length > 200 ? html`<p class="sub">and ${String(c.spec.dates.length - 200)} more (bullbeat calendar:show ${c.name})</p>` : ''}`
  }</td></tr>
<tr><th>Schedules using it (${String(c.schedules.length)})</th><td data-schedules>${c.schedules.length === 0 ? html`<span class="muted">none</span>` : c.schedules.map((id, i) => html`${i ? ', ' : ''}${link(id)}`)}</td></tr>
<tr><th>Next excluded days</th><td data-excluded>${
    c.nextExcluded.length === 0
      ? html`<span class="muted">none in the next 400 days</span>`
      : html`<ul class="dates">${c.nextExcluded.map((d) => html`<li data-day="${d.date}">${d.why}</li>`)}</ul>`
  }</td></tr>
</table>
</section>`;
  const body = html`
<h1>Calendars</h1>
<p class="sub">Named calendars of business days: defined once (<code>calendars.define</code>, <code>bullbeat calendar:define</code>), named by any number of schedules (<code>calendar: '&lt;name&gt;'</code>). Days are wall-clock dates in each schedule's zone; the excluded days below are listed from today, UTC. Before a change: <code>bullbeat calendar:define &lt;name&gt; ... --dry-run</code>.</p>
${calendars.length === 0 ? html`<p class="muted" id="no-calendars">No calendar is defined.</p>` : calendars.map(one)}
<style>
.calendar { margin: 12px 0; padding: 8px 12px; }
.calendar table.kv th { text-align: left; vertical-align: top; padding-right: 16px; white-space: nowrap; }
.calendar ul.dates { margin: 0; padding-left: 18px; columns: 2; }
</style>`;
  return layout(ctx, 'Calendars', 'calendars', body);
}
