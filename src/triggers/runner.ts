import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { CONNECTORS } from '../connectors/index.js';
import { readingAnswers } from '../http/client.js';
import { ProviderError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Store, Trigger } from '../store/types.js';
import type { ToolDeps } from '../tool.js';
import type { EventLog } from './event-log.js';
import type { Dispatcher } from 'undici';
import { DEFAULT_FORWARD_OPTIONS, forwardOnce, type ForwardOptions } from './forward.js';
import { forwardDispatcher } from './forward-guard.js';
import type { TriggerKind } from '../contracts/triggers.js';

export const RUNNER_LEASE = 'runner';

export interface RunnerOptions {
  store: Store;
  kinds: Map<string, TriggerKind>;
  log: EventLog;
  deps: Pick<ToolDeps, 'baseUrls' | 'dispatcher' | 'retry' | 'forwardPolicy'>;
  logger: Logger;
  leaseTtlMs?: number;
  tickMs?: number;
  forward?: Partial<ForwardOptions>;
  /** Called when this process takes or loses the lease (to start or stop the HTTP listener). */
  onLeadership?: (leading: boolean) => Promise<void>;
}

/**
 * One process per data dir holds the runner lease and runs pollers and forwarding; the others
 * wait, renewing their claim, and one takes over when the holder stops renewing.
 */
const RELIST_MS = 10_000;

export class Runner {
  readonly holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private leading = false;
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  private lastRenew = 0;
  private readonly nextPoll = new Map<string, number>();
  private readonly inFlight = new Set<string>();
  private forwarding = false;
  /** Polls and forwards under way, so stop() can let them finish before the store closes. */
  private readonly work = new Set<Promise<unknown>>();
  /** Triggers asked to poll while a poll of theirs was under way. */
  private readonly again = new Set<string>();
  private pollable: Array<{ id: string; kind: TriggerKind }> = [];
  private listedAt = 0;
  private relist = true;
  private readonly ttl: number;
  private readonly forward: ForwardOptions;
  /** Forwards go through their own dispatcher, which checks every address it connects to. */
  private readonly forwardAgent: Dispatcher | undefined;

  constructor(private readonly o: RunnerOptions) {
    this.ttl = o.leaseTtlMs ?? 15_000;
    const policy = o.deps.forwardPolicy ?? { allowPrivate: false };
    this.forwardAgent = o.forward?.dispatcher ? undefined : forwardDispatcher(policy);
    this.forward = { ...DEFAULT_FORWARD_OPTIONS, dispatcher: this.forwardAgent, allowPrivate: policy.allowPrivate, ...o.forward };
  }

  get isLeader(): boolean {
    return this.leading;
  }

  async start(): Promise<void> {
    await this.tick();
    this.timer = setInterval(() => void this.tick(), this.o.tickMs ?? 1_000);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await Promise.allSettled([...this.work]);
    await this.forwardAgent?.close().catch(() => undefined);
    if (this.leading) {
      this.leading = false;
      await this.o.onLeadership?.(false).catch(() => undefined);
      await this.o.store.events.releaseLease(RUNNER_LEASE, this.holder).catch(() => undefined);
    }
  }

  /** Poll this trigger at the next tick (a new trigger, or a test that cannot wait); once more if one is under way. */
  pollSoon(triggerId: string): void {
    if (this.inFlight.has(triggerId)) this.again.add(triggerId);
    this.nextPoll.set(triggerId, 0);
    this.relist = true;
  }

  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const now = Date.now();
      if (!this.leading || now - this.lastRenew >= this.ttl / 3) {
        const held = await this.o.store.events.acquireLease(RUNNER_LEASE, this.holder, this.ttl, now);
        this.lastRenew = now;
        if (held !== this.leading) {
          this.leading = held;
          this.o.logger.info(held ? 'runner lease taken' : 'runner lease lost', { holder: this.holder });
          if (!held) this.nextPoll.clear();
          this.relist = true;
          await this.o.onLeadership?.(held);
        }
      }
      if (!this.leading) return;
      await this.schedulePolls(now);
      this.track(this.forwardDue(now));
    } catch (error) {
      this.o.logger.error('runner tick failed', { message: (error as Error).message });
    } finally {
      this.ticking = false;
    }
  }

  private track(job: Promise<unknown>): void {
    this.work.add(job);
    void job.finally(() => this.work.delete(job));
  }

  /**
   * Due polls run on a fresh read of their trigger. The whole list is read again only when asked to
   * (pollSoon) or every RELIST_MS, for triggers other processes made: reading a thousand triggers every
   * tick would cost more than every poll they need.
   */
  private async schedulePolls(now: number): Promise<void> {
    if (this.relist || now - this.listedAt >= RELIST_MS) await this.listPollable(now);
    for (const { id, kind } of this.pollable) {
      if (this.nextPoll.get(id)! > now || this.inFlight.has(id)) continue;
      const trigger = await this.o.store.triggers.get(id);
      if (trigger) this.track(this.pollOne(trigger, kind));
      else this.nextPoll.delete(id);
    }
  }

  private async listPollable(now: number): Promise<void> {
    this.relist = false;
    this.listedAt = now;
    this.pollable = [];
    for (const trigger of await this.o.store.triggers.list()) {
      const kind = this.o.kinds.get(trigger.kind);
      if (!kind?.poll) continue;
      this.pollable.push({ id: trigger.id, kind });
      if (!this.nextPoll.has(trigger.id)) {
        const last = typeof trigger.state.lastPollAt === 'string' ? Date.parse(trigger.state.lastPollAt) : 0;
        this.nextPoll.set(trigger.id, last + kind.poll.intervalMs(trigger.config));
      }
    }
    const live = new Set(this.pollable.map((p) => p.id));
    for (const id of this.nextPoll.keys()) if (!live.has(id)) this.nextPoll.delete(id);
  }

  private async pollOne(trigger: Trigger, kind: TriggerKind): Promise<void> {
    this.inFlight.add(trigger.id);
    const interval = kind.poll!.intervalMs(trigger.config);
    let next = Date.now() + Math.round(interval * (0.9 + Math.random() * 0.2));
    try {
      const { account, secret } = await this.o.store.accounts.resolve(kind.connector, trigger.accountId);
      const api = CONNECTORS[kind.connector].api(account, secret, this.o.deps);
      const result = await readingAnswers(api, () => kind.poll!.run({ trigger, account, api, now: Date.now() }));
      const added = await this.o.store.triggers.commit(trigger.id, {
        events: result.events,
        state: result.state,
        skipped: result.skipped?.length ?? 0,
        error: trigger.lastError ? null : undefined,
      });
      if (added.length) await this.o.log.poke();
    } catch (error) {
      const message = (error as Error).message ?? String(error);
      if (error instanceof ProviderError && error.retryAfterSeconds !== undefined) {
        next = Math.max(next, Date.now() + error.retryAfterSeconds * 1000);
      }
      this.o.logger.warn('poll failed', { trigger: trigger.id, kind: trigger.kind, message });
      await this.o.store.triggers.commit(trigger.id, { events: [], error: message }).catch(() => undefined);
    } finally {
      this.inFlight.delete(trigger.id);
      if (this.again.delete(trigger.id)) next = 0;
      if (this.nextPoll.has(trigger.id) || this.leading) this.nextPoll.set(trigger.id, next);
    }
  }

  private async forwardDue(now: number): Promise<void> {
    if (this.forwarding) return;
    this.forwarding = true;
    try {
      for (;;) {
        const due = await this.o.store.events.dueDeliveries(now, 16);
        if (due.length === 0) break;
        await Promise.all(due.map((d) => forwardOnce(this.o.store.events, d, this.forward)));
        if (due.length < 16) break;
      }
    } catch (error) {
      this.o.logger.error('forwarding failed', { message: (error as Error).message });
    } finally {
      this.forwarding = false;
    }
  }
}
