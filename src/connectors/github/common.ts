import * as z from 'zod/v4';
import { InputError } from '../../errors.js';
import type { Api, ApiRequest } from '../../http/client.js';

/** Shared pieces of the GitHub tools: owner/repo inputs, Link-header paging with opaque cursors, compact users. */

export const repoFields = {
  owner: z.string(),
  repo: z.string(),
};

/** `/repos/{owner}/{repo}` with both parts checked and percent-encoded. */
export function repoPath(owner: string, repo: string): string {
  return `/repos/${segment(owner, 'owner')}/${segment(repo, 'repo')}`;
}

/** One path segment from a caller's value: percent-encoded, never empty, '.', '..' or containing '/'. */
export function segment(value: string, field: string): string {
  if (value === '' || value === '.' || value === '..' || value.includes('/')) {
    throw new InputError(`"${field}" must be a single name without '/' (got ${JSON.stringify(value.slice(0, 80))}).`, field);
  }
  return encodeURIComponent(value);
}

/** A repository file path such as `src/app.ts`: each segment encoded, slashes kept; no '.', '..' or empty segments. */
export function filePath(path: string, field = 'path'): string {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '';
  const parts = trimmed.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..')) {
    throw new InputError(`"${field}" must be a plain path such as src/app.ts, without '.', '..' or '//' (got ${JSON.stringify(path.slice(0, 120))}).`, field);
  }
  return parts.map(encodeURIComponent).join('/');
}

export const limitField = (max: number, fallback: number) =>
  z.number().int().min(1).max(max).optional().describe(`Default ${fallback}`);

export const cursorField = z.string().optional();

const CURSOR_PREFIX = 'gh1.';

/** The cursor is GitHub's rel="next" URL, kept opaque. */
export function encodeCursor(nextUrl: string | undefined | null): string | null {
  return nextUrl ? CURSOR_PREFIX + Buffer.from(nextUrl, 'utf8').toString('base64url') : null;
}

export function decodeCursor(cursor: string): string {
  const body = cursor.startsWith(CURSOR_PREFIX) ? Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url').toString('utf8') : '';
  if (!/^https?:\/\//.test(body)) {
    throw new InputError('"cursor" is not a next_cursor from a GitHub list tool; omit it to start from the first page.', 'cursor');
  }
  return body;
}

/** `<url>; rel="next", <url>; rel="last"` → { next: url, last: url }. */
export function parseLink(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of (header ?? '').matchAll(/<([^>]*)>\s*((?:;\s*[^;,]+)*)/g)) {
    const rel = /;\s*rel\s*=\s*"?([^";]+)"?/i.exec(m[2] ?? '')?.[1];
    if (rel) for (const r of rel.trim().split(/\s+/)) out[r.toLowerCase()] = m[1]!;
  }
  return out;
}

export interface GithubPageOptions {
  /** Page size, sent as per_page; a cursor keeps the size of the page it came from. */
  limit?: number;
  cursor?: string;
  /** Filters for the first page (a cursor's URL already carries them). */
  query?: ApiRequest['query'];
  headers?: Record<string, string>;
  /** Lists wrapped in an object (search: `items`, workflow runs: `workflow_runs`). */
  itemsKey?: string;
}

export interface GithubPage<T> {
  items: T[];
  next_cursor: string | null;
  /** Present when GitHub wraps the list in an object with a count. */
  total_count?: number;
}

/** One page of a GitHub list: the first from `endpoint`, later ones from the cursor (the URL guard keeps them on the API origin). */
export async function githubPage<T>(api: Api, endpoint: string, options: GithubPageOptions = {}): Promise<GithubPage<T>> {
  const { limit, cursor, itemsKey } = options;
  const res = cursor
    ? await api.request({ method: 'GET', endpoint: decodeCursor(cursor), endpointField: 'cursor', headers: options.headers })
    : await api.request({ method: 'GET', endpoint, query: { ...options.query, per_page: limit }, headers: options.headers });
  const body = res.body as unknown;
  let items: T[];
  let total_count: number | undefined;
  if (itemsKey) {
    const wrapped = (body ?? {}) as Record<string, unknown>;
    items = (Array.isArray(wrapped[itemsKey]) ? wrapped[itemsKey] : []) as T[];
    if (typeof wrapped.total_count === 'number') total_count = wrapped.total_count;
  } else {
    items = (Array.isArray(body) ? body : []) as T[];
  }
  const page: GithubPage<T> = { items, next_cursor: encodeCursor(parseLink(res.headers.link).next) };
  if (total_count !== undefined) page.total_count = total_count;
  return page;
}

export const userShape = z.object({ login: z.string(), id: z.number() }).nullable();

export interface GithubUserLike {
  login?: string;
  id?: number;
}

/** GitHub's simple-user cut down to what a model needs; null stays null (a commit author without an account). */
export function user(u: GithubUserLike | null | undefined): z.infer<typeof userShape> {
  return u && typeof u.login === 'string' ? { login: u.login, id: u.id ?? 0 } : null;
}

/** An ISO 8601 timestamp input, checked before anything is sent. */
export function checkIso(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(Date.parse(value))) {
    throw new InputError(`"${field}" must be an ISO 8601 timestamp such as 2025-01-31T00:00:00Z (got ${JSON.stringify(value.slice(0, 60))}).`, field);
  }
  return value;
}

/** Cuts long text for compact results, marking the cut. */
export function clip(text: string | null | undefined, max: number): string | null {
  if (text === null || text === undefined) return null;
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
