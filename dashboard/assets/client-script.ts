import { BACKFILL_JS } from './backfill-script.js';
import { RUNS_CHART_JS } from './runs-chart-script.js';
import { ZONE_SWITCH_JS } from './zone-switch-script.js';

/**
 * The dashboard's one client script, served at `/assets/app.js`: confirmations, the new-schedule
 * form (live validation through `/api/preview`, submit through `/api/schedules`), then the time-zone
 * switch (`zone-switch-script.ts`) and the runs chart (`runs-chart-script.ts`).
 * Plain ES2020 for the browser; it builds DOM with textContent only, never innerHTML.
 */
export const CLIENT_JS =
  `'use strict';
(function () {
  var base = document.body.getAttribute('data-base') || '';
  var csrfMeta = document.querySelector('meta[name="csrf-token"]');
  var csrf = csrfMeta ? csrfMeta.getAttribute('content') : '';

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function local(ms, zone) {
    try {
      return new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short', year: 'numeric', month: '2-digit',
        day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).format(ms) + ' ' + zone;
    } catch (e) { return ''; }
  }
  function iso(ms) { return new Date(ms).toISOString().replace('T', ' ').replace(/\\.\\d{3}Z$/, ' UTC'); }

  // Confirmations (remove).
  document.querySelectorAll('form[data-confirm]').forEach(function (form) {
    form.addEventListener('submit', function (e) {
      if (!window.confirm(form.getAttribute('data-confirm'))) e.preventDefault();
    });
  });

  // New schedule form.
  var form = document.getElementById('create-form');
  if (form) {
    var preview = document.getElementById('preview');
    var typeSelect = form.elements.namedItem('type');
    function showType() {
      var type = typeSelect.value;
      form.querySelectorAll('[data-for]').forEach(function (row) {
        row.hidden = row.getAttribute('data-for').split(' ').indexOf(type) < 0;
      });
    }
    function trigger() {
      var type = typeSelect.value;
      var tz = form.elements.namedItem('timezone').value.trim() || 'UTC';
      if (type === 'cron') return { type: 'cron', expression: form.elements.namedItem('expression').value, timezone: tz };
      if (type === 'interval') return { type: 'interval', seconds: Number(form.elements.namedItem('seconds').value) };
      return { type: 'date', at: form.elements.namedItem('at').value, timezone: tz };
    }
    function exceptions() {
      return form.elements.namedItem('except').value.split('\\n').map(function (l) { return l.trim(); })
        .filter(function (l) { return l !== ''; });
    }
    function previewQuery(t) {
      var q = new URLSearchParams({ n: '5' });
      var ex = exceptions();
      if (ex.length > 0) q.set('except', ex.join('\\n'));
      if (t.type === 'cron') { q.set('cron', t.expression); q.set('tz', t.timezone); }
      else if (t.type === 'interval') q.set('interval', String(t.seconds));
      else { q.set('date', t.at); q.set('tz', t.timezone); }
      return q.toString();
    }
    var seq = 0;
    var timer = null;
    function refresh() {
      var mine = ++seq;
      fetch(base + '/api/preview?' + previewQuery(trigger()), { headers: { accept: 'application/json' }, credentials: 'same-origin' })
        .then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); })
        .then(function (res) {
          if (mine !== seq) return;
          preview.replaceChildren();
          if (!res.ok) {
            preview.className = 'preview invalid';
            preview.setAttribute('data-state', 'invalid');
            preview.appendChild(el('b', null, 'Not valid: '));
            preview.appendChild(el('span', { 'data-error': '' }, res.body.reason || res.body.error || 'invalid'));
            return;
          }
          preview.className = 'preview';
          preview.setAttribute('data-state', 'valid');
          preview.appendChild(el('div', { 'data-description': '' }, res.body.description));
          if (res.body.next.length === 0) { preview.appendChild(el('p', { class: 'muted' }, 'It would never fire again.')); return; }
          preview.appendChild(el('div', { class: 'muted' }, 'Next fire times:'));
          var ol = el('ol');
          var zone = trigger().timezone;
          res.body.next.forEach(function (t) {
            var li = el('li', null, iso(t));
            if (zone && zone !== 'UTC') li.appendChild(el('span', { class: 'local' }, ' · ' + local(t, zone)));
            ol.appendChild(li);
          });
          preview.appendChild(ol);
        })
        .catch(function () {});
    }
    function schedule() { clearTimeout(timer); timer = setTimeout(refresh, 200); }
    typeSelect.addEventListener('change', function () { showType(); schedule(); });
    form.addEventListener('input', schedule);
    showType();
    refresh();
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var status = document.getElementById('create-status');
      var body = { name: form.elements.namedItem('name').value.trim(), trigger: trigger() };
      if (exceptions().length > 0) body.except = exceptions();
      var queue = form.elements.namedItem('queue').value.trim();
      if (queue) body.queue = queue;
      var id = form.elements.namedItem('id').value.trim();
      if (id) body.id = id;
      var immediately = form.elements.namedItem('immediately');
      if (immediately && immediately.checked) body.immediately = true;
      var data = form.elements.namedItem('data').value.trim();
      if (data) {
        try { body.data = JSON.parse(data); } catch (err) { status.className = 'flash bad'; status.textContent = 'data: not valid JSON'; return; }
      }
      var editId = form.getAttribute('data-edit-id');
      if (editId) delete body.id;
      fetch(base + '/api/schedules' + (editId ? '/' + encodeURIComponent(editId) : ''), {
        method: editId ? 'PATCH' : 'POST', credentials: 'same-origin',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify(body),
      })
        .then(function (r) { return r.json().then(function (b) { return { ok: r.ok, body: b }; }); })
        .then(function (res) {
          if (!res.ok) { status.className = 'flash bad'; status.textContent = res.body.error || 'failed'; return; }
          window.location.href = base + '/schedules/' + encodeURIComponent(res.body.id) + (editId ? '?updated=1' : '?created=1');
        });
    });
  }

  // New schedule form: warn when no live worker serves the job name on the queue (fleet registry).
  var servedWarning = document.getElementById('served-warning');
  if (form && servedWarning) {
    var served = JSON.parse(form.getAttribute('data-served') || '{}');
    var defaultQueue = form.getAttribute('data-default-queue') || '';
    function checkServed() {
      var name = form.elements.namedItem('name').value.trim();
      var queue = form.elements.namedItem('queue').value.trim() || defaultQueue;
      var names = served[queue] || [];
      var unserved = name !== '' && names.indexOf(name) < 0;
      servedWarning.hidden = !unserved;
      servedWarning.textContent = unserved
        ? 'No live worker serves job "' + name + '" on queue "' + queue + '": its runs would wait in the queue until one does.'
        : '';
    }
    form.elements.namedItem('name').addEventListener('input', checkServed);
    form.elements.namedItem('queue').addEventListener('input', checkServed);
    checkServed();
  }
})();
` +
  ZONE_SWITCH_JS +
  RUNS_CHART_JS +
  BACKFILL_JS;
