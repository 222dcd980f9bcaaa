
import type { Actor, AuditEntry, AuditTrail } from '../contracts/governance.js';
import type { Config } from '../config.js';
import { PERSONAL_OWNER, type Store } from '../store/types.js';
import { StoreAuditTrail } from './audit-trail.js';
import type { ToolDeps } from '../tool.js';

/** An administrative act's details: what it acted on, and how it ended (ok unless said). */
export type ActDetails = Partial<Pick<AuditEntry, 'account' | 'target' | 'outcome' | 'errorClass'>>;

/** Who acts when the caller did not say: the owner of the deps, on the command line or else unauthenticated. */
export function actorOfDeps(deps: Pick<ToolDeps, 'actor' | 'owner' | 'surface'>): Actor {
  return deps.actor ?? { owner: deps.owner ?? PERSONAL_OWNER, auth: deps.surface === 'cli' ? 'cli' : 'none' };
}

/** Records an administrative act (`trigger.created`, `account.removed`...) when a trail is there; never fails the act. */
export function recordAct(deps: Pick<ToolDeps, 'audit' | 'actor' | 'owner' | 'surface'>, action: string, details: ActDetails = {}): void {
  void deps.audit?.record({ action, actor: actorOfDeps(deps), outcome: 'ok', ...details }).catch(() => undefined);
}

/** Records an administrative act done on the command line (auth `cli`, by the server's operator), written before it returns. */
export async function recordCliAct(store: Pick<Store, 'audit'>, config: Pick<Config, 'audit'>, action: string, details: ActDetails = {}): Promise<void> {
  if (config.audit === false) return;
  const trail = new StoreAuditTrail(store);
  await trail.record({ action, actor: { owner: PERSONAL_OWNER, auth: 'cli' }, outcome: 'ok', ...details });
  await trail.flush();
}

/** A team sign-in at the page, or one refused (`owner` is the person when known, else the personal owner). */
export function recordSignIn(audit: AuditTrail | undefined, owner: string, action: 'signin' | 'signin.refused', target: string): void {
  void audit?.record({ action, actor: { owner, auth: 'oauth' }, target, outcome: action === 'signin' ? 'ok' : 'refused' }).catch(() => undefined);
}
