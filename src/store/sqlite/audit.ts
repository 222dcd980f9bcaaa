import type Database from 'better-sqlite3';
import { AUDIT_COLUMNS, chainRows, newChainKey, openChainKey, toAuditRecord, verifyChain, type AuditRow, type ChainRow } from '../audit-chain.js';
import type { AuditQuery, AuditRange, AuditStore } from '../types.js';

const DEFAULT_LIST = 100;

/** The audit trail in SQLite: appends serialise on the database's write lock, which every process sharing the file takes. */
export function sqliteAudit(db: Database.Database, storeKey: Buffer): AuditStore {
  const readChain = db.prepare('SELECT key_enc, head_seq, head_hash, anchor_seq, anchor_hash FROM audit_chain WHERE id = 1');
  const setKey = db.prepare('UPDATE audit_chain SET key_enc = ? WHERE id = 1 AND key_enc IS NULL');
  const setHead = db.prepare('UPDATE audit_chain SET head_seq = ?, head_hash = ? WHERE id = 1');
  const insert = db.prepare(`INSERT INTO audit (${AUDIT_COLUMNS.join(', ')}) VALUES (${AUDIT_COLUMNS.map((c) => `@${c}`).join(', ')})`);
  const range = db.prepare(
    `SELECT * FROM audit WHERE seq > @afterSeq AND (@since IS NULL OR at >= @since) AND (@owner IS NULL OR owner = @owner) ORDER BY seq LIMIT @limit`,
  );
  let chainKey: Buffer | undefined;
  const keyOf = (chain: ChainRow): Buffer => {
    if (!chain.key_enc) {
      setKey.run(newChainKey(storeKey));
      return keyOf(readChain.get() as ChainRow);
    }
    return (chainKey ??= openChainKey(storeKey, chain.key_enc));
  };
  const append = db.transaction((entries: Parameters<AuditStore['append']>[0]) => {
    const chain = readChain.get() as ChainRow;
    const rows = chainRows(keyOf(chain), { seq: chain.head_seq, hash: chain.head_hash }, entries);
    for (const row of rows) insert.run(row);
    const last = rows.at(-1);
    if (last) setHead.run(last.seq, last.hash);
  });
  const prune = db.transaction((before: string): number => {
    const last = db
      .prepare('SELECT seq, hash FROM audit WHERE seq < (SELECT COALESCE(MIN(seq), 9007199254740991) FROM audit WHERE at >= ?) ORDER BY seq DESC LIMIT 1')
      .get(before) as { seq: number; hash: string } | undefined;
    if (!last) return 0;
    const removed = db.prepare('DELETE FROM audit WHERE seq <= ?').run(last.seq).changes;
    db.prepare('UPDATE audit_chain SET anchor_seq = ?, anchor_hash = ? WHERE id = 1').run(last.seq, last.hash);
    return removed;
  });
  const scanRows = (r: AuditRange) => range.all({ afterSeq: r.afterSeq, limit: r.limit, since: r.since ?? null, owner: r.owner ?? null }) as AuditRow[];
  return {
    async append(entries) {
      if (entries.length) append.immediate(entries);
    },
    async list(query: AuditQuery = {}) {
      const rows = db
        .prepare(
          `SELECT * FROM audit WHERE (@owner IS NULL OR owner = @owner) AND (@tool IS NULL OR tool = @tool) AND (@account IS NULL OR account_id = @account)
             AND (@since IS NULL OR at >= @since) ORDER BY seq DESC LIMIT @limit`,
        )
        .all({ owner: query.owner ?? null, tool: query.tool ?? null, account: query.account ?? null, since: query.since ?? null, limit: query.limit ?? DEFAULT_LIST }) as AuditRow[];
      return rows.map(toAuditRecord);
    },
    async scan(r) {
      return scanRows(r).map(toAuditRecord);
    },
    async verify() {
      const chain = readChain.get() as ChainRow | undefined;
      return verifyChain(storeKey, chain, async (afterSeq, limit) => scanRows({ afterSeq, limit }));
    },
    async prune(before) {
      return prune.immediate(before);
    },
  };
}
