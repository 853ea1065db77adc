const PROBE_ORIGIN = 'http://bullbeat.invalid';

/** A C0 control, DEL, or a backslash (browsers read `/\host` as `//host`). */
function unsafe(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || c === 0x5c) return true;
  }
  return false;
}

/**
 * `next` (where to send a browser after signing in or after a form action) as a path of this
 * dashboard, or the dashboard's home (`${base}/`) when it is anything else. Accepted: a string that
 * starts with one `/`, has no backslash or control character (raw or percent-encoded), does not
 * start with `//` once decoded, and still lies under `base` once resolved (`..` included). The
 * resolved form is returned, so what is checked is what the browser is sent to.
 */
export function sameOriginPath(next: unknown, base: string): string {
  const home = `${base}/`;
  if (typeof next !== 'string' || next.length > 2048 || !next.startsWith('/') || next.startsWith('//')) {
    return home;
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(next);
  } catch {
    return home;
  }
  if (unsafe(next) || unsafe(decoded) || decoded.startsWith('//')) return home;
  let url: URL;
  try {
    url = new URL(next, PROBE_ORIGIN);
  } catch {
    return home;
  }
  if (url.origin !== PROBE_ORIGIN || url.pathname.startsWith('//')) return home;
  const path = `${url.pathname}${url.search}${url.hash}`;
  return path.startsWith(home) ? path : home;
}
