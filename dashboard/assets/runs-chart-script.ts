/**
 * The runs chart of a schedule's page (part of `/assets/app.js`): lateness and duration of recent
 * runs against their fire time, as inline SVG. Each panel has its unit (ms, s or min, from its
 * largest value) in its title above the plot, a time axis in the zone the page shows its times in
 * (`data-zone`, chosen with the header's switch), and a tooltip
 * with the run's time, outcome and values on hover or keyboard focus. Plain ES2020, DOM built with
 * textContent only.
 */
export const RUNS_CHART_JS = `
(function () {
  var chart = document.getElementById('runs-chart');
  var dataNode = document.getElementById('runs-data');
  if (!chart || !dataNode) return;
  var runs = JSON.parse(dataNode.textContent || '[]');
  var colours = { succeeded: '#2b8a3e', failed: '#c92a2a', retrying: '#e67700', running: '#3b5bdb',
    enqueued: '#748ffc', skipped: '#adb5bd', missed: '#495057' };
  var NS = 'http://www.w3.org/2000/svg';
  var zone = chart.getAttribute('data-zone') || 'UTC';
  var partsFormat;
  try {
    partsFormat = new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short', year: 'numeric',
      month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
  } catch (e) {
    zone = 'UTC';
    partsFormat = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', weekday: 'short', year: 'numeric',
      month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
  }
  var SEC = 1000, MIN = 60 * SEC, HOUR = 60 * MIN, DAY = 24 * HOUR;
  // drawn at the panel's own width (not scaled), so labels keep their size in a narrow window
  var W = Math.max(420, Math.round(chart.clientWidth - 36) || 760), LEFT = 64, RIGHT = W - 16, H = 110;

  function svgEl(tag, attrs, text) {
    var n = document.createElementNS(NS, tag);
    Object.keys(attrs).forEach(function (k) { n.setAttribute(k, String(attrs[k])); });
    if (text !== undefined) n.textContent = text;
    return n;
  }
  // wall-clock parts of an instant in the page's zone
  function parts(t) {
    var o = {};
    partsFormat.formatToParts(t).forEach(function (p) { o[p.type] = p.value; });
    return o;
  }
  // the zone's offset from UTC at an instant (ms)
  function offsetAt(t) {
    var p = parts(t);
    return Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second) - Math.floor(t / 1000) * 1000;
  }
  function hm(t) { var p = parts(t); return p.hour + ':' + p.minute; }
  function hms(t) { var p = parts(t); return p.hour + ':' + p.minute + ':' + p.second; }
  function day(t) { var p = parts(t); return p.weekday + ' ' + p.month + '-' + p.day; }
  function wall(t) {
    var p = parts(t);
    return p.weekday + ' ' + p.year + '-' + p.month + '-' + p.day + ' ' + p.hour + ':' + p.minute + ':' + p.second;
  }
  function fmt(ms) {
    var a = Math.abs(ms);
    return a < 10 ? Number(ms.toFixed(1)) + ' ms' : a < 1000 ? Math.round(ms) + ' ms'
      : a < 60000 ? Number((ms / 1000).toFixed(a < 10000 ? 2 : 1)) + ' s' : Number((ms / 60000).toFixed(1)) + ' min';
  }
  function niceStep(range, count) {
    var raw = range / count, p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }
  function num(v) { return String(Number(v.toPrecision(6))); }

  // The time scale: every run's fire time, padded; at least a minute wide.
  var times = runs.map(function (r) { return r.fireAt; });
  var t1 = times.length ? Math.max.apply(null, times) : Date.now();
  var t0 = times.length ? Math.min.apply(null, times) : t1 - HOUR;
  if (t1 - t0 < MIN) { var mid = (t0 + t1) / 2; t0 = mid - MIN / 2; t1 = mid + MIN / 2; }
  var padT = (t1 - t0) * 0.04;
  t0 -= padT; t1 += padT;
  function x(t) { return LEFT + ((t - t0) / (t1 - t0)) * (RIGHT - LEFT); }

  // Time ticks at round wall times of the zone, at most about 6.
  var STEPS = [SEC, 2 * SEC, 5 * SEC, 10 * SEC, 15 * SEC, 30 * SEC, MIN, 2 * MIN, 5 * MIN, 10 * MIN, 15 * MIN,
    30 * MIN, HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY, 14 * DAY, 28 * DAY, 91 * DAY];
  var step = STEPS.filter(function (s) { return (t1 - t0) / s <= 6; })[0] || STEPS[STEPS.length - 1];
  var ticks = [];
  var off = offsetAt(t0);
  // steps under a day divide it: wall multiples of the step are round; longer ones start at midnight
  var w0 = Math.ceil((t0 + off) / Math.min(step, DAY)) * Math.min(step, DAY);
  for (var w = w0; w - off <= t1; w += step) ticks.push(w - off);

  var svg = svgEl('svg', { viewBox: '0 0 ' + W + ' 330', role: 'img', 'aria-label': 'Recent runs: lateness and duration by fire time' });
  var tip = document.createElement('div');
  tip.className = 'tip';
  tip.setAttribute('data-tooltip', '');
  tip.setAttribute('role', 'status');
  tip.hidden = true;

  function show(r, dot) {
    tip.replaceChildren();
    [wall(r.fireAt) + ' ' + zone, r.outcome + (r.kind && r.kind !== 'scheduled' ? ' · ' + r.kind : ''),
      'lateness ' + (typeof r.lateness === 'number' ? fmt(r.lateness) : '—') + ' · duration ' +
      (typeof r.duration === 'number' ? fmt(r.duration) : '—')].forEach(function (line) {
      var div = document.createElement('div');
      div.textContent = line;
      tip.appendChild(div);
    });
    tip.hidden = false;
    var box = chart.getBoundingClientRect(), d = dot.getBoundingClientRect();
    var left = d.right - box.left + 8, top = d.top - box.top - 8;
    if (left + tip.offsetWidth > box.width) left = d.left - box.left - tip.offsetWidth - 8;
    tip.style.left = Math.max(0, left) + 'px';
    tip.style.top = Math.max(0, top) + 'px';
  }
  function hide() { tip.hidden = true; }

  function panel(title, key, top) {
    var bottom = top + H;
    var pts = runs.filter(function (r) { return typeof r[key] === 'number'; });
    var vals = pts.map(function (r) { return r[key]; }).concat([0]);
    var lo = Math.min.apply(null, vals), hi = Math.max.apply(null, vals);
    var big = Math.max(Math.abs(lo), Math.abs(hi));
    var unit = big >= MIN ? ['min', MIN] : big >= SEC ? ['s', SEC] : ['ms', 1];
    var ystep = niceStep(Math.max((hi - lo) / unit[1], 1), 4);
    var yLo = Math.floor(lo / unit[1] / ystep) * ystep, yHi = Math.ceil(hi / unit[1] / ystep) * ystep;
    if (yHi <= yLo) yHi = yLo + ystep;
    function y(v) { return bottom - ((v / unit[1] - yLo) / (yHi - yLo)) * H; }
    svg.appendChild(svgEl('text', { x: LEFT, y: top - 12, 'font-size': 12, fill: '#667085', 'data-panel-title': '' },
      title + ' (' + unit[0] + ')'));
    ticks.forEach(function (t) {
      svg.appendChild(svgEl('line', { x1: x(t), y1: top, x2: x(t), y2: bottom, stroke: '#f2f4f7' }));
    });
    for (var v = yLo; v <= yHi + ystep / 2; v += ystep) {
      var yy = bottom - ((v - yLo) / (yHi - yLo)) * H;
      svg.appendChild(svgEl('text', { x: LEFT - 8, y: yy + 4, 'font-size': 10, fill: '#98a2b3', 'text-anchor': 'end' }, num(v)));
      svg.appendChild(svgEl('line', { x1: LEFT, y1: yy, x2: RIGHT, y2: yy, stroke: Math.abs(v) < ystep / 2 ? '#d0d5dd' : '#f2f4f7' }));
    }
    svg.appendChild(svgEl('line', { x1: LEFT, y1: top, x2: LEFT, y2: bottom, stroke: '#d0d5dd' }));
    pts.forEach(function (r) {
      var c = svgEl('circle', { cx: x(r.fireAt), cy: y(r[key]), r: 4.5, fill: colours[r.outcome] || '#868e96',
        'data-outcome': r.outcome, tabindex: 0, 'aria-label': wall(r.fireAt) + ', ' + r.outcome + ', ' + title.toLowerCase() + ' ' + fmt(r[key]) });
      c.addEventListener('mouseenter', function () { show(r, c); });
      c.addEventListener('focus', function () { show(r, c); });
      c.addEventListener('mouseleave', hide);
      c.addEventListener('blur', hide);
      svg.appendChild(c);
    });
    if (pts.length === 0) {
      svg.appendChild(svgEl('text', { x: (LEFT + RIGHT) / 2, y: top + H / 2, 'font-size': 12, fill: '#98a2b3', 'text-anchor': 'middle' }, 'no data yet'));
    }
    return bottom;
  }

  panel('Lateness', 'lateness', 24);
  var bottom = panel('Duration', 'duration', 168);
  var axis = svgEl('g', { 'data-axis': 'x' });
  axis.appendChild(svgEl('line', { x1: LEFT, y1: bottom, x2: RIGHT, y2: bottom, stroke: '#d0d5dd' }));
  var lastDay = '';
  ticks.forEach(function (t) {
    axis.appendChild(svgEl('line', { x1: x(t), y1: bottom, x2: x(t), y2: bottom + 4, stroke: '#d0d5dd' }));
    var label = step >= DAY ? day(t) : step < MIN ? hms(t) : hm(t);
    axis.appendChild(svgEl('text', { x: x(t), y: bottom + 16, 'font-size': 10, fill: '#667085', 'text-anchor': 'middle' }, label));
    // the date under the first tick and wherever the day changes
    if (step < DAY && day(t) !== lastDay) {
      axis.appendChild(svgEl('text', { x: x(t), y: bottom + 28, 'font-size': 10, fill: '#98a2b3', 'text-anchor': 'middle' }, day(t)));
    }
    lastDay = day(t);
  });
  svg.appendChild(axis);
  svg.appendChild(svgEl('text', { x: (LEFT + RIGHT) / 2, y: bottom + 46, 'font-size': 11, fill: '#667085',
    'text-anchor': 'middle', 'data-axis-caption': 'x' }, 'Fire time (' + zone + ')'));
  chart.appendChild(svg);
  chart.appendChild(tip);
  var legend = document.createElement('div');
  legend.className = 'legend';
  Object.keys(colours).forEach(function (k) {
    var item = document.createElement('span');
    var dot = document.createElement('i');
    dot.style.background = colours[k];
    item.appendChild(dot);
    item.appendChild(document.createTextNode(k));
    legend.appendChild(item);
  });
  chart.appendChild(legend);
})();
`;
