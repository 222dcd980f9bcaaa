import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FormProblem } from './forms.js';

/** A message for the next page view, shown at the top of the section the action belongs to. */
export interface Notice {
  kind: 'ok' | 'error';
  text: string;
  section: 'accounts' | 'triggers';
}

/** A browser session: a random id kept only in memory, its CSRF token, and whether it has logged in. */
export interface WebSession {
  id: string;
  csrf: string;
  authed: boolean;
  lastSeen: number;
  notice?: Notice;
  /** The last form post that failed, shown once with the message next to its field. */
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

export class Sessions {
  private readonly map = new Map<string, WebSession>();
  // Sessions that have not logged in are kept apart, so a flood of them cannot push out logged-in ones.
  private readonly pending = new Map<string, WebSession>();
  private readonly max: number;
  private readonly idleMs: number;

  constructor(private readonly options: SessionOptions) {
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
  get(req: IncomingMessage): WebSession | undefined {
    const id = parseCookies(req.headers.cookie)[this.cookieName(req)];
    if (!id) return undefined;
    const map = this.map.has(id) ? this.map : this.pending;
    const session = map.get(id);
    if (!session) return undefined;
    if (Date.now() - session.lastSeen > this.idleMs) {
      map.delete(id);
      return undefined;
    }
    session.lastSeen = Date.now();
    map.delete(id);
    map.set(id, session);
    return session;
  }

  create(authed: boolean): WebSession {
    const map = authed ? this.map : this.pending;
    while (map.size >= this.max) map.delete(map.keys().next().value!);
    const session: WebSession = { id: randomId(), csrf: randomId(), authed, lastSeen: Date.now() };
    map.set(session.id, session);
    return session;
  }

  destroy(session: WebSession): void {
    this.map.delete(session.id);
    this.pending.delete(session.id);
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
