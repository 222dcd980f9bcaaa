import { approvalOf, approvalRow, approvalSealer, approvalStateBox, type ApprovalRow } from '../governance-rows.js';
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
  return {
    seal: async (parts) => seal(parts),
    ...approvalStateBox(key),
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
