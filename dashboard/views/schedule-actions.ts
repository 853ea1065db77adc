import type { ScheduleView } from '../schedule-view.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, type PageContext } from './layout.js';

/** Pause/resume, trigger now and remove buttons for one schedule (forms posting to the page routes). */
export function scheduleActions(ctx: PageContext, s: ScheduleView, back: string): SafeHtml {
  if (ctx.readOnly) return html``;
  const action = (verb: string) => `${ctx.base}/schedules/${encodeURIComponent(s.id)}/${verb}`;
  const form = (verb: string, label: string, cls = '', confirm?: string) =>
    html`<form method="post" action="${action(verb)}"${confirm ? html` data-confirm="${confirm}"` : ''}>${csrfField(ctx)}<input type="hidden" name="back" value="${back}"><button type="submit" class="small ${cls}" data-action="${verb}">${label}</button></form>`;
  const toggle =
    s.status === 'active'
      ? form('pause', 'Pause')
      : s.status === 'paused'
        ? form('resume', 'Resume')
        : s.status === 'errored' && s.error?.at !== null
          ? form('resume', 'Retry')
          : html``;
  return html`${toggle} ${form('trigger', 'Trigger now')} ${form('remove', 'Remove', 'danger', `Remove schedule "${s.name}" (${s.id})? Its history goes with it.`)}`;
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
