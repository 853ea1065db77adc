import { html, type SafeHtml } from './html.js';
import { jitterNote, timeAt, windowAt, type ZoneChoice, zoneFor } from './time-zone.js';

/**
 * Next fire times, one a line, in the zone chosen in the header (for `schedule`, the schedule's own:
 * its trigger's, UTC for one without), each labelled with its zone. A jittered trigger's times are its
 * planned instants, each shown as the window it runs in (up to `jitterMs` later), so that the preview
 * is the same on every reload, not a random sample.
 */
export function fireTimes(
  choice: ZoneChoice,
  times: readonly number[],
  scheduleZone: string | null,
  jitterMs = 0,
): SafeHtml {
  if (times.length === 0) return html`—`;
  const zone = zoneFor(choice, scheduleZone);
  return html`<div class="fire-times" data-fire-times data-zone="${zone}">${times.map((t) =>
    jitterMs > 0 ? windowAt(t, jitterMs, zone) : timeAt(t, zone, true),
  )}${jitterMs > 0 ? jitterNote(jitterMs) : ''}</div>`;
}
