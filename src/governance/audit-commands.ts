import type { Config } from '../config.js';
import { InputError } from '../errors.js';
import { openStore } from '../store/index.js';
import { PERSONAL_OWNER, type AuditQuery, type AuditRecord, type AuditVerification, type Store } from '../store/types.js';

/** `switchboard audit`, `audit export` and `audit verify`: reading the trail on the server's store, as its operator. */

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;
const EXPORT_BATCH = 1000;

async function withAuditStore<T>(config: Pick<Config, 'dataDir' | 'databaseUrl' | 'secretKey'>, run: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, secretKey: config.secretKey });
  try {
    return await run(store);
  } finally {
    await store.close();
  }
}

/** `--since`: a date or time (2026-01-31, 2026-01-31T09:00Z) or a span back from now (30m, 12h, 7d, 2w). */
export function parseSince(text: string, now = Date.now()): string {
  const span = /^(\d{1,6})([mhdw])$/.exec(text.trim());
  if (span) return new Date(now - Number(span[1]) * UNIT_MS[span[2] as keyof typeof UNIT_MS]).toISOString();
  const at = /^\d{4}-\d\d-\d\d/.test(text.trim()) ? Date.parse(text.trim()) : NaN;
  if (Number.isNaN(at)) throw new InputError(`--since takes a date or time (2026-01-31, 2026-01-31T09:00Z) or a span back from now (30m, 12h, 7d, 2w), not "${text}".`, 'since');
  return new Date(at).toISOString();
}

function parseLimit(text: string | undefined): number {
  if (text === undefined) return 50;
  const limit = Number(text);
  if (!/^\d+$/.test(text.trim()) || limit < 1 || limit > 10_000) throw new InputError(`--limit must be a whole number from 1 to 10000, not "${text}".`, 'limit');
  return limit;
}

/** The person `--user` names (id, login or address); the personal owner is `owner`. */
async function ownerNamed(store: Store, ref: string): Promise<string> {
  if (ref === 'owner') return PERSONAL_OWNER;
  const users = await store.team.users.list();
  const wanted = ref.trim().toLowerCase();
  const found = users.find((u) => u.id === ref.trim()) ?? users.find((u) => u.login.toLowerCase() === wanted || u.email?.toLowerCase() === wanted);
  if (!found) throw new InputError(`--user "${ref}": no one with that id, login or address has signed in (switchboard users list shows who has; "owner" is the personal owner).`, 'user');
  return found.id;
}

export interface AuditListOptions {
  user?: string;
  tool?: string;
  account?: string;
  since?: string;
  limit?: string;
}

/** The newest records first, with the person's login beside their id. */
export async function listAudit(config: Config, o: AuditListOptions): Promise<Array<AuditRecord & { who: string }>> {
  return withAuditStore(config, async (store) => {
    const query: AuditQuery = {
      ...(o.user !== undefined && { owner: await ownerNamed(store, o.user) }),
      tool: o.tool,
      account: o.account,
      ...(o.since !== undefined && { since: parseSince(o.since) }),
      limit: parseLimit(o.limit),
    };
    const logins = new Map((await store.team.users.list()).map((u) => [u.id, u.login]));
    return (await store.audit.list(query)).map((r) => ({ ...r, who: r.owner === PERSONAL_OWNER ? 'owner' : (logins.get(r.owner) ?? r.owner) }));
  });
}

export function formatAudit(records: Array<AuditRecord & { who: string }>): string {
  if (!records.length) return 'No audit records match. Tool calls and administrative acts are recorded while SWITCHBOARD_AUDIT is not off.';
  const rows = records.map((r) => [
    String(r.seq),
    r.at.slice(0, 19).replace('T', ' '),
    r.who,
    r.auth,
    r.action === 'tool.call' ? (r.tool ?? '-') : r.action,
    r.target ?? '-',
    r.errorClass ? `${r.outcome} (${r.errorClass})` : r.outcome,
    r.providerStatus === undefined ? '-' : String(r.providerStatus),
    r.durationMs === undefined ? '-' : `${r.durationMs} ms`,
  ]);
  const header = ['SEQ', 'TIME (UTC)', 'WHO', 'AUTH', 'WHAT', 'TARGET', 'OUTCOME', 'STATUS', 'TOOK'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows].map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

/** Every record (since `since`), oldest first, one JSON object a line: for a SIEM. Returns how many were written. */
export async function exportAudit(config: Config, o: { since?: string }, write: (line: string) => void): Promise<number> {
  const since = o.since === undefined ? undefined : parseSince(o.since);
  return withAuditStore(config, async (store) => {
    let afterSeq = 0;
    let count = 0;
    for (;;) {
      const batch = await store.audit.scan({ afterSeq, limit: EXPORT_BATCH, since });
      for (const record of batch) write(`${JSON.stringify(record)}\n`);
      count += batch.length;
      if (batch.length < EXPORT_BATCH) return count;
      afterSeq = batch.at(-1)!.seq;
    }
  });
}

export const verifyAudit = (config: Config): Promise<AuditVerification> => withAuditStore(config, (store) => store.audit.verify());

export function formatVerification(v: AuditVerification): string {
  if (v.intact) return v.records ? `The audit trail is intact: ${v.records} record(s), ${v.from} to ${v.through}, each bound to the one before.` : 'The audit trail is intact: it holds no record yet.';
  return `The audit trail is broken at record ${v.seq}: ${v.reason}. ${v.records} record(s) before it verified.`;
}
