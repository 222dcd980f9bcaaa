import { approvalOf, approvalRow, approvalSealer, approvalCallBox, type ApprovalCallRow, type ApprovalRow } from '../governance-rows.js';
import type { ApprovalStore, PolicyStore } from '../types.js';
import type { Sql } from './connection.js';

export function pgPolicy(sql: Sql): PolicyStore {
  return {
    async get() {
      const [row] = await sql<{ text: string; updated_at: string; updated_by: string }[]>`SELECT text, updated_at, updated_by FROM policy WHERE id = 1`;
      return row && { text: row.text, updatedAt: row.updated_at, updatedBy: row.updated_by };
    },
    async set(text, by, at) {
      await sql`
        INSERT INTO policy (id, text, updated_at, updated_by) VALUES (1, ${text}, ${at}, ${by})
        ON CONFLICT (id) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at, updated_by = excluded.updated_by`;
    },
    async clear() {
      return (await sql`DELETE FROM policy WHERE id = 1`).count > 0;
    },
  };
}

export function pgApprovals(sql: Sql, key: Buffer): ApprovalStore {
  const one = async (rows: Promise<ApprovalRow[]>) => {
    const [row] = await rows;
    return row && approvalOf(row);
  };
  const seal = approvalSealer(key);
  const box = approvalCallBox(key);
  return {
    seal: async (parts) => seal(parts),
    async keepCall(id, owner, call, expiresAt) {
      await sql.begin(async (tx) => {
        await tx`DELETE FROM approval_calls WHERE expires_at <= ${new Date().toISOString()}`;
        await tx`INSERT INTO approval_calls (approval_id, owner, call_enc, expires_at) VALUES (${id}, ${owner}, ${box.seal(id, owner, 'call', call)}, ${expiresAt}) ON CONFLICT (approval_id) DO NOTHING`;
      });
    },
    async keptCall(id, owner, now) {
      const [row] = await sql<ApprovalCallRow[]>`SELECT call_enc, result_enc FROM approval_calls WHERE approval_id = ${id} AND owner = ${owner} AND expires_at > ${now}`;
      return row && box.open(id, owner, row);
    },
    async keepResult(id, owner, result, expiresAt) {
      await sql`UPDATE approval_calls SET result_enc = ${box.seal(id, owner, 'result', result)}, expires_at = ${expiresAt} WHERE approval_id = ${id} AND owner = ${owner}`;
    },
    async create(approval) {
      await sql`INSERT INTO approvals ${sql(approvalRow(approval) as unknown as Record<string, string | number | null>)}`;
    },
    get: (id) => one(sql<ApprovalRow[]>`SELECT * FROM approvals WHERE id = ${id}`),
    findOpen: (owner, seal, now) =>
      one(sql<ApprovalRow[]>`
        SELECT * FROM approvals WHERE owner = ${owner} AND seal = ${seal} AND (status IN ('approved', 'denied') OR (status = 'pending' AND expires_at > ${now}))
        ORDER BY created_at DESC LIMIT 1`),
    async list(filter) {
      const rows = await sql<ApprovalRow[]>`
        SELECT * FROM approvals
        WHERE (${filter.owner ?? null}::text IS NULL OR owner = ${filter.owner ?? null})
          AND (${filter.approver ?? null}::text IS NULL OR approver = ${filter.approver ?? null})
          AND (${filter.status?.length ? [...filter.status] : null}::text[] IS NULL OR status = ANY(${filter.status?.length ? [...filter.status] : null}::text[]))
        ORDER BY created_at DESC`;
      return rows.map(approvalOf);
    },
    decide: (id, d) =>
      one(sql<ApprovalRow[]>`
        UPDATE approvals SET status = ${d.status}, decided_at = ${d.now}, decided_by = ${d.by}, reason = ${d.reason ?? null}
        WHERE id = ${id} AND status = 'pending' AND expires_at > ${d.now} RETURNING *`),
    async take(id, from) {
      return (await sql`UPDATE approvals SET status = 'used' WHERE id = ${id} AND status = ${from}`).count > 0;
    },
    async expire(now) {
      const rows = await sql<ApprovalRow[]>`UPDATE approvals SET status = 'expired' WHERE status = 'pending' AND expires_at <= ${now} RETURNING *`;
      return rows.map(approvalOf);
    },
  };
}
