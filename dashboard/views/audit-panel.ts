import { auditDetails, changeWords } from '../../src/scheduler/index.js';
import type { AuditEntry } from '../../src/store/index.js';
import { html, type SafeHtml } from './html.js';
import { timeAt } from './time-zone.js';

/** An entry's details: an update's changed fields one per line, else the entry's one line. */
function details(e: AuditEntry): SafeHtml | string {
  if ((e.op === 'update' || e.op === 'restore') && e.changes !== undefined) {
    if (e.changes.length === 0) return html`<span class="muted">no field changed</span>`;
    return html`<ul class="changes">${e.changes.map((c) => html`<li data-field="${c.field}"><code>${changeWords(c)}</code></li>`)}</ul>`;
  }
  return auditDetails(e);
}

/** The schedule page's "Changes" section: who changed it, what and when (its newest audit entries, times in `zone`). */
export function auditPanel(
  entries: readonly AuditEntry[],
  zone: string,
  apiPath: string,
  /** An entry's action (the schedule page's "Revert to this"); none by default. */
  action: (e: AuditEntry) => SafeHtml = () => html``,
): SafeHtml {
  if (entries.length === 0) {
    return html`<h2>Changes</h2><div class="panel empty" data-audit-empty>No change recorded.</div>`;
  }
  const rows = entries.map(
    (e) => html`<tr data-op="${e.op}" data-entry="${e.id}">
  <td>${timeAt(e.at, zone)}</td>
  <td><span class="pill">${e.op}</span></td>
  <td data-actor>${e.actor}${e.onBehalfOf !== undefined ? html`<div class="sub" data-on-behalf-of title="what the caller said, not checked">for ${e.onBehalfOf}</div>` : ''}</td>
  <td class="sub" data-source>${e.source}</td>
  <td>${details(e)}${action(e)}</td>
</tr>`,
  );
  return html`<h2>Changes (newest first, ${entries.length})</h2>
<table id="audit"><thead><tr><th>Time</th><th>Change</th><th>By</th><th>Via</th><th>Details</th></tr></thead><tbody>${rows}</tbody></table>
<p class="sub">The whole trail: <a href="${apiPath}" data-audit-api>${apiPath}</a> (JSON), <code>bullbeat schedule:history &lt;id&gt;</code>.</p>`;
}
