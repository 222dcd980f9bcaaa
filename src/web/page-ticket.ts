import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { PAGE_TICKET_KIND, PAGE_TICKET_MS, PAGE_TICKET_PATH } from '../contracts/team.js';
import type { Store } from '../store/types.js';
import { parseCookies } from './session.js';

/**
 * The one-time ticket a finished sign-in exchanges for an Integrations page session. It is bound to the browser that
 * finished the sign-in by a cookie whose hash it keeps, so a ticket sent to someone else signs no one in: they would
 * otherwise be signed in as the sender, and add their own accounts to the sender's.
 */

export const PAGE_TICKET_COOKIE = 'sb_team_page';

const digest = (value: string) => createHash('sha256').update(value).digest();
const flags = (secure: boolean) => `Path=${PAGE_TICKET_PATH}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;

/** Keeps a ticket for the person; where to send the browser, and the cookie that goes with it. */
export async function issuePageTicket(store: Store, owner: string, secure: boolean): Promise<{ location: string; cookie: string }> {
  const ticket = randomBytes(32).toString('base64url');
  const browser = randomBytes(32).toString('base64url');
  // The stored key stays `userId`: every instance on the store, of any version, redeems the tickets of the others.
  const payload = JSON.stringify({ userId: owner, browserHash: digest(browser).toString('base64url') });
  await store.team.records.put(PAGE_TICKET_KIND, ticket, payload, { expiresInMs: PAGE_TICKET_MS, owner });
  return { location: `${PAGE_TICKET_PATH}?ticket=${ticket}`, cookie: `${PAGE_TICKET_COOKIE}=${browser}; Max-Age=${PAGE_TICKET_MS / 1000}; ${flags(secure)}` };
}

/** The header that forgets the ticket's cookie, sent with every answer of the ticket's route. */
export const clearPageTicketCookie = (secure: boolean) => `${PAGE_TICKET_COOKIE}=; Max-Age=0; ${flags(secure)}`;

/** The person a ticket names, once, when this browser finished their sign-in; else why not. */
export async function redeemPageTicket(store: Store, req: IncomingMessage, ticket: string): Promise<{ owner: string } | { refused: 'unknown' | 'elsewhere' }> {
  const saved = ticket ? await store.team.records.take(PAGE_TICKET_KIND, ticket) : undefined;
  if (saved === undefined) return { refused: 'unknown' };
  const { userId: owner, browserHash } = JSON.parse(saved) as { userId: string; browserHash: string };
  const browser = parseCookies(req.headers.cookie)[PAGE_TICKET_COOKIE];
  if (!browser || !timingSafeEqual(digest(browser), Buffer.from(browserHash, 'base64url'))) return { refused: 'elsewhere' };
  return { owner };
}
