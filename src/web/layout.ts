import { SCRIPT } from './client.js';
import { html, raw, type SafeHtml } from './html.js';
import type { Notice } from './session.js';
import { STYLE } from './style.js';

export function layout(options: { title: string; nonce: string; body: SafeHtml; badge?: SafeHtml; header?: SafeHtml; nav?: SafeHtml; script?: boolean }): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title}</title>
<style nonce="${options.nonce}">${raw(STYLE)}</style>
</head>
<body>
<a class="skip" href="#main">Skip to main content</a>
<header class="top"><div class="top-inner"><div class="brand"><h1>${options.title}</h1>${options.badge}</div>${options.header}</div></header>
${options.nav}
<main id="main" tabindex="-1">
${options.body}
</main>
${options.script === false ? '' : html`<script nonce="${options.nonce}">${raw(SCRIPT)}</script>`}
</body>
</html>`;
}

/** A message that stays until dismissed (the button appears with the page's script; without it the next page view clears it). */
export function noticeBox(notice: Notice | undefined): SafeHtml | '' {
  if (!notice) return '';
  return html`<div class="notice ${notice.kind}" id="notice" role="${notice.kind === 'ok' ? 'status' : 'alert'}" tabindex="-1">
<p>${notice.text}</p><button type="button" class="secondary" data-dismiss hidden>Dismiss<span class="vh"> this message</span></button>
</div>`;
}

export function csrfField(csrf: string): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${csrf}">`;
}

export function loginPage(nonce: string, csrf: string, failed: boolean): SafeHtml {
  return layout({
    title: 'Switchboard: sign in',
    nonce,
    script: false,
    body: html`<section class="panel" aria-labelledby="login-title">
<h2 id="login-title">This Switchboard is protected by SWITCHBOARD_HTTP_TOKEN</h2>
<form method="post" action="/login">
${csrfField(csrf)}
<div class="field"><label for="login-token">Token</label>
<input type="password" id="login-token" name="token" autocomplete="current-password" required autofocus${failed ? raw(' aria-invalid="true" aria-describedby="login-error"') : ''}>
${failed ? html`<p class="field-error" id="login-error" role="alert">That token is not right.</p>` : ''}</div>
<button type="submit">Sign in</button>
</form>
<p class="muted">The session lasts until you sign out, or 12 hours without use.</p>
</section>`,
  });
}

/** Team mode: a person signs in to the page with the identity provider they sign in to MCP clients with; without one, `unavailable` says why. */
export function teamLoginPage(nonce: string, providers: Array<{ path: string; title: string }>, unavailable = ''): SafeHtml {
  return layout({
    title: 'Switchboard: sign in',
    nonce,
    script: false,
    body: html`<section class="panel" aria-labelledby="login-title">
<h2 id="login-title">Sign in to see your accounts, triggers and events</h2>
${providers.length ? html`<p>${providers.map((p) => html`<a class="button" href="${p.path}">Sign in with ${p.title}</a> `)}</p>` : html`<p role="alert">${unavailable}</p>`}
<p class="muted">Each person sees only their own, and the accounts shared with them. The session lasts until you sign out, or 12 hours without use.</p>
</section>`,
  });
}

/** A small page with one message and a way back. */
export function messagePage(nonce: string, title: string, text: string): SafeHtml {
  return layout({
    title,
    nonce,
    script: false,
    body: html`<section class="panel"><p>${text}</p><p><a class="button secondary" href="/">Back to Integrations</a></p></section>`,
  });
}
