/** The dashboard's stylesheet, served at `/assets/style.css` (no external fonts or CDNs). */
export const STYLE_CSS = `
:root {
  --bg: #f6f7f9; --panel: #fff; --text: #1d2330; --muted: #667085; --line: #e4e7ec;
  --accent: #3b5bdb; --accent-soft: #edf2ff; --ok: #2b8a3e; --ok-soft: #ebfbee; --bad: #c92a2a;
  --bad-soft: #fff5f5; --warn: #b35c00; --warn-soft: #fff4e6; --idle: #868e96; --idle-soft: #f1f3f5;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  font-size: 14px; line-height: 1.45; color: var(--text); background: var(--bg);
}
* { box-sizing: border-box; }
body { margin: 0; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
header.top { display: flex; align-items: center; gap: 24px; padding: 12px 28px; background: #1d2330; color: #fff; }
header.top .brand { font-weight: 700; font-size: 16px; letter-spacing: .3px; color: #fff; }
header.top nav a { color: #cfd6e4; margin-right: 18px; }
header.top nav a.current, header.top nav a:hover { color: #fff; }
header.top .mode { margin-left: 12px; font-size: 12px; color: #ffd8a8; }
header.top .zone-switch { margin-left: auto; display: flex; align-items: center; gap: 6px; font-size: 12px; color: #cfd6e4; }
header.top .zone-switch select { font-size: 12px; padding: 2px 4px; }
main { max-width: 1320px; margin: 0 auto; padding: 22px 28px 60px; }
h1 { font-size: 22px; margin: 4px 0 16px; }
h2 { font-size: 16px; margin: 26px 0 10px; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 16px 18px; }
.stats { display: flex; gap: 12px; flex-wrap: wrap; margin-bottom: 16px; }
.stat { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 10px 16px; min-width: 120px; }
.stat b { display: block; font-size: 20px; }
.stat span { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .4px; }
.toolbar { display: flex; gap: 10px; align-items: center; margin-bottom: 12px; flex-wrap: wrap; }
.toolbar input[type=search] { width: 320px; }
input, select, textarea { font: inherit; padding: 7px 10px; border: 1px solid #cfd4dc; border-radius: 7px; background: #fff; color: var(--text); }
input:focus, select:focus, textarea:focus { outline: 2px solid var(--accent-soft); border-color: var(--accent); }
button, .button { font: inherit; padding: 6px 12px; border-radius: 7px; border: 1px solid #cfd4dc; background: #fff; color: var(--text); cursor: pointer; display: inline-block; }
button:hover, .button:hover { background: #f1f3f5; text-decoration: none; }
button.primary, .button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.primary:hover, .button.primary:hover { background: #2f4ac0; }
button.danger { color: var(--bad); border-color: #f1b0b0; }
button.danger:hover { background: var(--bad-soft); }
button.small { padding: 3px 9px; font-size: 12px; }
button:disabled { opacity: .5; cursor: not-allowed; }
button[hidden], .button[hidden] { display: none; }
form.backfill { display: grid; grid-template-columns: auto 1fr; gap: 8px 10px; align-items: center; }
form.backfill > div { grid-column: 1 / -1; }
form.backfill table { font-size: 12px; }
form.backfill textarea { font-family: ui-monospace, monospace; width: 100%; box-sizing: border-box; }
form.backfill textarea[aria-invalid="true"] { border-color: #c0392b; }
table { width: 100%; border-collapse: collapse; background: var(--panel); border: 1px solid var(--line); border-radius: 10px; overflow: hidden; }
th, td { text-align: left; padding: 9px 12px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #fafbfc; color: var(--muted); font-weight: 600; font-size: 12px; text-transform: uppercase; letter-spacing: .4px; }
tr:last-child td { border-bottom: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td .sub { color: var(--muted); font-size: 12px; }
td.times { font-size: 12px; color: var(--muted); font-variant-numeric: tabular-nums; white-space: nowrap; }
td.actions { white-space: nowrap; }
td.actions form { display: inline; }
td.error { color: var(--bad); max-width: 380px; white-space: pre-wrap; word-break: break-word; }
.name { font-weight: 600; overflow-wrap: break-word; }
.pill { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: 12px; font-weight: 600; }
.pill.active, .pill.succeeded { background: var(--ok-soft); color: var(--ok); }
.pill.paused, .pill.skipped, .pill.missed, .pill.cancelled { background: var(--idle-soft); color: var(--idle); }
.pill.completed, .pill.enqueued, .pill.running { background: var(--accent-soft); color: var(--accent); }
.pill.failed, .pill.errored { background: var(--bad-soft); color: var(--bad); }
.pill.retrying, .pill.late, .pill.failing, .pill.no-worker { background: var(--warn-soft); color: var(--warn); }
.muted { color: var(--muted); }
.pager { display: flex; gap: 10px; align-items: center; margin-top: 12px; color: var(--muted); }
.empty { padding: 30px; text-align: center; color: var(--muted); }
dl.def { display: grid; grid-template-columns: 128px 1fr; gap: 6px 16px; margin: 0; }
dl.def dt { color: var(--muted); }
dl.def dd { margin: 0; word-break: break-word; }
.changes { margin: 0; padding-left: 1.1em; }
.changes code { font-size: 12px; word-break: break-all; }
pre { background: #f8f9fb; border: 1px solid var(--line); border-radius: 7px; padding: 10px; overflow: auto; margin: 0; font-size: 12px; }
.flash { padding: 10px 14px; border-radius: 8px; margin-bottom: 14px; }
.flash.ok { background: var(--ok-soft); color: var(--ok); }
.flash.bad { background: var(--bad-soft); color: var(--bad); }
form.create { display: grid; grid-template-columns: 180px minmax(0, 520px); gap: 12px 16px; align-items: center; }
form.create label { color: var(--muted); }
form.create .full { grid-column: 1 / -1; }
#create-status:not(:empty) { display: block; margin: 10px 0 0; }
form.create input:not([type=hidden]), form.create select, form.create textarea { width: 100%; }
.preview .local { color: var(--muted); font-size: 12px; }
form.create .hint { font-size: 12px; color: var(--muted); }
form.create .served-warning { color: var(--warn); background: var(--warn-soft); padding: 2px 6px; }
.preview { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 14px 18px; min-height: 110px; }
.preview.invalid { border-color: #f1b0b0; background: var(--bad-soft); color: var(--bad); }
.preview ol { margin: 6px 0 0; padding-left: 22px; font-variant-numeric: tabular-nums; }
.layout-2 { display: grid; grid-template-columns: minmax(0, 1fr) 430px; gap: 24px; align-items: start; }
.chart { position: relative; }
.chart svg { width: 100%; height: auto; display: block; overflow: visible; }
.chart svg circle { cursor: default; }
.chart svg circle:focus { outline: none; stroke: var(--text); stroke-width: 2; }
.chart .tip { position: absolute; pointer-events: none; z-index: 2; background: #1d2330; color: #fff; font-size: 12px; line-height: 1.5; padding: 6px 10px; border-radius: 6px; white-space: nowrap; font-variant-numeric: tabular-nums; box-shadow: 0 4px 14px rgba(16, 24, 40, .18); }
.fire-times { display: grid; grid-template-columns: auto; justify-content: start; white-space: nowrap; font-variant-numeric: tabular-nums; }
td.times .fire-times time { color: var(--text); }
[data-pause-note] time, #audit td:first-child time { white-space: nowrap; }
.fire-times [data-jitter-note] { white-space: normal; }
dl.def dd:has(> .fire-times) { grid-column: 1 / -1; font-size: 13px; }
.chart .legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12px; color: var(--muted); margin-top: 6px; }
.chart .legend span { white-space: nowrap; }
.chart .legend i { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 5px; vertical-align: -1px; }
.login { max-width: 380px; margin: 80px auto; }
.login form { display: grid; gap: 10px; }
@media (max-width: 900px) { .layout-2 { grid-template-columns: 1fr; } form.create { grid-template-columns: 1fr; } }
`;
