import type { WhyReport } from '../../src/insight/index.js';
import { html } from './html.js';
import { layout, type PageContext } from './layout.js';
import { timeAt, zoneFor } from './time-zone.js';

/** `/schedules/:id/why`: the chain of facts of one occurrence, and a form to ask about another. */
export function whyPage(ctx: PageContext, r: WhyReport, atText: string): string {
  const self = `${ctx.base}/schedules/${encodeURIComponent(r.scheduleId)}`;
  const zone = zoneFor(ctx.zone);
  const verdict = r.ran ? 'ran' : r.cause === 'running' ? 'running' : 'did not run';
  const body = html`
<p><a href="${self}">← ${r.name}</a></p>
<h1>Why didn't it run? <span class="name">${r.scheduleId}</span></h1>
<form method="get" action="${self}/why" class="toolbar">
  <label>Occurrence at or before (ISO 8601, UTC by default) <input name="at" value="${atText}" placeholder="now" size="28"></label>
  <button type="submit" class="small">Explain</button>
</form>
<div class="flash ${r.ran || r.cause === 'running' ? 'ok' : 'bad'}" role="status" data-why-cause="${r.cause ?? 'ran'}"><b>${verdict}:</b> ${r.summary}</div>
<ol class="panel why-chain" id="why-chain">${r.facts.map(
    (f) =>
      html`<li data-link="${f.link}" data-ok="${String(f.ok)}"><span class="pill ${f.ok ? 'succeeded' : 'failed'}">${f.ok ? '✓' : '✗'} ${f.link}</span> ${f.text}${f.at !== undefined ? html` <span class="sub">${timeAt(f.at, zone)}</span>` : ''}</li>`,
  )}</ol>
<p class="sub">Asked at ${timeAt(r.now, zone)} (Redis time). The same as <code>bullbeat schedule:why ${r.scheduleId}${atText ? ` --at ${atText}` : ''}</code> and <code>GET /api/schedules/${r.scheduleId}/why</code>.</p>`;
  return layout(ctx, `Why: ${r.name}`, 'other', body);
}
