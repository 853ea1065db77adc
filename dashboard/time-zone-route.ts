import { Router } from 'express';
import { baseOf, cookiePathOf } from './mount-base.js';
import { strParam } from './query-params.js';
import { sameOriginPath } from './same-origin-path.js';
import { parseZoneChoice, ZONE_COOKIE, zoneChoiceText } from './views/time-zone.js';

/** A year: the choice is a preference, not a secret. */
const KEPT_MS = 365 * 24 * 3_600_000;

/**
 * `GET /time-zone?tz=<utc|schedule|local:Zone>&back=<path>`: the header's switch. Keeps the choice in
 * the `bb_tz` cookie (read by every page, see `pageContextOf`) and sends the browser back to the page
 * it came from. A GET, so it works from a plain form without JavaScript; it changes only how this
 * browser shows times.
 */
export function timeZoneRoute(): Router {
  const r = Router();
  r.get('/time-zone', (req, res) => {
    const choice = parseZoneChoice(strParam(req, 'tz'));
    res.cookie(ZONE_COOKIE, zoneChoiceText(choice), {
      path: cookiePathOf(req),
      maxAge: KEPT_MS,
      sameSite: 'lax',
      httpOnly: false,
    });
    res.redirect(303, sameOriginPath(strParam(req, 'back'), baseOf(req)));
  });
  return r;
}
