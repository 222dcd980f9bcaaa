import { html, raw, type SafeHtml } from './html.js';
import type { Flash } from './session.js';

const STYLE = `
:root { color-scheme: light dark; --fg: #1d2430; --muted: #5b6577; --line: #d8dde6; --bg: #f6f7f9; --card: #fff; --accent: #2457d6; --bad: #b42318; --ok: #067647; }
@media (prefers-color-scheme: dark) { :root { --fg: #e7eaf0; --muted: #9aa4b5; --line: #333b48; --bg: #12161c; --card: #1a1f27; --accent: #7aa2ff; --bad: #ff8a80; --ok: #6ce9a6; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { padding: 16px 24px; border-bottom: 1px solid var(--line); background: var(--card); display: flex; justify-content: space-between; align-items: center; }
header h1 { font-size: 18px; margin: 0; }
main { max-width: 1100px; margin: 0 auto; padding: 16px 24px 48px; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 16px; margin: 16px 0; }
h2 { font-size: 16px; margin: 0 0 12px; } h3 { font-size: 14px; margin: 16px 0 8px; }
table { width: 100%; border-collapse: collapse; } th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .03em; }
.muted { color: var(--muted); } .badge { display: inline-block; padding: 0 6px; border-radius: 10px; border: 1px solid var(--line); font-size: 12px; margin: 0 2px 2px 0; }
.status-active { color: var(--ok); } .status-needs_reconnect, .status-failing { color: var(--bad); font-weight: 600; }
.flash { padding: 10px 12px; border-radius: 6px; margin: 12px 0; border: 1px solid var(--line); white-space: pre-wrap; }
.flash.ok { border-color: var(--ok); } .flash.error { border-color: var(--bad); color: var(--bad); }
form.inline { display: inline-flex; gap: 4px; align-items: center; margin: 0 4px 4px 0; }
input[type=text], input[type=password], select, textarea { font: inherit; padding: 4px 6px; border: 1px solid var(--line); border-radius: 4px; background: var(--bg); color: var(--fg); }
textarea { width: 100%; min-height: 3em; } button, .button { font: inherit; padding: 4px 10px; border-radius: 4px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary, .button.secondary { background: transparent; color: var(--accent); } button.danger { background: var(--bad); border-color: var(--bad); }
button:disabled { opacity: .5; cursor: not-allowed; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); gap: 12px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 12px; } .card h3 { margin-top: 0; }
label { display: block; margin: 6px 0; } label.check { display: inline-block; margin-right: 10px; }
details > summary { cursor: pointer; font-weight: 600; margin-bottom: 8px; }
code { font-size: 12px; }
`;

const SCRIPT = `
(function () {
  document.querySelectorAll('form[data-popup]').forEach(function (form) {
    form.addEventListener('submit', function () {
      window.open('', form.target, 'popup,width=560,height=720');
    });
  });
  window.addEventListener('message', function (event) {
    if (event.origin !== location.origin || !event.data || event.data.type !== 'switchboard:signed-in') return;
    var note = document.getElementById('signin-result');
    if (note) {
      note.hidden = false;
      note.className = 'flash ' + (event.data.ok ? 'ok' : 'error');
      note.textContent = String(event.data.message || '');
    }
    if (event.data.ok) setTimeout(function () { location.assign('/'); }, 400);
  });
})();
`;

export function layout(options: { title: string; nonce: string; body: SafeHtml; header?: SafeHtml; script?: boolean }): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title}</title>
<style nonce="${options.nonce}">${raw(STYLE)}</style>
</head>
<body>
<header><h1>${options.title}</h1>${options.header}</header>
<main>
${options.body}
</main>
${options.script === false ? '' : html`<script nonce="${options.nonce}">${raw(SCRIPT)}</script>`}
</body>
</html>`;
}

export function flashBox(flash: Flash | undefined): SafeHtml {
  return html`<div id="signin-result" class="flash" role="status" hidden></div>${flash ? html`<div class="flash ${flash.kind}" role="status">${flash.text}</div>` : ''}`;
}

export function csrfField(csrf: string): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${csrf}">`;
}

export function loginPage(nonce: string, csrf: string, failed: boolean): SafeHtml {
  return layout({
    title: 'Switchboard: sign in',
    nonce,
    script: false,
    body: html`<section>
<h2>This Switchboard is protected by SWITCHBOARD_HTTP_TOKEN</h2>
${failed ? html`<div class="flash error" role="alert">That token is not right.</div>` : ''}
<form method="post" action="/login">
${csrfField(csrf)}
<label>Token <input type="password" name="token" autocomplete="current-password" required autofocus></label>
<button type="submit">Sign in</button>
</form>
<p class="muted">The session lasts until the server restarts or 12 hours without use.</p>
</section>`,
  });
}

/** A small page with one message and a way back. */
export function messagePage(nonce: string, title: string, text: string): SafeHtml {
  return layout({ title, nonce, script: false, body: html`<section><p>${text}</p><p><a class="button secondary" href="/">Back to Integrations</a></p></section>` });
}
