/**
 * The schedule page's backfill panel (`views/backfill-panel.ts`): Preview posts a dry run to
 * `/api/schedules/:id/backfill` and lists each occurrence (UTC, the schedule's zone, what would become
 * of it); Confirm posts the same range for real and says how many are being enqueued. The optional data
 * field (JSON) is parsed in the page first: what does not parse is refused there, naming the field,
 * and nothing is sent; what parses goes with both posts as the backfill's `data`. Plain ES2020,
 * DOM built with textContent only. Appended to the one client script (`client-script.ts`).
 */
export const BACKFILL_JS = `
(function () {
  var form = document.getElementById('backfill-form');
  if (!form) return;
  var base = document.body.getAttribute('data-base') || '';
  var csrfMeta = document.querySelector('meta[name="csrf-token"]');
  var csrf = csrfMeta ? csrfMeta.getAttribute('content') : '';
  var id = form.getAttribute('data-id');
  var zone = form.getAttribute('data-timezone') || 'UTC';
  var status = document.getElementById('backfill-status');
  var list = document.getElementById('backfill-preview');
  var confirmButton = document.getElementById('backfill-confirm');
  var WORDS = { 'to-enqueue': 'to enqueue', enqueued: 'enqueued', ran: 'already ran', backfilled: 'already backfilled',
    scheduled: 'the schedule fires it', future: 'in the future' };
  var previewed = null;
  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function local(ms) {
    try {
      return new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short', year: 'numeric', month: '2-digit',
        day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).format(ms) + ' ' + zone;
    } catch (e) { return ''; }
  }
  function utc(value) { return value ? (value.length === 16 ? value + ':00' : value) + 'Z' : value; }
  function say(ok, text) { status.className = ok ? 'flash ok' : 'flash bad'; status.textContent = text; }
  function post(body) {
    return fetch(base + '/api/schedules/' + encodeURIComponent(id) + '/backfill', {
      method: 'POST', credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrf },
      body: JSON.stringify(body),
    }).then(function (r) { return r.json().then(function (b) { return { ok: r.ok, body: b }; }); });
  }
  var dataField = document.getElementById('bf-data');
  function range() {
    return { from: utc(form.elements.namedItem('from').value), to: utc(form.elements.namedItem('to').value) };
  }
  // the data field: undefined when empty, { data } when it parses, { error } naming the field when not
  function dataOf() {
    var text = dataField ? dataField.value.trim() : '';
    if (text === '') return {};
    try { return { data: JSON.parse(text) }; } catch (e) { return { error: 'data: must be JSON (' + e.message + ')' }; }
  }
  form.addEventListener('input', function () { previewed = null; confirmButton.hidden = true; });
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    var body = range();
    body.dryRun = true;
    confirmButton.hidden = true;
    list.replaceChildren();
    var given = dataOf();
    if (dataField) dataField.setAttribute('aria-invalid', given.error ? 'true' : 'false');
    if (given.error) { previewed = null; say(false, given.error); return; }
    if ('data' in given) body.data = given.data;
    post(body).then(function (res) {
      if (!res.ok) { previewed = null; say(false, res.body.error || 'failed'); return; }
      var r = res.body;
      previewed = { from: body.from, to: body.to };
      if ('data' in given) previewed.data = given.data;
      say(true, r.occurrences.length + ' occurrence(s) in the range: ' + r.enqueued + ' to enqueue, ' + r.skipped + ' not to run.');
      if (r.occurrences.length > 0) {
        var table = el('table', { id: 'backfill-list' });
        var head = el('tr');
        ['Fire time (UTC)', 'In ' + zone, 'What happens'].forEach(function (h) { head.appendChild(el('th', null, h)); });
        table.appendChild(el('thead')).appendChild(head);
        var tbody = el('tbody');
        r.occurrences.forEach(function (o) {
          var tr = el('tr', { 'data-status': o.status, 'data-fire-at': String(o.fireAt) });
          tr.appendChild(el('td', null, new Date(o.fireAt).toISOString()));
          tr.appendChild(el('td', null, local(o.fireAt)));
          tr.appendChild(el('td', null, WORDS[o.status] || o.status));
          tbody.appendChild(tr);
        });
        table.appendChild(tbody);
        list.appendChild(table);
      }
      confirmButton.hidden = r.enqueued === 0;
      confirmButton.textContent = 'Confirm: enqueue ' + r.enqueued;
    }).catch(function () { say(false, 'the preview failed'); });
  });
  confirmButton.addEventListener('click', function () {
    if (!previewed) return;
    confirmButton.hidden = true;
    post(previewed).then(function (res) {
      if (!res.ok) { say(false, res.body.error || 'failed'); return; }
      var overridden = 'data' in previewed ? ', each with its data overridden' : '';
      say(true, 'Backfill started: ' + res.body.enqueued + ' occurrence(s) being enqueued (kind backfill' + overridden + '); ' + res.body.skipped + ' not run.');
      list.querySelectorAll('tr[data-status="to-enqueue"]').forEach(function (tr) {
        tr.setAttribute('data-status', 'enqueued');
        tr.lastChild.textContent = 'enqueued';
      });
      previewed = null;
    }).catch(function () { say(false, 'the backfill failed'); });
  });
})();
`;
