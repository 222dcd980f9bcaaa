import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import { issuePageTicket } from '../web/page-ticket.js';
import { parseCookies } from '../web/session.js';
import { errorPage, sendPage, type Page } from './pages.js';

/**
 * A sign-in under way at an identity provider, kept in the store under its OAuth state: single use, for 10 minutes,
 * and bound to the browser that started it by a cookie whose hash it keeps, so a provider's redirect followed in
 * another browser finishes nothing.
 */
export interface PendingSignIns {
  /** Keeps `data` under `state`; the cookie header to send with the redirect to the provider. */
  start(state: string, data: object): Promise<string>;
  /** The sign-in `state` names, once, when this browser started it; else the page saying why not. */
  finish<T>(req: IncomingMessage, state: string): Promise<{ pending: T } | { refused: Page }>;
  /** Sends the person to the Integrations page with a one-time ticket for their session, good in this browser only. */
  toPage(res: ServerResponse, owner: string): Promise<void>;
  /** The header that forgets the browser's cookie, sent with every answer of a callback. */
  clearCookie: Record<string, string>;
}

const KIND = 'UpstreamSignIn';
const COOKIE = 'sb_team_sign_in';
export const PENDING_MS = 10 * 60_000;

const digest = (value: string) => createHash('sha256').update(value).digest();

export function pendingSignIns(store: Store, secure: boolean): PendingSignIns {
  const flags = `Path=/oauth/callback/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  const clearCookie = { 'set-cookie': `${COOKIE}=; Max-Age=0; ${flags}` };
  return {
    clearCookie,
    async start(state, data) {
      const nonce = randomBytes(32).toString('base64url');
      await store.team.records.put(KIND, state, JSON.stringify({ ...data, nonceHash: digest(nonce).toString('base64url') }), { expiresInMs: PENDING_MS });
      return `${COOKIE}=${nonce}; Max-Age=${PENDING_MS / 1000}; ${flags}`;
    },
    async finish<T>(req: IncomingMessage, state: string) {
      const saved = state ? await store.team.records.take(KIND, state) : undefined;
      if (saved === undefined) return { refused: errorPage('Sign-in not found', 'This sign-in is unknown, was already used, or is older than 10 minutes. Start again from the application.', 404) };
      const { nonceHash, ...pending } = JSON.parse(saved) as { nonceHash: string };
      const nonce = parseCookies(req.headers.cookie)[COOKIE];
      if (!nonce || !timingSafeEqual(digest(nonce), Buffer.from(nonceHash, 'base64url'))) {
        return { refused: errorPage('Sign-in from another browser', 'This sign-in was started in another browser. Start again from the application in this one.', 403) };
      }
      return { pending: pending as T };
    },
    async toPage(res, owner) {
      const { location, cookie } = await issuePageTicket(store, owner, secure);
      res.writeHead(303, { location, 'cache-control': 'no-store', 'set-cookie': [clearCookie['set-cookie'], cookie] }).end();
    },
  };
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;

/** A sign-in route whose failure (a provider unreachable, a code refused) is logged and shown as a page, not a bare 500. */
export const guarded = (logger: Logger) => (run: Handler): Handler => async (req, res, url) => {
  try {
    await run(req, res, url);
  } catch (error) {
    logger.warn('team sign-in failed', { message: (error as Error).message });
    if (!res.headersSent) sendPage(res, errorPage('Sign-in failed', `${(error as Error).message} Start again from the application.`, 502));
  }
};
