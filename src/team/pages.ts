import type { ServerResponse } from 'node:http';
import { html, type SafeHtml } from '../web/html.js';
import { oauthRecord } from '../providers.js';
import type { SignInProvider } from '../store/types.js';

/** The sign-in pages of a team server: plain forms and links, no script. */

export interface Page {
  status: number;
  body: string;
}


function layout(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Switchboard</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#222}a.button{display:block;margin:.6rem 0;padding:.6rem 1rem;border:1px solid #888;border-radius:6px;text-decoration:none;color:#111}code{word-break:break-all}.note{color:#555;font-size:.9rem}</style>
</head><body>
${body}
</body></html>`.toString();
}

export interface ConsentView {
  uid: string;
  clientName: string;
  clientId: string;
  /** The host the client's sign-in returns to. */
  redirectHost: string;
  scopes: string[];
  providers: SignInProvider[];
}

/** What the person is asked to allow, and with which identity provider they prove who they are. */
export function signInPage(v: ConsentView): Page {
  const access = v.scopes.includes('switchboard') ? 'use every tool of this Switchboard as you' : 'use the read-only tools of this Switchboard as you';
  return {
    status: 200,
    body: layout(
      'Sign in',
      html`<h1>Sign in to Switchboard</h1>
<p><strong>${v.clientName}</strong> asks to ${access}.</p>
<p class="note">Client <code>${v.clientId}</code>; after you sign in you return to <code>${v.redirectHost}</code>.</p>
${v.providers.map((p) => html`<a class="button" href="${`/auth/interaction/${v.uid}/${p}`}">Continue with ${oauthRecord(p).title}</a>`)}
<p class="note">Signing in allows this. If you did not start it, close this page.</p>`,
    ),
  };
}

export function errorPage(title: string, message: string, status = 400): Page {
  return { status, body: layout(title, html`<h1>${title}</h1><p>${message}</p>`) };
}

export function sendPage(res: ServerResponse, page: Page, headers: Record<string, string> = {}): void {
  res
    .writeHead(page.status, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
      'x-frame-options': 'DENY',
      ...headers,
    })
    .end(page.body);
}
