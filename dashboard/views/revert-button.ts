import type { AuditEntry } from '../../src/store/index.js';
import type { ScheduleView } from '../schedule-view.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, type PageContext } from './layout.js';

/** The ops whose entry carries a definition a runtime schedule can go back to. */
const DEFINING = new Set(['create', 'update', 'restore']);

/**
 * The "Revert to this" button of an audit entry (a form posting `to` to the page route `revert`), for a
 * runtime schedule's entries that carry a definition; none for a code schedule (its code decides) or a
 * read-only dashboard.
 */
export function revertButton(ctx: PageContext, s: ScheduleView): (e: AuditEntry) => SafeHtml {
  if (ctx.readOnly || s.source !== 'runtime') return () => html``;
  const action = `${ctx.base}/schedules/${encodeURIComponent(s.id)}/revert`;
  const back = `${ctx.base}/schedules/${encodeURIComponent(s.id)}`;
  return (e) =>
    DEFINING.has(e.op) && e.definition !== undefined
      ? html`<form method="post" action="${action}" class="inline" data-confirm="Put ${s.id} back to the definition of this change (${e.id})?">${csrfField(ctx)}<input type="hidden" name="back" value="${back}"><input type="hidden" name="to" value="${e.id}"><button type="submit" class="small" data-action="revert" data-revert-to="${e.id}">Revert to this</button></form>`
      : html``;
}
