import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log.js';
import type { Route } from '../http/incoming.js';
import type { CommitInput, Store, Trigger, TriggerEvent } from '../store/types.js';
import type { EventLog } from './event-log.js';
import { BodyBudget, refuseUnread } from './body-budget.js';
import { GroupCommit } from './group-commit.js';
import { outlookNotificationRoutes } from './outlook-notifications.js';
import type { TriggerKind, WebhookDelivery, WebhookIntake } from '../contracts/triggers.js';
import { intakeStep, observeIntake, type IntakeOutcome } from './intake-telemetry.js';

/** GitHub sends at most 25 MB; anything larger is not a delivery. */
const MAX_DELIVERY_BYTES = 26 * 1024 * 1024;
/** Bytes of delivery bodies held at once, from their first byte until they are answered. */
const MAX_HELD_BYTES = 48 * 1024 * 1024;

export interface WebhookDeps {
  store: Store;
  kinds: Map<string, TriggerKind>;
  log: EventLog;
  logger: Logger;
  /** Deliveries arriving together share one read of their hook and one transaction (true unless false); false: each has its own, for comparison. */
  groupCommit?: boolean;
  /** Stores that a trigger needs a poll, and starts it when this process runs the runner; the store's pollSoon if absent. */
  requestPoll?: (triggerId: string) => Promise<void>;
}

type Commit = (triggerId: string, input: CommitInput) => Promise<TriggerEvent[]>;
type HookIntake = Awaited<ReturnType<Store['hooks']['intake']>>;
type Intake = WebhookDeps & { read: ReadDelivery; commit: Commit; hook: (id: string) => Promise<HookIntake> };

/**
 * Provider webhooks: the signature is checked on the raw bytes before anything is parsed, every
 * matching trigger's events are committed, and only then does the provider get its 2xx. Graph change notifications
 * (outlook-notifications.ts) carry no signature: their clientState is checked, and what is committed is a poll.
 */
export function webhookRoutes(deps: WebhookDeps): Route[] {
  const budget = new BodyBudget({ maxBody: MAX_DELIVERY_BYTES, maxHeld: MAX_HELD_BYTES, retryAfterSeconds: 10 }, deps.logger);
  const read: ReadDelivery = (req, res) => budget.read(req, res);
  const readHook = (id: string) => deps.store.hooks.intake(id);
  const group = deps.groupCommit === false ? undefined : new GroupCommit(deps.store.triggers);
  const intake: Intake = {
    ...deps,
    read,
    hook: group ? readTogether(readHook) : readHook,
    commit: group ? (id, input) => group.commit(id, input) : (id, input) => deps.store.triggers.commit(id, input),
  };
  return [
    ...webhookIntakes(deps.kinds).map(
      (source): Route => ({ method: 'POST', path: `/webhooks/${source.provider}/`, public: true, handle: (req, res, url) => observeIntake(source.provider, req, () => take(intake, source, req, res, url)) }),
    ),
    ...outlookNotificationRoutes({ ...deps, read, requestPoll: deps.requestPoll ?? ((id) => deps.store.work.pollSoon(id)) }),
  ];
}

type ReadDelivery = (req: IncomingMessage, res: ServerResponse) => Promise<Buffer | undefined>;

/**
 * Reads asked for in one turn of the event loop share one read per key, made once the turn is over: every caller
 * sees the store as it was after it asked, as with a read of its own.
 */
function readTogether<T>(read: (key: string) => Promise<T>): (key: string) => Promise<T> {
  let turn: Map<string, Promise<T>> | undefined;
  return (key) => {
    if (!turn) {
      turn = new Map();
      setImmediate(() => (turn = undefined));
    }
    let shared = turn.get(key);
    if (!shared) turn.set(key, (shared = new Promise<void>((resolve) => setImmediate(resolve)).then(() => read(key))));
    return shared;
  };
}

/** One intake per provider that has webhook kinds, in the order its kinds are listed. */
function webhookIntakes(kinds: Map<string, TriggerKind>): WebhookIntake[] {
  const byProvider = new Map<string, WebhookIntake>();
  for (const { webhook } of kinds.values()) if (webhook && !byProvider.has(webhook.provider)) byProvider.set(webhook.provider, webhook);
  return [...byProvider.values()];
}

const ADDRESS: Record<WebhookIntake['addressedTo'], RegExp> = { hook: /^hk_[0-9a-f]+$/, trigger: /^trg_[0-9a-f]+$/ };

interface Addressee {
  triggers: Trigger[];
  /** The secrets a delivery may be signed with, read once its body is in. */
  secrets(): Promise<string[]>;
}

async function take(deps: Intake, source: WebhookIntake, req: IncomingMessage, res: ServerResponse, url: URL): Promise<IntakeOutcome> {
  const id = url.pathname.slice(`/webhooks/${source.provider}/`.length);
  const addressee = ADDRESS[source.addressedTo].test(id) ? await addresseeOf(deps, source, id) : undefined;
  if (!addressee) return (refuseUnread(res, 404, { error: `unknown ${source.addressedTo}` }), 'unknown_addressee');
  const raw = await deps.read(req, res);
  if (!raw) return 'unread';
  if (!(await intakeStep('verify', async () => source.verify(raw, req.headers, await addressee.secrets())))) {
    deps.logger.warn(`${source.provider} delivery refused: bad signature`, { [source.addressedTo]: id });
    return (reply(res, 401, { error: 'signature mismatch' }), 'bad_signature');
  }
  const delivery = source.delivery(raw, req.headers);
  if (delivery === 'ping') return (reply(res, 200, { ok: true }), 'ping');
  if ('malformed' in delivery) return (reply(res, 400, { error: delivery.malformed }), 'malformed');
  return deliver(deps, res, addressee.triggers, source.provider, delivery);
}

async function addresseeOf(deps: Intake, source: WebhookIntake, id: string): Promise<Addressee | undefined> {
  if (source.addressedTo === 'hook') {
    const hook = await deps.hook(id);
    return hook ? { triggers: hook.triggers, secrets: async () => [hook.secret] } : undefined;
  }
  const trigger = await deps.store.triggers.get(id);
  if (!trigger || deps.kinds.get(trigger.kind)?.webhook?.provider !== source.provider) return undefined;
  return {
    triggers: [trigger],
    async secrets() {
      const secrets = await deps.store.triggers.secrets(trigger.id);
      // A replaced secret stays valid for its overlap, so deliveries signed before the provider switched still count.
      const previous = secrets.previousWebhook && Date.parse(secrets.previousWebhookUntil ?? '') > Date.now() ? secrets.previousWebhook : undefined;
      return [secrets.webhook, previous].filter((s): s is string => !!s);
    },
  };
}

/** Commits every matching trigger's events, then answers: 200 once all are stored, 503 (send it again) when any is not. */
async function deliver(deps: Intake, res: ServerResponse, triggers: Trigger[], provider: string, delivery: WebhookDelivery): Promise<IntakeOutcome> {
  const outcomes = await intakeStep('commit', () => {
    const commits: Array<Promise<TriggerEvent[]>> = [];
    for (const trigger of triggers) {
      const source = deps.kinds.get(trigger.kind)?.webhook;
      if (source?.provider !== provider) continue;
      const events = source.match(delivery, trigger.config);
      if (events.length) commits.push(deps.commit(trigger.id, { events }));
    }
    return Promise.allSettled(commits);
  });
  const accepted = outcomes.reduce((n, o) => n + (o.status === 'fulfilled' ? o.value.length : 0), 0);
  // Committed is what the sender needs to hear; telling this process's clients need not hold up the answer.
  // A failed read is retried by the log's own timer.
  if (accepted) void deps.log.poke().catch(() => undefined);
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (!failed) return (reply(res, 200, { accepted }), 'accepted');
  // What was stored stays stored: the redelivery is deduplicated against it.
  deps.logger.error('delivery not stored', { provider, delivery: delivery.id, message: String((failed.reason as Error)?.message ?? failed.reason) });
  reply(res, 503, { error: 'The delivery could not be stored; send it again.' });
  return 'not_stored';
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
