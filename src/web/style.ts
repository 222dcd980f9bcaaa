/** The page's one stylesheet (inline, under the response's nonce). Lists and wrapping rows rather than wide tables, so no width scrolls sideways. */
export const STYLE = `
:root { color-scheme: light dark; --fg: #1d2430; --muted: #4f596b; --line: #d5dae3; --bg: #f4f6f9; --card: #fff; --accent: #2351c7; --accent-bg: #eaf0fd; --bad: #b42318; --bad-bg: #fef3f2; --ok: #067647; --ok-bg: #ecfdf3; --warn-fg: #7a2e0e; --warn-bg: #fef0c7; }
@media (prefers-color-scheme: dark) { :root { --fg: #e7eaf0; --muted: #a9b2c1; --line: #364051; --bg: #11151b; --card: #1a1f27; --accent: #8fb0ff; --accent-bg: #1f2a44; --bad: #ff9b90; --bad-bg: #3a1d1b; --ok: #6ce9a6; --ok-bg: #12301f; --warn-fg: #fedf89; --warn-bg: #3d2a0a; } }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
html { scroll-padding-top: 16px; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); overflow-wrap: anywhere; }
a { color: var(--accent); }
code, .mono { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.vh { position: absolute !important; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.skip { position: absolute; left: 8px; top: -48px; z-index: 10; background: var(--card); padding: 8px 12px; border: 2px solid var(--accent); border-radius: 6px; }
.skip:focus { top: 8px; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
header.top { background: var(--card); border-bottom: 1px solid var(--line); }
.top-inner { max-width: 1100px; margin: 0 auto; padding: 14px 20px; display: flex; flex-wrap: wrap; gap: 10px 20px; align-items: center; justify-content: space-between; }
.brand { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 12px; }
header h1 { font-size: 20px; margin: 0; } .brand p { margin: 0; }
.sandbox { background: var(--warn-bg); color: var(--warn-fg); border-radius: 999px; padding: 2px 10px; font-size: 13px; font-weight: 600; }
.endpoint { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; min-width: 0; }
.endpoint label { font-weight: 600; font-size: 13px; color: var(--muted); margin: 0; }
.endpoint input { flex: 1 1 12rem; min-width: 0; max-width: 22rem; }
.endpoint .copied { font-size: 13px; color: var(--ok); }
nav.sections { max-width: 1100px; margin: 0 auto; padding: 8px 20px 0; display: flex; flex-wrap: wrap; gap: 4px 18px; font-size: 14px; }
main { max-width: 1100px; margin: 0 auto; padding: 8px 20px 48px; }
main:focus { outline: none; }
.intro { color: var(--muted); margin: 10px 0 0; max-width: 70ch; }
section.panel { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 18px; margin: 18px 0; }
@media (max-width: 520px) { .top-inner, nav.sections, main { padding-left: 12px; padding-right: 12px; } section.panel { padding: 14px 12px; } .card, .rows > li { padding: 10px; } }
h2 { font-size: 18px; margin: 0 0 4px; } h3 { font-size: 15px; margin: 18px 0 8px; }
.lead { color: var(--muted); margin: 0 0 12px; }
.muted { color: var(--muted); } .small { font-size: 13px; }
ul.rows, ol.rows { list-style: none; margin: 0; padding: 0; }
.rows > li { border: 1px solid var(--line); border-radius: 8px; padding: 12px; margin: 0 0 10px; display: grid; gap: 10px 16px; grid-template-columns: minmax(0, 1fr); }
@media (min-width: 760px) { .rows > li.split { grid-template-columns: minmax(0, 1fr) minmax(0, auto); align-items: start; } .rows > li.split > .actions { justify-content: flex-end; max-width: 30rem; } }
.title-line { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 10px; }
.title-line strong { font-size: 15px; }
.facts { display: flex; flex-wrap: wrap; gap: 2px 18px; margin: 4px 0 0; font-size: 14px; }
.facts dt { color: var(--muted); display: inline; } .facts dt::after { content: ":"; } .facts dd { display: inline; margin: 0 0 0 4px; }
.facts div { min-width: 0; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.badge { display: inline-block; padding: 0 8px; border-radius: 999px; border: 1px solid var(--line); font-size: 12px; line-height: 20px; white-space: nowrap; }
.badge.default { border-color: var(--accent); color: var(--accent); }
.badge.test { background: var(--warn-bg); color: var(--warn-fg); border-color: transparent; font-weight: 600; }
.status { font-size: 13px; font-weight: 600; }
.status-active { color: var(--ok); } .status-needs_reconnect, .status-failing { color: var(--bad); }
.notice { display: flex; gap: 12px; align-items: flex-start; justify-content: space-between; padding: 10px 12px; border-radius: 8px; margin: 12px 0; border: 1px solid var(--line); white-space: pre-wrap; }
.notice.ok { border-color: var(--ok); background: var(--ok-bg); } .notice.error { border-color: var(--bad); background: var(--bad-bg); color: var(--bad); }
.notice p { margin: 0; min-width: 0; }
.notice button { flex: none; }
.field-error { scroll-margin-top: 7rem; color: var(--bad); background: var(--bad-bg); border-left: 3px solid var(--bad); padding: 6px 10px; margin: 4px 0 8px; white-space: pre-wrap; border-radius: 0 6px 6px 0; }
[aria-invalid=true] { border-color: var(--bad) !important; box-shadow: 0 0 0 1px var(--bad); }
form { margin: 0; }
form.inline { display: inline-flex; flex-wrap: wrap; gap: 6px; align-items: center; max-width: 100%; }
.field { margin: 0 0 10px; }
.field > label, .field > .label { display: block; font-weight: 600; font-size: 14px; margin-bottom: 3px; }
.hint { display: block; color: var(--muted); font-size: 13px; margin-top: 3px; }
input[type=text], input[type=password], input[type=number], select, textarea { font: inherit; padding: 6px 8px; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); max-width: 100%; }
.field input[type=text], .field input[type=password], .field input[type=number], .field select { width: 100%; }
input[readonly] { background: var(--card); }
button, .button { font: inherit; font-size: 14px; padding: 6px 12px; min-height: 34px; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; text-decoration: none; display: inline-flex; align-items: center; gap: 4px; }
button.secondary, .button.secondary { background: transparent; color: var(--accent); }
button.danger { background: var(--bad); border-color: var(--bad); color: #fff; } button.danger.secondary { background: transparent; color: var(--bad); }
button.link { background: none; border: none; color: var(--accent); padding: 4px 6px; min-height: 0; text-decoration: underline; }
button:disabled { opacity: .55; cursor: not-allowed; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 240px), 1fr)); gap: 12px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 14px; min-width: 0; }
.card h3 { margin-top: 0; }
.or { display: flex; align-items: center; gap: 8px; color: var(--muted); font-size: 13px; margin: 12px 0 8px; }
.or::before, .or::after { content: ""; flex: 1; border-top: 1px solid var(--line); }
fieldset { border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; margin: 0 0 10px; min-width: 0; }
legend { font-weight: 600; font-size: 14px; padding: 0 4px; }
label.check { display: inline-flex; gap: 6px; align-items: center; margin: 2px 14px 2px 0; font-weight: normal; }
details > summary { cursor: pointer; font-weight: 600; color: var(--accent); padding: 4px 0; }
details[open] > summary { margin-bottom: 8px; }
.kind-about { background: var(--accent-bg); border-radius: 6px; padding: 8px 10px; font-size: 14px; margin: 0 0 10px; }
.form-grid { display: grid; gap: 0 16px; grid-template-columns: repeat(auto-fit, minmax(min(100%, 260px), 1fr)); }
.config-list { display: flex; flex-wrap: wrap; gap: 4px; margin: 4px 0 0; padding: 0; list-style: none; }
.config-list li { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 0 6px; font-size: 13px; }
.live { font-size: 13px; color: var(--muted); }
.live::before { content: ""; display: inline-block; width: 8px; height: 8px; border-radius: 50%; background: var(--line); margin-right: 6px; }
.live.on::before { background: var(--ok); }
ol.events > li { grid-template-columns: minmax(0, 1fr); gap: 2px 16px; }
@media (min-width: 760px) { ol.events > li { grid-template-columns: 10rem minmax(0, 1fr); } }
ol.events .when { color: var(--muted); font-size: 14px; }
ol.events li.fresh { animation: fresh 2s ease-out; }
@keyframes fresh { from { background: var(--accent-bg); } to { background: transparent; } }
@media (prefers-reduced-motion: reduce) { ol.events li.fresh { animation: none; } }
`;
