import type { AuditEntry, AuditTrail } from '../contracts/governance.js';
import type { Logger } from '../log.js';
import type { Redactor } from '../redact.js';
import type { AuditInput, Store } from '../store/types.js';

/** Records waiting longer than this are written together: one transaction for the calls of a busy moment. */
export const AUDIT_GROUP_MS = 20;
const GROUP_MAX = 500;
/** Records kept for a store that cannot be written to, before the oldest are dropped (and that is logged). */
const PENDING_MAX = 10_000;

/**
 * The audit trail over the store. `record` returns at once: the records of a short window are appended in one
 * transaction (a group commit), so a tool call does not wait on a write; `flush` writes what waits, and serve flushes
 * on shutdown. Every free-text field passes the redactor, and the client's name is cut short.
 */
export class StoreAuditTrail implements AuditTrail {
  private pending: AuditInput[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Pick<Store, 'audit'>,
    private readonly o: { logger?: Logger; redactor?: Redactor; groupMs?: number; clock?: () => number } = {},
  ) {}

  async record(entry: AuditEntry): Promise<void> {
    const clean = (value: string | undefined, max = 200) => (value === undefined ? undefined : (this.o.redactor?.redact(value) ?? value).slice(0, max));
    this.pending.push({
      at: new Date((this.o.clock ?? Date.now)()).toISOString(),
      owner: entry.actor.owner,
      auth: entry.actor.auth,
      clientName: clean(entry.actor.clientName),
      clientId: clean(entry.actor.clientId),
      action: entry.action,
      tool: entry.tool,
      effect: entry.effect,
      account: entry.account,
      target: clean(entry.target, 160),
      outcome: entry.outcome,
      errorClass: entry.errorClass,
      providerStatus: entry.providerStatus,
      durationMs: entry.durationMs === undefined ? undefined : Math.round(entry.durationMs),
      approvalId: entry.approvalId,
    });
    if (this.pending.length >= GROUP_MAX) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.o.groupMs ?? AUDIT_GROUP_MS).unref();
  }

  /** Writes every record handed in so far. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    this.writing = this.writing.then(() => (batch.length ? this.write(batch) : undefined));
    return this.writing;
  }

  private async write(batch: AuditInput[]): Promise<void> {
    try {
      await this.store.audit.append(batch);
    } catch (error) {
      // Kept for the next write: a store that is briefly unavailable loses no record.
      this.pending = [...batch, ...this.pending];
      const dropped = this.pending.length - PENDING_MAX;
      if (dropped > 0) this.pending.splice(0, dropped);
      this.o.logger?.warn('audit records not written yet', { waiting: this.pending.length, dropped: Math.max(0, dropped), message: (error as Error).message });
      this.timer ??= setTimeout(() => void this.flush(), 1000).unref();
    }
  }
}

/** Writes what a trail holds, when it is one that waits (serve's shutdown, a command's end). */
export async function flushAudit(trail: AuditTrail | undefined): Promise<void> {
  if (trail instanceof StoreAuditTrail) await trail.flush();
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Removes the audit records older than `days` (the chain keeps an anchor, so what remains still verifies). */
export async function pruneAuditTrail(o: { store: Pick<Store, 'audit'>; days: number; logger: Logger; now?: number }): Promise<number> {
  const removed = await o.store.audit.prune(new Date((o.now ?? Date.now()) - o.days * DAY_MS).toISOString());
  if (removed) o.logger.info('audit trail pruned', { removed, retentionDays: o.days });
  return removed;
}
