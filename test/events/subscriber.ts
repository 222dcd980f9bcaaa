import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { createLogger } from '../../src/log.js';
import { startHttpListener, type HttpListener } from '../../src/mcp/http.js';
import { surfaceOf, type ServerDeps } from '../../src/mcp/server.js';
import { subscriptionWork } from '../../src/events/subscription-work.js';
import { TRIGGER_KINDS } from '../../src/triggers/kinds.js';
import { Runner } from '../../src/triggers/runner.js';
import { startHarness, type Harness } from '../harness.js';
import { postModern, type RawAnswer } from '../mcp/sse.js';
import { startReceiver, type Answer, type Received } from './receiver.js';

export const newSecret = (bytes = 32) => 'whsec_' + randomBytes(bytes).toString('base64');

/** What a receiver path does with event POSTs (challenges are answered by `challenge`). */
export type EventAnswer = (count: number) => number;

/**
 * A server with the Events extension over HTTP on 127.0.0.1 (its deps as `overrides` say), a runner that delivers
 * subscriptions, and a receiver whose paths answer challenges and events as each test sets.
 */
export async function startSubscriber(overrides: Partial<ServerDeps> = {}, options: { databaseUrl?: string } = {}) {
  const h: Harness = await startHarness({ databaseUrl: options.databaseUrl });
  const logger = createLogger({ level: 'error' });
  const deps = { ...h.deps, ...overrides };
  const listeners: HttpListener[] = [];
  const listen = async (extra: Partial<ServerDeps> = {}) => {
    const listener = await startHttpListener({ host: '127.0.0.1', port: 0, mcp: surfaceOf({ ...deps, ...extra }), logger, version: 't' });
    listeners.push(listener);
    return `${listener.url}/mcp`;
  };
  const endpoint = await listen();
  const runner = new Runner({
    store: h.store,
    kinds: TRIGGER_KINDS,
    log: h.deps.triggers!.log,
    deps: h.deps,
    logger,
    tickMs: 20,
    retentionEveryMs: 200,
    subscriptions: subscriptionWork({ deps: h.deps, logger, expiredGraceMs: 500, rate: deps.eventsLimits?.deliveries }),
  });
  await runner.start();

  /** Per path: the challenge's answer (echo unless set) and the status of the n-th event POST (204 unless set). */
  const challengeAnswers = new Map<string, (challenge: string) => Answer>();
  const eventAnswers = new Map<string, EventAnswer>();
  const counts = new Map<string, number>();
  const receiver = await startReceiver((path, body) => {
    const parsed = JSON.parse(body) as { type?: string; challenge?: string };
    if (parsed.type === 'verification') {
      const answer = challengeAnswers.get(path);
      return answer ? answer(parsed.challenge!) : { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ challenge: parsed.challenge }) };
    }
    const count = (counts.get(path) ?? 0) + 1;
    counts.set(path, count);
    return { status: eventAnswers.get(path)?.(count) ?? 204 };
  });

  const received = (path: string, kind: 'event' | 'verification' = 'event'): Received[] =>
    receiver.received.filter((r) => r.path.split('?')[0] === path && (JSON.parse(r.body).type === 'verification') === (kind === 'verification'));

  return {
    h,
    endpoint,
    listen,
    receiver,
    challengeAnswers,
    eventAnswers,
    received,
    runner,
    hook: (path: string) => receiver.url + path,
    call: (method: string, params: Record<string, unknown>, at = endpoint): Promise<RawAnswer> => postModern(at, method, params),
    /** A new event of the trigger, committed as a poll or webhook would. */
    async commit(triggerId: string, subject: string) {
      const [event] = await h.store.triggers.commit(triggerId, {
        events: [{ dedupeKey: `${subject}-${randomBytes(4).toString('hex')}`, occurredAt: new Date().toISOString(), summary: subject, payload: { subject } }],
      });
      await h.deps.triggers!.log.poke();
      return event!;
    },
    async close() {
      await runner.stop();
      await Promise.all(listeners.map((l) => l.close()));
      await receiver.close();
      await h.close();
    },
  };
}

export type Subscriber = Awaited<ReturnType<typeof startSubscriber>>;

/** Whether a POST carries a valid Standard Webhooks signature by `secret` over its exact body. */
export function signedBy(received: Received, secret: string): boolean {
  try {
    new Webhook(secret).verify(received.body, received.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}
