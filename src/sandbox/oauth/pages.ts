import type { OAuthProvider } from '../../config.js';
import { oauthRecord } from '../../providers.js';
import type { SandboxRequest, SandboxResponse } from '../server.js';

/** The sandbox authorization servers' HTML: a consent page, a device verification page and an error page. */

const sandboxTitle = (provider: OAuthProvider) => `${oauthRecord(provider).title} (sandbox)`;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function page(status: number, title: string, body: string): SandboxResponse {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#222}
button{font-size:1rem;padding:.5rem 1.25rem;margin-right:.5rem}ul{padding-left:1.2rem}.note{color:#666;font-size:.9rem}</style>
</head><body>
${body}
</body></html>`;
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      // No form-action: browsers apply it to the redirect after the post too, and that goes to the client's origin.
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      'x-frame-options': 'DENY',
    },
    body: html,
  };
}

export function consentPage(o: { provider: OAuthProvider; action: string; requestId: string; identity: string; scopes: string[] }): SandboxResponse {
  const scopes = o.scopes.length ? o.scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('') : '<li>(no scopes)</li>';
  return page(
    200,
    `Sign in to ${sandboxTitle(o.provider)}`,
    `<h1>${escapeHtml(sandboxTitle(o.provider))}</h1>
<p>Signed in as <strong>${escapeHtml(o.identity)}</strong>.</p>
<p><strong>Switchboard</strong> would like to:</p>
<ul>${scopes}</ul>
<form method="post" action="${escapeHtml(o.action)}">
<input type="hidden" name="request" value="${escapeHtml(o.requestId)}">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Cancel</button>
</form>
<p class="note">This is a local stand-in for the provider's sign-in page; no real account is involved.</p>`,
  );
}

export function devicePage(o: { provider: OAuthProvider; action: string; result?: 'approved' | 'denied' | 'unknown' }): SandboxResponse {
  const result =
    o.result === 'approved'
      ? '<p><strong>Device connected.</strong> You can return to your terminal.</p>'
      : o.result === 'denied'
        ? '<p>Sign-in cancelled.</p>'
        : o.result === 'unknown'
          ? '<p><strong>That code is unknown or has expired.</strong> Check it and try again.</p>'
          : '';
  return page(
    o.result === 'unknown' ? 400 : 200,
    `Device sign-in: ${sandboxTitle(o.provider)}`,
    `<h1>${escapeHtml(sandboxTitle(o.provider))}: device sign-in</h1>
${result}
<form method="post" action="${escapeHtml(o.action)}">
<label>Code shown in your terminal <input name="user_code" autocomplete="off" required autofocus></label>
<p><button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Cancel</button></p>
</form>`,
  );
}

export function errorPage(status: number, message: string): SandboxResponse {
  return page(status, 'Sign-in error', `<h1>Sign-in error</h1><p>${escapeHtml(message)}</p>`);
}

/** A form-encoded request body (falls back to a JSON object's string fields). */
export function formParams(req: SandboxRequest): URLSearchParams {
  const type = String(req.headers['content-type'] ?? '');
  if (type.includes('application/json') && req.body && typeof req.body === 'object') {
    return new URLSearchParams(Object.entries(req.body as Record<string, unknown>).filter(([, v]) => typeof v === 'string') as Array<[string, string]>);
  }
  return new URLSearchParams(req.rawBody.toString('utf8'));
}
