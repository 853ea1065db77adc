import type { ScheduleView } from '../schedule-view.js';
import { html, type SafeHtml } from './html.js';
import type { PageContext } from './layout.js';

/**
 * The schedule page's backfill panel: a range, optional data for every backfilled run instead of the
 * schedule's (JSON, checked in the page before anything is sent), a Preview button (a dry run through
 * the API), then a Confirm button that enqueues what the preview listed with that data
 * (`assets/backfill-script.ts` drives it).
 * Absent in read-only mode and for a schedule whose trigger only code defines.
 */
export function backfillPanel(ctx: PageContext, s: ScheduleView): SafeHtml {
  if (ctx.readOnly || s.definition.trigger.type === 'custom') return html``;
  return html`<h2>Backfill</h2>
<form id="backfill-form" class="panel backfill" autocomplete="off" data-id="${s.id}" data-timezone="${s.timezone ?? 'UTC'}">
  <div class="sub muted">Run the occurrences of a past range that nothing ran (by this schedule's own trigger, in its zone). Times are UTC; the end is excluded.</div>
  <label for="bf-from">From (UTC)</label> <input id="bf-from" name="from" type="datetime-local" step="1" required>
  <label for="bf-to">To (UTC)</label> <input id="bf-to" name="to" type="datetime-local" step="1" required>
  <label for="bf-data">Data (JSON, optional)</label> <textarea id="bf-data" name="data" rows="2" spellcheck="false" placeholder="data for every backfilled run instead of the schedule's, e.g. {&quot;full&quot;: true}" aria-describedby="backfill-status"></textarea>
  <div><button type="submit" class="small" id="backfill-preview-button" data-action="backfill-preview">Preview</button>
  <button type="button" class="small primary" id="backfill-confirm" data-action="backfill-confirm" hidden>Confirm backfill</button></div>
  <div id="backfill-status" role="status"></div>
  <div id="backfill-preview" aria-live="polite"></div>
</form>`;
}
