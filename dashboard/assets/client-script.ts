/**
 * The dashboard's one client script, served at `/assets/app.js`: confirmations, the new-schedule
 * form (live validation through `/api/preview`, submit through `/api/schedules`) and the runs chart.
 * Plain ES2020 for the browser; it builds DOM with textContent only, never innerHTML.
 */
export const CLIENT_JS = `'use strict';
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
    function previewQuery(t) {
      var q = new URLSearchParams({ n: '5' });
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
      var queue = form.elements.namedItem('queue').value.trim();
      if (queue) body.queue = queue;
      var id = form.elements.namedItem('id').value.trim();
      if (id) body.id = id;
      var data = form.elements.namedItem('data').value.trim();
      if (data) {
        try { body.data = JSON.parse(data); } catch (err) { status.className = 'flash bad'; status.textContent = 'data: not valid JSON'; return; }
      }
      fetch(base + '/api/schedules', {
        method: 'POST', credentials: 'same-origin',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify(body),
      })
        .then(function (r) { return r.json().then(function (b) { return { ok: r.ok, body: b }; }); })
        .then(function (res) {
          if (!res.ok) { status.className = 'flash bad'; status.textContent = res.body.error || 'failed'; return; }
          window.location.href = base + '/schedules/' + encodeURIComponent(res.body.id) + '?created=1';
        });
    });
  }

  // Runs chart: lateness and duration over time, coloured by outcome.
  var chart = document.getElementById('runs-chart');
  var dataNode = document.getElementById('runs-data');
  if (chart && dataNode) {
    var runs = JSON.parse(dataNode.textContent || '[]');
    var colours = { succeeded: '#2b8a3e', failed: '#c92a2a', retrying: '#e67700', running: '#3b5bdb',
      enqueued: '#748ffc', skipped: '#adb5bd', missed: '#495057' };
    var NS = 'http://www.w3.org/2000/svg';
    function svgEl(tag, attrs, text) {
      var n = document.createElementNS(NS, tag);
      Object.keys(attrs).forEach(function (k) { n.setAttribute(k, String(attrs[k])); });
      if (text !== undefined) n.textContent = text;
      return n;
    }
    function fmt(ms) { return ms < 10 ? Number(ms.toFixed(1)) + ' ms' : ms < 1000 ? Math.round(ms) + ' ms' : (ms / 1000).toFixed(ms < 10000 ? 1 : 0) + ' s'; }
    function panel(title, key, top, svg, W, H, x) {
      var pts = runs.filter(function (r) { return typeof r[key] === 'number'; });
      var max = Math.max(1, Math.max.apply(null, pts.map(function (r) { return r[key]; }).concat([0])));
      var left = 60, right = W - 12, bottom = top + H;
      svg.appendChild(svgEl('text', { x: 4, y: top - 6, 'font-size': 12, fill: '#667085' }, title));
      svg.appendChild(svgEl('line', { x1: left, y1: bottom, x2: right, y2: bottom, stroke: '#d0d5dd' }));
      svg.appendChild(svgEl('line', { x1: left, y1: top, x2: left, y2: bottom, stroke: '#d0d5dd' }));
      [0, 0.5, 1].forEach(function (f) {
        var y = bottom - f * H;
        svg.appendChild(svgEl('text', { x: left - 6, y: y + 4, 'font-size': 10, fill: '#98a2b3', 'text-anchor': 'end' }, fmt(max * f)));
        if (f > 0) svg.appendChild(svgEl('line', { x1: left, y1: y, x2: right, y2: y, stroke: '#f2f4f7' }));
      });
      pts.forEach(function (r) {
        var c = svgEl('circle', { cx: x(r.fireAt), cy: bottom - (r[key] / max) * H, r: 4, fill: colours[r.outcome] || '#868e96', 'data-outcome': r.outcome });
        c.appendChild(svgEl('title', {}, iso(r.fireAt) + ' — ' + r.outcome + ' — ' + title.toLowerCase() + ' ' + fmt(r[key])));
        svg.appendChild(c);
      });
      if (pts.length === 0) svg.appendChild(svgEl('text', { x: (left + right) / 2, y: top + H / 2, 'font-size': 12, fill: '#98a2b3', 'text-anchor': 'middle' }, 'no data yet'));
    }
    var W = 760, H = 110;
    var svg = svgEl('svg', { viewBox: '0 0 ' + W + ' ' + (2 * H + 70), role: 'img', 'aria-label': 'Recent runs: lateness and duration' });
    var times = runs.map(function (r) { return r.fireAt; });
    var t0 = Math.min.apply(null, times.concat([Date.now()])), t1 = Math.max.apply(null, times.concat([t0 + 1]));
    var x = function (t) { return 60 + ((t - t0) / Math.max(1, t1 - t0)) * (W - 84) + 6; };
    panel('Lateness', 'lateness', 20, svg, W, H, x);
    panel('Duration', 'duration', H + 55, svg, W, H, x);
    chart.appendChild(svg);
    var legend = el('div', { class: 'legend' });
    Object.keys(colours).forEach(function (k) {
      var item = el('span');
      var dot = el('i');
      dot.style.background = colours[k];
      item.appendChild(dot);
      item.appendChild(document.createTextNode(k));
      legend.appendChild(item);
    });
    chart.appendChild(legend);
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
`;
