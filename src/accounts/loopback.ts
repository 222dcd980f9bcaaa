import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InputError } from '../errors.js';
import type { Account, Provider } from '../store/types.js';
import { createSignIn, type SignInDeps } from './sign-in.js';

export interface LoopbackOptions {
  groups?: string[];
  label?: string;
  /** Shows the address to open in a browser. */
  onUrl(url: string): void;
  signal?: AbortSignal;
  /** How long to wait for the browser (default 5 minutes). */
  timeoutMs?: number;
}

const CALLBACK_PATH = '/oauth/callback';

/**
 * Browser sign-in for the CLI (RFC 8252): a one-shot listener on 127.0.0.1 and a random port receives the
 * redirect, its state is checked, the code exchanged with the PKCE verifier, and the listener closes.
 */
export async function loopbackSignIn(deps: SignInDeps, provider: Provider, o: LoopbackOptions): Promise<Account> {
  const signIn = createSignIn(deps);
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const close = () => {
    server.closeAllConnections();
    server.close();
  };
  try {
    const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}${CALLBACK_PATH}`;
    const { url, state } = await signIn.beginSignIn(provider, { redirectUri, groups: o.groups, label: o.label });
    o.onUrl(url);
    return await new Promise<Account>((resolve, reject) => {
      let finished = false;
      let answered = false;
      const timer = setTimeout(() => fail(new InputError('No answer came back from the browser within 5 minutes; run the command again.')), o.timeoutMs ?? 300_000);
      const onAbort = () => fail(new InputError('Sign-in cancelled.'));
      o.signal?.addEventListener('abort', onAbort, { once: true });
      function fail(error: Error) {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        o.signal?.removeEventListener('abort', onAbort);
        reject(error);
      }
      function succeed(account: Account) {
        finished = true;
        clearTimeout(timer);
        o.signal?.removeEventListener('abort', onAbort);
        resolve(account);
      }
      server.on('request', (req, res) => {
        const answer = new URL(req.url ?? '/', redirectUri);
        if (req.method !== 'GET' || answer.pathname !== CALLBACK_PATH) return page(res, 404, 'Not found', 'Nothing here.');
        // Only the answer to this sign-in counts; anything else is refused and the wait goes on.
        if (answer.searchParams.get('state') !== state) {
          return page(res, 400, 'Sign-in failed', 'This answer does not belong to the sign-in in progress (the state differs). Use the address the terminal shows.');
        }
        if (finished || answered) return page(res, 400, 'Sign-in already finished', 'This sign-in has already finished; see the terminal.');
        const error = answer.searchParams.get('error');
        if (error) {
          const description = answer.searchParams.get('error_description');
          const text = `${provider} did not sign you in: ${error}${description ? ` (${description})` : ''}. Nothing was stored.`;
          page(res, 400, 'Sign-in failed', text);
          return fail(new InputError(text));
        }
        answered = true;
        signIn.completeSignIn(provider, { code: answer.searchParams.get('code') ?? '', state, redirectUri }).then(
          (account) => {
            page(res, 200, 'Signed in', `Connected ${provider} account "${account.label}"${account.identity ? ` (${account.identity})` : ''}. You can close this window.`);
            succeed(account);
          },
          (e: Error) => {
            page(res, 400, 'Sign-in failed', `Sign-in failed: ${deps.redactor ? deps.redactor.redact(e.message) : e.message}`);
            fail(e);
          },
        );
      });
    });
  } finally {
    close();
  }
}

function page(res: ServerResponse, status: number, title: string, text: string): void {
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'",
    connection: 'close',
  });
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body><h1>${esc(title)}</h1><p>${esc(text)}</p></body></html>`);
}
