import type { ScheduleView } from '../schedule-view.js';
import { html } from './html.js';
import { layout, type PageContext } from './layout.js';

/** `/new`: the new-schedule form; the client script validates as you type and submits to the API. */
export function newSchedulePage(
  ctx: PageContext,
  timezones: readonly string[],
  defaultQueue: string,
  /** Queue → job names a live worker has a handler for (the fleet registry): the form warns about others. */
  served: Readonly<Record<string, readonly string[]>> = {},
  /** Edit mode (`/schedules/:id/edit`): the form is filled from this runtime schedule and PATCHes it. */
  edit?: ScheduleView,
): string {
  const v = editValues(edit);
  const body = html`
<p><a href="${ctx.base}/">← all schedules</a></p>
<h1>${edit ? html`Edit <span class="name">${edit.name}</span>` : 'New schedule'}</h1>
<div class="layout-2">
  <form id="create-form" class="create panel" autocomplete="off" data-served="${JSON.stringify(served)}" data-default-queue="${defaultQueue}"${edit ? html` data-edit-id="${edit.id}"` : ''}>
    <label for="f-name">Job name</label>
    <div><input id="f-name" name="name" required placeholder="send-report" style="width:100%" value="${v.name}">
      <div class="hint">The BullMQ job name: a handler registered under it in the workers (or any consumer of the queue) runs it.</div>
      <div id="served-warning" class="hint served-warning" role="status" hidden></div></div>
    <label for="f-queue">Queue</label>
    <input id="f-queue" name="queue" placeholder="${defaultQueue}" value="${v.queue}">
    <label for="f-id">Id</label>
    <div><input id="f-id" name="id" placeholder="defaults to the job name" value="${v.id}"${edit ? html` disabled` : ''}><div class="hint">${edit ? 'The id cannot change.' : 'Unique; a schedule with this id is replaced.'}</div></div>
    <label for="f-type">Trigger</label>
    <select id="f-type" name="type">
      <option value="cron"${v.type === 'cron' ? html` selected` : ''}>cron expression</option>
      <option value="interval"${v.type === 'interval' ? html` selected` : ''}>interval</option>
      <option value="date"${v.type === 'date' ? html` selected` : ''}>once, at a date</option>
    </select>
    <label for="f-expression" data-for="cron">Expression</label>
    <div data-for="cron"><input id="f-expression" name="expression" value="${v.expression}" style="width:100%;font-family:monospace">
      <div class="hint">5 fields (minute hour day-of-month month day-of-week) or 6 with leading seconds; @daily, @hourly, ...</div></div>
    <label for="f-seconds" data-for="interval">Every (seconds)</label>
    <input id="f-seconds" data-for="interval" name="seconds" type="number" min="0.001" step="any" value="${v.seconds}">
    <label for="f-at" data-for="date">At</label>
    <input id="f-at" data-for="date" name="at" type="datetime-local" step="1" value="${v.at}">
    <label for="f-timezone" data-for="cron date">Time zone</label>
    <div data-for="cron date"><input id="f-timezone" name="timezone" list="timezones" value="${v.timezone}"><datalist id="timezones">${timezones.map((z) => html`<option value="${z}">`)}</datalist></div>
    <label for="f-except">Except</label>
    <div><textarea id="f-except" name="except" rows="2" placeholder="2026-12-25&#10;* * * * 0,6" style="width:100%;font-family:monospace"></textarea>
      <div class="hint">Optional, one per line: a date (2026-12-25), a range (2026-12-24..2026-12-26) or a cron expression (matched to the minute), in the time zone above. The schedule does not fire then.</div></div>
    <label for="f-data">Job data (JSON)</label>
    <textarea id="f-data" name="data" rows="3" placeholder='{"report": "daily"}'>${v.data}</textarea>
    ${
      edit
        ? ''
        : html`<label for="f-immediately">Run now too</label>
    <div><label><input id="f-immediately" name="immediately" type="checkbox"> fire once now, when created, then follow the trigger</label></div>`
    }
    <div class="full"><button type="submit" class="primary" id="create-submit">${edit ? 'Save changes' : 'Create schedule'}</button> <span id="create-status" role="status"></span></div>
  </form>
  <aside>
    <h2>Preview</h2>
    <div id="preview" class="preview" aria-live="polite"><span class="muted">Type an expression…</span></div>
  </aside>
</div>`;
  return layout(ctx, edit ? `Edit ${edit.name}` : 'New schedule', edit ? 'other' : 'new', body);
}

/** Whether the edit form can show a schedule's trigger (a cron, interval or date one). */
export function editable(s: ScheduleView): boolean {
  return s.source === 'runtime' && ['cron', 'interval', 'date'].includes(s.definition.trigger.type);
}

/** The form's initial values: a new schedule's defaults, or the schedule being edited. */
function editValues(s: ScheduleView | undefined) {
  const out = {
    name: '',
    queue: '',
    id: '',
    type: 'cron',
    expression: '0 9 * * 1-5',
    seconds: '300',
    at: '',
    timezone: 'UTC',
    data: '',
  };
  if (!s) return out;
  const t = s.definition.trigger as {
    type: string;
    expression?: string;
    seconds?: number;
    at?: number;
    timezone?: string;
  };
  return {
    ...out,
    name: s.name,
    queue: s.queue,
    id: s.id,
    type: t.type,
    ...(t.expression !== undefined && { expression: t.expression }),
    ...(t.seconds !== undefined && { seconds: String(t.seconds) }),
    ...(t.at !== undefined && { at: new Date(t.at).toISOString().slice(0, 19) }),
    ...(t.timezone !== undefined && { timezone: t.timezone }),
    data: s.definition.data === undefined ? '' : JSON.stringify(s.definition.data),
  };
}
