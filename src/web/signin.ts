import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SignInApi } from '../contracts/accounts.js';
import { OAUTH_PROVIDERS, providerRecord } from '../providers.js';
import type { Provider } from '../store/types.js';
import { errorText, type WebDeps } from './actions.js';
import { html, type SafeHtml } from './html.js';
import { layout } from './layout.js';
import { field, newNonce, requestOrigin, sendHtml, type Form } from './respond.js';

export type { SignInApi };

export const SIGN_IN_UNAVAILABLE =
  'Pop-up sign-in is not available in this process: add an account with a token or API key below, or from the command line.';

/** The server's sign-in (ToolDeps.signIn, set by serve), when it has one. */
export function serverSignIn(w: WebDeps): () => Promise<SignInApi | undefined> {
  return w.signIn ?? (async () => (w.deps as { signIn?: SignInApi }).signIn);
}

/** The pop-up's pages post no form, so they can send no referrer at all (the provider sees none). */
function send(res: ServerResponse, status: number, nonce: string, body: SafeHtml): void {
  sendHtml(res, status, nonce, body, {}, 'no-referrer');
}

export function oauthProvider(name: string): Provider | undefined {
  return (OAUTH_PROVIDERS as readonly string[]).includes(name) ? (name as Provider) : undefined;
}

export function callbackUri(req: IncomingMessage, w: WebDeps, provider: Provider): string {
  return `${requestOrigin(req, w.config.http.publicUrl)}/oauth/callback/${provider}`;
}

/** POST /signin/:provider, answered in the pop-up: starts the sign-in and sends the pop-up to the provider. */
export async function beginInPopup(w: WebDeps, req: IncomingMessage, res: ServerResponse, provider: Provider, form: Form): Promise<void> {
  const nonce = newNonce();
  const api = await serverSignIn(w)();
  if (!api) return send(res, 503, nonce, resultPage(nonce, { ok: false, provider, message: SIGN_IN_UNAVAILABLE }));
  let url: URL;
  try {
    const groups = providerRecord(provider).permissionGroups ? form.get('groups')?.filter(Boolean) : undefined;
    const begun = await api.beginSignIn(provider, { redirectUri: callbackUri(req, w, provider), groups, label: field(form, 'label') || undefined, owner: w.deps.owner });
    url = new URL(begun.url);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`the sign-in address is not http(s): ${url.protocol}`);
  } catch (error) {
    return send(res, 400, nonce, resultPage(nonce, { ok: false, provider, message: `Sign-in could not start: ${errorText(error, w)}` }));
  }
  const title = providerRecord(provider).title;
  send(
    res,
    200,
    nonce,
    layout({
      title: `Sign in with ${title}`,
      nonce,
      script: false,
      body: html`<section class="panel"><p>Opening ${title} sign-in… <a id="go" href="${url.href}">Continue</a></p></section>
<script nonce="${nonce}">location.replace(document.getElementById('go').href);</script>`,
    }),
  );
}

/** GET /oauth/callback/:provider: finishes the sign-in, tells the opener (same origin only) and closes. */
export async function completeInPopup(w: WebDeps, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const nonce = newNonce();
  const provider = oauthProvider(url.pathname.slice('/oauth/callback/'.length));
  if (!provider) return send(res, 404, nonce, resultPage(nonce, { ok: false, message: 'No such sign-in provider.' }));
  const api = await serverSignIn(w)();
  if (!api) return send(res, 503, nonce, resultPage(nonce, { ok: false, provider, message: SIGN_IN_UNAVAILABLE }));
  const q = url.searchParams;
  if (q.get('error')) {
    const message = `${providerRecord(provider).title} did not sign you in: ${q.get('error')}${q.get('error_description') ? ` (${q.get('error_description')})` : ''}.`;
    return send(res, 400, nonce, resultPage(nonce, { ok: false, provider, message }));
  }
  const code = q.get('code') ?? '';
  const state = q.get('state') ?? '';
  if (!code || !state) return send(res, 400, nonce, resultPage(nonce, { ok: false, provider, message: 'The sign-in answer has no code or state; start again from the Integrations page.' }));
  try {
    const account = await api.completeSignIn(provider, { code, state, redirectUri: callbackUri(req, w, provider) });
    w.logger.info('account connected by browser sign-in', { provider, account: account.id });
    const message = `Connected ${provider} account "${account.label}"${account.identity ? ` (${account.identity})` : ''}.`;
    send(res, 200, nonce, resultPage(nonce, { ok: true, provider, message }));
  } catch (error) {
    send(res, 400, nonce, resultPage(nonce, { ok: false, provider, message: `Sign-in failed: ${errorText(error, w, code)}` }));
  }
}

/** The pop-up's last page: the text is in data attributes (escaped), read by a nonce'd script that posts only to our own origin. */
function resultPage(nonce: string, r: { ok: boolean; provider?: Provider; message: string }) {
  return layout({
    title: r.ok ? 'Signed in' : 'Sign-in failed',
    nonce,
    script: false,
    body: html`<section class="panel" id="result" data-ok="${r.ok ? '1' : '0'}" data-message="${r.message}">
<div class="notice ${r.ok ? 'ok' : 'error'}" role="${r.ok ? 'status' : 'alert'}"><p>${r.message}</p></div>
<p>${r.ok ? 'You can close this window.' : html`<a href="/">Back to Integrations</a>`}</p>
</section>
<script nonce="${nonce}">(function () {
  var d = document.getElementById('result').dataset;
  if (window.opener && !window.opener.closed) {
    window.opener.postMessage({ type: 'switchboard:signed-in', ok: d.ok === '1', message: d.message }, location.origin);
    if (d.ok === '1') window.close();
  }
})();</script>`,
  });
}
