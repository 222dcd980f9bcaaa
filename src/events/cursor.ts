import type { EventsErrors } from './errors.js';

const VERSION_PREFIX = 'v1.';
const POSITION = /^v1\.(0|[1-9]\d{0,14})$/;

/** An MCP Events cursor: a position in the event log, opaque to clients (base64url of `v1.<log id>`). */
export function encodeCursor(position: number): string {
  return Buffer.from(`${VERSION_PREFIX}${Math.max(0, Math.floor(position))}`).toString('base64url');
}

/** The log position a cursor of this server names; -32602 naming "cursor" for anything else. */
export function decodeCursor(cursor: unknown, errors: EventsErrors): number {
  const text = typeof cursor === 'string' && /^[A-Za-z0-9_-]{1,40}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  const match = POSITION.exec(text);
  if (!match) {
    throw errors.invalidParams(
      `"cursor" ${JSON.stringify(String(cursor).slice(0, 100))} was not given by this server: pass a cursor from an earlier subscribe result or event, or null to start from now.`,
      { field: 'cursor' },
    );
  }
  return Number(match[1]);
}
