import { html, type SafeHtml } from './html.js';
import { type ZoneChoice, zoneOptions } from './time-zone.js';

/** What every page needs besides its body. */
export interface PageContext {
  /** Mount path of the dashboard (`''` at the root). */
  base: string;
  /** This request's CSRF token (for forms and the client script). */
  csrf: string;
  readOnly: boolean;
  open: boolean;
  /** The zone the times are shown in (the header's switch, from the `bb_tz` cookie). */
  zone: ZoneChoice;
  /** This page's path below the base, with its query (where the switch comes back to). */
  self: string;
}

/** The page shell: header, navigation, stylesheet and the one client script. */
export function layout(
  ctx: PageContext,
  title: string,
  current: 'schedules' | 'new' | 'fleet' | 'alerts' | 'calendars' | 'other',
  body: SafeHtml,
): string {
  const nav = (href: string, label: string, key: string) =>
    html`<a href="${ctx.base}${href}" class="${current === key ? 'current' : ''}">${label}</a>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${ctx.csrf}">
<title>${title} · bullbeat</title>
<link rel="stylesheet" href="${ctx.base}/assets/style.css">
</head>
<body data-base="${ctx.base}">
<header class="top">
  <a class="brand" href="${ctx.base}/">bullbeat</a>
  <nav>
    ${nav('/', 'Schedules', 'schedules')}
    ${ctx.readOnly ? '' : nav('/new', 'New schedule', 'new')}
    ${nav('/fleet', 'Fleet', 'fleet')}
    ${nav('/alerts', 'Alerts', 'alerts')}
    ${nav('/agenda', 'Agenda', 'agenda')}
    ${nav('/calendars', 'Calendars', 'calendars')}
    <a href="${ctx.base}/admin/queues">Queues (Bull Board)</a>
    <a href="${ctx.base}/metrics">Metrics</a>
  </nav>
  ${zoneSwitch(ctx)}
  <span class="mode">${ctx.readOnly ? 'read-only' : ''}${ctx.open ? ' · open (no auth, 127.0.0.1 only)' : ''}</span>
</header>
<main>
${body}
</main>
<script src="${ctx.base}/assets/app.js" defer></script>
</body>
</html>`.value;
}

/**
 * The time-zone switch: a GET form, so it works without JavaScript (a button sends it); the client
 * script adds the viewer's own zone as an option and sends the form on change.
 */
function zoneSwitch(ctx: PageContext): SafeHtml {
  return html`<form method="get" action="${ctx.base}/time-zone" class="zone-switch" id="zone-switch">
    <label>Times in <select name="tz" aria-label="Time zone of the times shown" data-zone-select>${zoneOptions(
      ctx.zone,
    ).map(
      (o) => html`<option value="${o.value}"${o.selected ? ' selected' : ''}>${o.label}</option>`,
    )}</select></label>
    <input type="hidden" name="back" value="${ctx.base}${ctx.self}">
    <button type="submit" class="small" data-zone-apply>Set</button>
  </form>`;
}

/** A hidden CSRF field for a form. */
export function csrfField(ctx: PageContext): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${ctx.csrf}">`;
}
