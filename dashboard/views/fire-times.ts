import { formatInZone, html, type SafeHtml } from './html.js';

/**
 * Next fire times as a two-column grid, one time per line: the schedule's zone (UTC for a trigger
 * without one), rendered here, and the viewer's local time, which the client script fills in
 * (`data-local`; it drops the column when the viewer's zone is the schedule's). Seconds are shown
 * only when some time has them.
 */
export function fireTimes(times: readonly number[], zone: string | null): SafeHtml {
  if (times.length === 0) return html`—`;
  const z = zone ?? 'UTC';
  const seconds = times.some((t) => t % 60_000 !== 0);
  const show = (t: number) => {
    const s = formatInZone(t, z);
    return seconds ? s : s.replace(/:\d\d$/, '');
  };
  return html`<div class="fire-times" data-fire-times data-zone="${z}" data-seconds="${seconds ? '1' : ''}">
<span class="head">${z}</span><span class="head" data-local-head></span>
${times.map((t) => html`<time datetime="${new Date(t).toISOString()}" data-ms="${t}">${show(t)}</time><span data-local></span>`)}
</div>`;
}
