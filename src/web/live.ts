import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Route } from '../http/incoming.js';
import { ownEvents, PERSONAL_OWNER } from '../store/index.js';
import type { TriggerEvent } from '../store/types.js';
import type { WebDeps } from './actions.js';
import { eventJsonForPage } from './events-view.js';
import { sendText } from './respond.js';

const MAX_STREAMS = 100;
/** At most this many missed events are replayed to a stream that (re)connects. */
const REPLAY = 50;
const HEARTBEAT_MS = 25_000;

/**
 * GET /events/stream: Server-Sent Events with each new event of the log (summary fields, no payload), for the
 * page's list. Same access as the page; `after` (or the browser's Last-Event-ID on reconnect) says where to continue.
 */
export function eventStreamRoute(viewer: (req: IncomingMessage) => Promise<WebDeps | undefined>): Route {
  const open = new Set<ServerResponse>();
  return {
    method: 'GET',
    path: '/events/stream',
    public: true,
    async handle(req, res, url) {
      const w = await viewer(req);
      if (!w) return sendText(res, 401, 'Sign in on the Integrations page first.');
      const log = w.deps.triggers?.log;
      if (!log) return sendText(res, 503, 'Live events are not available in this process.');
      if (open.size >= MAX_STREAMS) return sendText(res, 503, `Too many open event streams (${MAX_STREAMS}); close other tabs of this page.`);
      const store = w.deps.store.events;
      const given = String(req.headers['last-event-id'] ?? url.searchParams.get('after') ?? '');
      const last = await store.lastId();
      let cursor = Math.max(/^\d+$/.test(given) ? Number(given) : last, last - REPLAY);

      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        connection: 'keep-alive',
      });
      res.write('retry: 2000\n\n');
      const send = (events: TriggerEvent[]) => {
        for (const e of events) {
          if (e.id <= cursor || res.destroyed) continue;
          res.write(`id: ${e.id}\nevent: trigger-event\ndata: ${JSON.stringify(eventJsonForPage(e))}\n\n`);
          cursor = e.id;
        }
      };
      // Subscribed before the replay is read, so nothing committed in between is missed; the cursor drops repeats.
      let replayed = false;
      const waiting: TriggerEvent[] = [];
      const unsubscribe = log.subscribe(ownEvents(w.deps.store, w.deps.owner ?? PERSONAL_OWNER, (events) => (replayed ? send(events) : waiting.push(...events))));
      const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
      open.add(res);
      res.on('close', () => {
        clearInterval(heartbeat);
        unsubscribe();
        open.delete(res);
      });
      send(await store.after(cursor, { limit: REPLAY, payloads: false }));
      replayed = true;
      send(waiting);
    },
  };
}
