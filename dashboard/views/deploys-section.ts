import type { CodeDeploy } from '../../src/insight/index.js';
import { changeWords } from '../../src/scheduler/index.js';
import { html, type SafeHtml } from './html.js';
import type { PageContext } from './layout.js';
import { timeAt, zoneFor } from './time-zone.js';

const VERB: Record<string, string> = {
  create: 'added',
  update: 'changed',
  restore: 'back in code',
  orphan: 'orphaned (no longer in code)',
};

/**
 * The fleet page's "Code deploys" section: what each of the last deploys of the jobs module did to the
 * code schedules (added, changed field by field, orphaned), from their audit trails.
 */
export function deploysSection(ctx: PageContext, deploys: readonly CodeDeploy[]): SafeHtml {
  const zone = zoneFor(ctx.zone);
  if (deploys.length === 0) {
    return html`<h2>Code deploys</h2><p class="muted" id="deploys">No deploy of code schedules recorded. <code>bullbeat plan &lt;jobs module&gt;</code> shows what the next one would do.</p>`;
  }
  const times = (list: readonly number[]) =>
    list.length === 0 ? html`none` : list.map((t, i) => html`${i ? ', ' : ''}${timeAt(t, zone)}`);
  const link = (id: string) => html`<a href="${ctx.base}/schedules/${encodeURIComponent(id)}">${id}</a>`;
  const one = (d: CodeDeploy) =>
    html`<tr data-deploy="${String(d.to)}"><td>${timeAt(d.to, zone)}</td><td><ul class="changes">${d.changes.map(
      (c) =>
        html`<li data-schedule="${c.scheduleId}" data-op="${c.op}">${link(c.scheduleId)}: ${VERB[c.op] ?? c.op}${c.changes.length > 0 ? html`<ul>${c.changes.map((f) => html`<li data-field="${f.field}"><code>${changeWords(f)}</code></li>`)}${c.nextBefore && c.nextAfter ? html`<li data-next-before>next before: ${times(c.nextBefore)}</li><li data-next-after>next after: ${times(c.nextAfter)}</li>` : ''}</ul>` : ''}</li>`,
    )}</ul></td></tr>`;
  return html`<h2>Code deploys (newest first)</h2>
<table id="deploys"><thead><tr><th>When</th><th>What the deploy did to code schedules</th></tr></thead><tbody>${deploys.map(one)}</tbody></table>
<p class="sub">From the schedules' audit trails (changes made by <code>code</code>). Before a deploy: <code>bullbeat plan &lt;jobs module&gt;</code>.</p>`;
}
