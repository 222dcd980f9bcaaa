import { AUDIT_COLUMNS, chainRows, newChainKey, openChainKey, toAuditRecord, verifyChain, type AuditRow, type ChainRow } from '../audit-chain.js';
import type { AuditQuery, AuditRange, AuditStore } from '../types.js';
import type { Queryable, Sql } from './connection.js';

const DEFAULT_LIST = 100;

/**
 * The audit trail in PostgreSQL. Instances sharing the database append at once: each append locks the one chain row
 * (FOR UPDATE) until it commits, so the records form one line whoever writes them.
 */
export function pgAudit(sql: Sql, storeKey: Buffer): AuditStore {
  let chainKey: Buffer | undefined;
  const readChain = async (q: Queryable, lock = false) =>
    lock
      ? (await q<ChainRow[]>`SELECT key_enc, head_seq, head_hash, anchor_seq, anchor_hash FROM audit_chain WHERE id = 1 FOR UPDATE`)[0]
      : (await q<ChainRow[]>`SELECT key_enc, head_seq, head_hash, anchor_seq, anchor_hash FROM audit_chain WHERE id = 1`)[0];
  const scanRows = (q: Queryable, r: AuditRange) => q<AuditRow[]>`
    SELECT * FROM audit WHERE seq > ${r.afterSeq}
      ${r.since ? q`AND at >= ${r.since}` : q``} ${r.owner !== undefined ? q`AND owner = ${r.owner}` : q``}
    ORDER BY seq LIMIT ${r.limit}`;
  return {
    async append(entries) {
      if (!entries.length) return;
      await sql.begin(async (tx) => {
        let chain = (await readChain(tx, true))!;
        if (!chain.key_enc) {
          await tx`UPDATE audit_chain SET key_enc = ${newChainKey(storeKey)} WHERE id = 1`;
          chain = (await readChain(tx))!;
        }
        chainKey ??= openChainKey(storeKey, chain.key_enc!);
        const rows = chainRows(chainKey, { seq: Number(chain.head_seq), hash: chain.head_hash }, entries);
        await tx`INSERT INTO audit ${tx(rows, ...AUDIT_COLUMNS)}`;
        const last = rows.at(-1)!;
        await tx`UPDATE audit_chain SET head_seq = ${last.seq}, head_hash = ${last.hash} WHERE id = 1`;
      });
    },
    async list(query: AuditQuery = {}) {
      const rows = await sql<AuditRow[]>`
        SELECT * FROM audit WHERE true
          ${query.owner !== undefined ? sql`AND owner = ${query.owner}` : sql``}
          ${query.tool ? sql`AND tool = ${query.tool}` : sql``}
          ${query.account ? sql`AND account_id = ${query.account}` : sql``}
          ${query.since ? sql`AND at >= ${query.since}` : sql``}
        ORDER BY seq DESC LIMIT ${query.limit ?? DEFAULT_LIST}`;
      return rows.map(toAuditRecord);
    },
    async scan(r) {
      return (await scanRows(sql, r)).map(toAuditRecord);
    },
    async verify() {
      // One snapshot: a prune or an append committed meanwhile is not half seen.
      return sql.begin('isolation level repeatable read', async (tx) => verifyChain(storeKey, await readChain(tx), (afterSeq, limit) => scanRows(tx, { afterSeq, limit })));
    },
    async prune(before) {
      return sql.begin(async (tx) => {
        await readChain(tx, true);
        const [last] = await tx<{ seq: number; hash: string }[]>`
          SELECT seq, hash FROM audit WHERE seq < (SELECT COALESCE(MIN(seq), 9007199254740991) FROM audit WHERE at >= ${before})
          ORDER BY seq DESC LIMIT 1`;
        if (!last) return 0;
        const removed = (await tx`DELETE FROM audit WHERE seq <= ${last.seq}`).count;
        await tx`UPDATE audit_chain SET anchor_seq = ${last.seq}, anchor_hash = ${last.hash} WHERE id = 1`;
        return removed;
      });
    },
  };
}
