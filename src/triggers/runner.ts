import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Dispatcher } from 'undici';
import { CONNECTORS } from '../connectors/index.js';
import type { PushTiming, TriggerKind } from '../contracts/triggers.js';
import { ProviderError, StoreUnavailableError } from '../errors.js';
import { readingAnswers } from '../http/client.js';
import type { Logger } from '../log.js';
import { INSTANCE_LEASE_PREFIX, type Delivery, type Store, type Trigger } from '../store/types.js';
import type { ToolDeps } from '../tool.js';
import type { EventLog } from './event-log.js';
import { DEFAULT_FORWARD_OPTIONS, forwardOnce, type ForwardOptions } from './forward.js';
import { countClaimed, observeBacklog, observeDelivery, observePoll, observeStorePool } from './work-telemetry.js';
import { forwardDispatcher } from '../http/forward-guard.js';
import { RETENTION_EVERY_MS, sweepEventLog } from './retention.js';

export interface RunnerOptions {
  store: Store;
  kinds: Map<string, TriggerKind>;
  log: EventLog;
  deps: Pick<ToolDeps, 'baseUrls' | 'dispatcher' | 'retry' | 'forwardPolicy'>;
  logger: Logger;
  /** How long a claim outlives its holder's last renewal: a killed process's work is taken over within this. */
  claimTtlMs?: number;
  tickMs?: number;
  forward?: Partial<ForwardOptions>;
  /** Where providers reach this server: kinds that can be notified subscribe to their provider's notifications. */
  publicUrl?: string;
  /** Subscription lifetime and renewal; tests shorten them. */
  pushTiming?: Partial<PushTiming>;
  /** SWITCHBOARD_EVENT_RETENTION_DAYS: the log keeps events this long. */
  eventRetentionDays?: number;
  /** How often the log's retention runs; tests shorten it. */
  retentionEveryMs?: number;
  /** Sends MCP Events subscription deliveries and sweeps expired subscriptions (events/subscription-work.ts). */
  subscriptions?: SubscriptionSender;
  /** Other upkeep done by the retention lease's holder on each sweep (the audit trail's retention). */
  upkeep?: () => Promise<unknown>;
}

/** MCP Events work the runner claims and schedules but leaves to the events floor to do. */
export interface SubscriptionSender {
  deliver(delivery: Delivery, via: { dispatcher: Dispatcher; allowPrivate: boolean }): Promise<boolean>;
  sweep(): Promise<number>;
}

/** A process without a subscription sender leaves a subscription delivery for one that has one, this much later. */
const NO_SENDER_DELAY_MS = 30_000;

/** Polls one process runs at once; more due ones wait for a free slot or another process. */
const POLLS_AT_ONCE = 32;
/** Forwards and subscription deliveries one process sends at once; as they finish, more are claimed. */
const DELIVERIES_IN_FLIGHT = 32;
/** Slots that must be free before claiming again while others are sent: each claim is a write. */
const CLAIM_WHEN_FREE = 8;

/**
 * Runs due polls and forwards. Every process sharing a store runs one: each tick it claims due work in the store
 * (whichever process asks first gets it), renews its claims while it works, and gives each poll its next time.
 */
export class Runner {
  readonly holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private timer: NodeJS.Timeout | undefined;
  private retentionTimer: NodeJS.Timeout | undefined;
  private ticking = false;
  private tickAgain = false;
  private lastRenew = 0;
  private readonly polling = new Set<string>();
  /** Polls and forwards under way, so stop() can let them finish before the store closes. */
  private readonly work = new Set<Promise<unknown>>();
  private forwarding = false;
  private forwardAgain = false;
  private stopping = false;
  private unlisten: (() => void) | undefined;
  private unobserve: (() => void) | undefined;
  private readonly ttl: number;
  private readonly pollKinds: string[];
  private readonly forward: ForwardOptions;
  /** Forwards go through their own dispatcher, which checks every address it connects to. */
  private readonly forwardAgent: Dispatcher | undefined;

  constructor(private readonly o: RunnerOptions) {
    this.ttl = o.claimTtlMs ?? 20_000;
    this.pollKinds = [...o.kinds.values()].filter((k) => k.poll).map((k) => k.kind);
    const policy = o.deps.forwardPolicy ?? { allowPrivate: false };
    this.forwardAgent = o.forward?.dispatcher ? undefined : forwardDispatcher(policy);
    this.forward = { ...DEFAULT_FORWARD_OPTIONS, dispatcher: this.forwardAgent, allowPrivate: policy.allowPrivate, ...o.forward };
  }

  async start(): Promise<void> {
    const unobserve = [observeBacklog(this.o.store.work), observeStorePool(this.o.store.health)];
    this.unobserve = () => unobserve.forEach((stop) => stop());
    await this.tick();
    this.timer = setInterval(() => void this.tick(), this.o.tickMs ?? 1_000);
    // A commit's forwards and subscription deliveries are due at once: the log's news (this process's commits at once,
    // another's as the store tells of them) starts sending them rather than the next tick.
    this.unlisten = this.o.log.subscribe(() => {
      if (this.timer) this.track(this.forwardDue());
    });
    const everyMs = this.o.retentionEveryMs ?? RETENTION_EVERY_MS;
    const underLease = async () => {
      await this.o.subscriptions?.sweep();
      await this.o.upkeep?.();
    };
    const sweep = () =>
      this.track(sweepEventLog({ store: this.o.store, holder: this.holder, logger: this.o.logger, days: this.o.eventRetentionDays, everyMs, underLease }));
    sweep();
    this.retentionTimer = setInterval(sweep, everyMs);
  }

  async stop(): Promise<void> {
    this.unobserve?.();
    clearInterval(this.timer);
    clearInterval(this.retentionTimer);
    this.timer = undefined;
    this.stopping = true;
    this.unlisten?.();
    await Promise.allSettled([...this.work]);
    await this.forwardAgent?.close().catch(() => undefined);
    await this.o.store.leases.release(INSTANCE_LEASE_PREFIX + this.holder, this.holder).catch(() => undefined);
  }

  /** Makes the trigger's poll due now, for whichever process claims it first (a new trigger, or one asked to poll). */
  pollSoon(triggerId: string): void {
    this.requestPoll(triggerId).catch((error: Error) => this.o.logger.warn('could not ask for a poll', { trigger: triggerId, message: error.message }));
  }

  /** pollSoon that resolves once the request is stored (a provider's notification is acknowledged only then). */
  async requestPoll(triggerId: string): Promise<void> {
    await this.o.store.work.pollSoon(triggerId);
    if (this.timer) void this.tick();
  }

  private async tick(): Promise<void> {
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.ticking = true;
    try {
      do {
        this.tickAgain = false;
        await this.renew();
        await this.claimPolls();
        this.track(this.forwardDue());
      } while (this.tickAgain && this.timer);
    } catch (error) {
      // The store reports its own failures once (serve logs them), rather than every tick.
      if (!(error instanceof StoreUnavailableError)) this.o.logger.error('runner tick failed', { message: (error as Error).message });
    } finally {
      this.ticking = false;
    }
  }

  /** The presence lease (which `secrets rotate` checks) and every claim this process holds, renewed together. */
  private async renew(): Promise<void> {
    const now = Date.now();
    if (now - this.lastRenew < this.ttl / 4) return;
    await this.o.store.leases.acquire(INSTANCE_LEASE_PREFIX + this.holder, this.holder, this.ttl);
    await this.o.store.work.renewClaims(this.holder, this.ttl);
    this.lastRenew = now;
  }

  private async claimPolls(): Promise<void> {
    const free = POLLS_AT_ONCE - this.polling.size;
    if (free <= 0 || this.pollKinds.length === 0) return;
    const claimed = await this.o.store.work.claimPolls(this.holder, this.pollKinds, free, this.ttl);
    countClaimed('poll', claimed.length);
    for (const trigger of claimed) {
      const kind = this.o.kinds.get(trigger.kind);
      if (kind?.poll) this.track(observePoll(trigger.kind, () => this.pollOne(trigger, kind)));
    }
  }

  private track(job: Promise<unknown>): void {
    this.work.add(job);
    void job.finally(() => this.work.delete(job));
  }

  private async pollOne(trigger: Trigger, kind: TriggerKind): Promise<void> {
    this.polling.add(trigger.id);
    const interval = kind.poll!.intervalMs(trigger.config);
    let delay = Math.round(interval * (0.9 + Math.random() * 0.2));
    try {
      const { account, secret } = await this.o.store.accounts.resolve(kind.connector, trigger.accountId);
      const api = CONNECTORS[kind.connector].api(account, secret, this.o.deps);
      const result = await readingAnswers(api, () => kind.poll!.run({ trigger, account, api, now: Date.now() }));
      let state = result.state;
      if (kind.push) {
        const recovering = trigger.lastError !== null;
        const context = { trigger, account, api, now: Date.now(), store: this.o.store, publicUrl: this.o.publicUrl, state, recovering, timing: this.o.pushTiming };
        const kept = await kind.push.maintain(context);
        state = kept.state;
        delay = Math.round(kept.nextPollMs * (0.9 + Math.random() * 0.2));
      }
      const added = await this.o.store.triggers.commit(trigger.id, {
        events: result.events,
        state,
        skipped: result.skipped?.length ?? 0,
        error: trigger.lastError ? null : undefined,
      });
      if (added.length) await this.o.log.poke();
    } catch (error) {
      const message = (error as Error).message ?? String(error);
      if (error instanceof ProviderError && error.retryAfterSeconds !== undefined) delay = Math.max(delay, error.retryAfterSeconds * 1000);
      this.o.logger.warn('poll failed', { trigger: trigger.id, kind: trigger.kind, message });
      await this.o.store.triggers.commit(trigger.id, { events: [], error: message }).catch(() => undefined);
    } finally {
      await this.o.store.work
        .finishPoll(trigger.id, this.holder, delay)
        .catch((error: Error) => this.o.logger.warn('could not schedule the next poll', { trigger: trigger.id, message: error.message }));
      this.polling.delete(trigger.id);
      // A poll asked for while this one ran is due already; a full claim may have left due work behind.
      if (this.timer) void this.tick();
    }
  }

  private async deliverToSubscription(delivery: Delivery): Promise<boolean> {
    if (!this.o.subscriptions || !this.forward.dispatcher) {
      const next = Date.now() + NO_SENDER_DELAY_MS;
      const error = 'this process sends no MCP event deliveries; left for another';
      await this.o.store.events.recordAttempt(delivery.id, { error, durationMs: 0, delivered: false, nextAttemptAt: next <= delivery.giveUpAt ? next : null });
      return false;
    }
    return this.o.subscriptions.deliver(delivery, { dispatcher: this.forward.dispatcher, allowPrivate: this.forward.allowPrivate ?? false });
  }

  private sendOne(delivery: Delivery): Promise<unknown> {
    const sent = observeDelivery(delivery, () => (delivery.subscription ? this.deliverToSubscription(delivery) : forwardOnce(this.o.store.events, delivery, this.forward)));
    return sent.catch((error: Error) => this.o.logger.error('forwarding failed', { delivery: delivery.id, message: error.message }));
  }

  /**
   * Sends due deliveries, DELIVERIES_IN_FLIGHT at a time, claiming more as slots free up rather than after a whole
   * batch, so one slow receiver holds back no others; news of more while sending (forwardAgain) claims again.
   */
  private async forwardDue(): Promise<void> {
    if (this.forwarding) {
      this.forwardAgain = true;
      return;
    }
    this.forwarding = true;
    const sending = new Set<Promise<unknown>>();
    try {
      for (let drained = false; ; ) {
        if (this.forwardAgain) [this.forwardAgain, drained] = [false, false];
        const free = DELIVERIES_IN_FLIGHT - sending.size;
        if (!drained && !this.stopping && free >= (sending.size ? CLAIM_WHEN_FREE : 1)) {
          const due = await this.o.store.work.claimDeliveries(this.holder, free, this.ttl);
          countClaimed('delivery', due.length);
          drained = due.length < free;
          for (const delivery of due) {
            const job = this.sendOne(delivery).finally(() => sending.delete(job));
            sending.add(job);
          }
        }
        if (sending.size > 0) await Promise.race(sending);
        else if (drained && !this.forwardAgain) break;
        else if (this.stopping) break;
      }
    } catch (error) {
      this.o.logger.error('forwarding failed', { message: (error as Error).message });
    } finally {
      await Promise.allSettled([...sending]);
      this.forwarding = false;
    }
  }
}
