import { PAUSE_NOTE_MAX } from '../../src/store/index.js';
import type { ScheduleView } from '../schedule-view.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, type PageContext } from './layout.js';
import { labelledTime, timeAt, zoneFor } from './time-zone.js';

/**
 * Pause/resume, trigger now and remove buttons for one schedule (forms posting to the page routes).
 * `full` (the schedule's page): the pause form takes a note, the resume form a catch-up policy.
 */
export function scheduleActions(ctx: PageContext, s: ScheduleView, back: string, full = false): SafeHtml {
  if (ctx.readOnly) return html``;
  const action = (verb: string) => `${ctx.base}/schedules/${encodeURIComponent(s.id)}/${verb}`;
  const form = (verb: string, label: string, cls = '', confirm?: string, fields: SafeHtml = html``) =>
    html`<form method="post" action="${action(verb)}"${confirm ? html` data-confirm="${confirm}"` : ''}>${csrfField(ctx)}<input type="hidden" name="back" value="${back}">${fields}<button type="submit" class="small ${cls}" data-action="${verb}">${label}</button></form>`;
  const noteField = full
    ? html`<input type="text" name="note" maxlength="${PAUSE_NOTE_MAX}" placeholder="Why? (optional note)" aria-label="Pause note" data-pause-note-input> `
    : html``;
  const policyField = full
    ? html`<select name="policy" aria-label="What was due while paused" data-resume-policy title="What becomes of the occurrences due while it was paused"><option value="skip">skip missed runs</option><option value="once">run once for the missed</option><option value="all">run each missed (up to 100)</option></select> `
    : html``;
  const toggle =
    s.status === 'active'
      ? form('pause', 'Pause', '', undefined, noteField)
      : s.status === 'paused'
        ? form('resume', 'Resume', '', undefined, policyField)
        : s.status === 'errored' && s.error?.at !== null
          ? form('resume', 'Retry')
          : html``;
  const dataField = full
    ? html`<input type="text" name="data" placeholder="data for this run (JSON, optional)" aria-label="Data for this run" data-trigger-data> `
    : html``;
  return html`${toggle} ${form('trigger', 'Trigger now', '', undefined, dataField)} ${form('remove', 'Remove', 'danger', `Remove schedule "${s.name}" (${s.id})? Its history goes with it.`)}`;
}

const BADGE_TITLE: Record<ScheduleView['badges'][number], string> = {
  late: 'Its next occurrence is overdue past the misfire grace',
  failing: 'No success in its last occurrences or for several expected intervals',
  'no-worker': `Its occurrences are enqueued but no worker has started one: is a worker consuming its queue?`,
};

/** Status pill plus warning badges. */
export function statusCell(s: ScheduleView): SafeHtml {
  return html`<span class="pill ${s.status}" data-status="${s.status}">${s.status}</span>${s.orphaned ? html` <span class="pill paused" title="No running deployment defines this code schedule">orphaned</span>` : ''}${s.badges.map((b) => html` <span class="pill ${b}" data-badge="${b}" title="${BADGE_TITLE[b]}">${b === 'no-worker' ? 'no worker' : b}</span>`)}`;
}

/** A paused schedule's note, who paused it and when, or nothing. */
export function pauseNoteLine(ctx: PageContext, s: ScheduleView): SafeHtml {
  const n = s.pauseNote;
  if (!n) return html``;
  const zone = zoneFor(ctx.zone, s.timezone);
  const who = n.onBehalfOf === undefined ? n.by : `${n.by} (for ${n.onBehalfOf})`;
  return html`<div class="sub" data-pause-note title="Paused by ${who} at ${labelledTime(n.at, zone)}">${n.note === '' ? html`<span class="muted">paused</span>` : n.note} <span class="muted">— ${who}, ${timeAt(n.at, zone)}</span></div>`;
}
