import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { WebSessionStore } from '../store/types.js';
import type { FormProblem } from './forms.js';

/** A message for the next page view, shown at the top of the section the action belongs to. */
export interface Notice {
  kind: 'ok' | 'error';
  text: string;
  section: 'accounts' | 'triggers' | 'approvals';
}

/** A browser session: the cookie's random id, its CSRF token, whether it has logged in, and what its next page view shows. */
export interface WebSession {
  id: string;
  csrf: string;
  authed: boolean;
  /** Team mode: the person signed in, whose accounts, triggers and events the page shows. */
  owner?: string;
  flash: Flash;
}

/** Shown once, by the next page view: a message, and the last form post that failed (with the message next to its field). */
export interface Flash {
  notice?: Notice;
  problem?: FormProblem;
}

export interface SessionOptions {
  /** SWITCHBOARD_HTTP_TOKEN: when set, a session must log in with it (or a request carry it as a bearer token). */
  token?: string;
  /** Mark the cookie Secure (the page is served over https). */
  secure?: boolean;
  max?: number;
  idleMs?: number;
}

/** Same-length digests, so comparing secrets never leaks their length or content through timing. */
export function secretEquals(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

function randomId(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Sessions live in the store, so a browser's next request may reach any instance. Those that have not logged in are
 * capped apart, so a flood of them cannot push out logged-in ones.
 */
export class Sessions {
  private readonly max: number;
  private readonly idleMs: number;

  constructor(
    private readonly store: WebSessionStore,
    private readonly options: SessionOptions,
  ) {
    this.max = options.max ?? 500;
    this.idleMs = options.idleMs ?? 12 * 3600_000;
  }

  get tokenRequired(): boolean {
    return !!this.options.token;
  }

  /** One cookie per port: two servers on one host (cookies ignore ports) keep their own sessions. */
  cookieName(req: IncomingMessage): string {
    const port = /:(\d+)$/.exec(req.headers.host ?? '')?.[1] ?? 'default';
    return `switchboard_session_${port}`;
  }

  /** The live session named by the request's cookie, if any. */
  async get(req: IncomingMessage): Promise<WebSession | undefined> {
    const id = parseCookies(req.headers.cookie)[this.cookieName(req)];
    if (!id) return undefined;
    const stored = await this.store.touch(this.storeId(id), { idleMs: this.idleMs });
    if (!stored) return undefined;
    return { id, csrf: stored.csrf, authed: stored.authed, owner: stored.owner, flash: stored.flash ? (JSON.parse(stored.flash) as Flash) : {} };
  }

  async create(authed: boolean, owner?: string): Promise<WebSession> {
    const session: WebSession = { id: randomId(), csrf: randomId(), authed, owner, flash: {} };
    await this.store.create(this.storeId(session.id), { csrf: session.csrf, authed, owner }, { max: this.max, idleMs: this.idleMs });
    return session;
  }

  async destroy(session: WebSession): Promise<void> {
    await this.store.remove(this.storeId(session.id));
  }

  /** Adds to what the session's next page view shows. */
  async show(session: WebSession, flash: Flash): Promise<void> {
    session.flash = { ...session.flash, ...flash };
    await this.store.setFlash(this.storeId(session.id), JSON.stringify(session.flash));
  }

  /** What this page view shows, cleared as it is read. */
  async takeFlash(session: WebSession): Promise<Flash> {
    const text = await this.store.takeFlash(this.storeId(session.id));
    session.flash = {};
    return text ? (JSON.parse(text) as Flash) : {};
  }

  /**
   * Behind a token, a session is stored under an HMAC of its id keyed with the token: a session logged in with one
   * token is worth nothing once the token is changed, as when sessions ended with the process.
   */
  private storeId(id: string): string {
    return this.options.token ? createHmac('sha256', this.options.token).update(id).digest('base64url') : id;
  }

  bearerOk(req: IncomingMessage): boolean {
    if (!this.options.token) return false;
    const given = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    return given !== undefined && secretEquals(given, this.options.token);
  }

  tokenOk(given: string): boolean {
    return !!this.options.token && secretEquals(given, this.options.token);
  }

  csrfOk(session: WebSession | undefined, given: string | undefined): boolean {
    return !!session && typeof given === 'string' && given.length > 0 && secretEquals(given, session.csrf);
  }

  setCookie(req: IncomingMessage, session: WebSession): string {
    return `${this.cookieName(req)}=${session.id}; Path=/; HttpOnly; SameSite=Strict${this.options.secure ? '; Secure' : ''}`;
  }

  clearCookie(req: IncomingMessage): string {
    return `${this.cookieName(req)}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${this.options.secure ? '; Secure' : ''}`;
  }
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!(name in out)) out[name] = part.slice(eq + 1).trim();
  }
  return out;
}
