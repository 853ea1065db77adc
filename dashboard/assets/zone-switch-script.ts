/**
 * Part of `/assets/app.js`: the header's time-zone switch (views/layout.ts). The server cannot know
 * the viewer's zone, so this adds it as an option (`local:<IANA zone>`, kept in the `bb_tz` cookie
 * by `GET /time-zone`), and sends the form as soon as a zone is picked (its Set button is for
 * browsers without JavaScript). Plain ES2020, textContent only.
 */
export const ZONE_SWITCH_JS = `
(function () {
  var form = document.getElementById('zone-switch');
  if (!form) return;
  var select = form.querySelector('[data-zone-select]');
  var viewer = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (select && viewer) {
    var value = 'local:' + viewer;
    var mine = select.querySelector('option[value="' + value.replace(/"/g, '') + '"]');
    // a zone chosen earlier that is not this browser's today (travel) stays as it is, beside this one
    if (!mine) {
      mine = document.createElement('option');
      mine.value = value;
      select.appendChild(mine);
    }
    mine.textContent = 'your zone (' + viewer + ')';
    mine.setAttribute('data-zone-local', viewer);
  }
  var apply = form.querySelector('[data-zone-apply]');
  if (apply) apply.hidden = true;
  if (select) select.addEventListener('change', function () { form.submit(); });
})();
`;
