/**
 * Part of `/assets/app.js`: fills the viewer's local time beside each fire time that the server
 * rendered in the schedule's zone (`fireTimes()` in views/fire-times.ts), or drops that column when
 * the viewer's zone is the schedule's. Plain ES2020, textContent only.
 */
export const LOCAL_TIMES_JS = `
(function () {
  var viewer = Intl.DateTimeFormat().resolvedOptions().timeZone;
  var DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  function pad(n) { return String(n).padStart(2, '0'); }
  function wall(ms, seconds) {
    var d = new Date(ms);
    return DAYS[d.getDay()] + ' ' + d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' ' +
      pad(d.getHours()) + ':' + pad(d.getMinutes()) + (seconds ? ':' + pad(d.getSeconds()) : '');
  }
  document.querySelectorAll('[data-fire-times]').forEach(function (box) {
    var zone = box.getAttribute('data-zone');
    var head = box.querySelector('[data-local-head]');
    if (!viewer || viewer === zone) {
      box.classList.add('one');
      if (head) head.remove();
      box.querySelectorAll('[data-local]').forEach(function (n) { n.remove(); });
      var own = box.querySelector('.head');
      if (own && viewer) own.textContent = zone + ' (your zone)';
      return;
    }
    if (head) { head.textContent = viewer; head.title = 'your local time'; }
    var seconds = box.getAttribute('data-seconds') === '1';
    box.querySelectorAll('time[data-ms]').forEach(function (t) {
      var local = t.nextElementSibling;
      if (local && local.hasAttribute('data-local')) local.textContent = wall(Number(t.getAttribute('data-ms')), seconds);
    });
  });
})();
`;
