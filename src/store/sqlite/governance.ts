import type Database from 'better-sqlite3';
import { approvalOf, approvalRow, approvalSealer, approvalCallBox, type ApprovalCallRow, type ApprovalRow } from '../governance-rows.js';
import type { ApprovalStore, PolicyStore } from '../types.js';

export function sqlitePolicy(db: Database.Database): PolicyStore {
  const select = db.prepare('SELECT text, updated_at, updated_by FROM policy WHERE id = 1');
  const upsert = db.prepare(
    'INSERT INTO policy (id, text, updated_at, updated_by) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at, updated_by = excluded.updated_by',
  );
  const remove = db.prepare('DELETE FROM policy WHERE id = 1');
  return {
    async get() {
      const row = select.get() as { text: string; updated_at: string; updated_by: string } | undefined;
      return row && { text: row.text, updatedAt: row.updated_at, updatedBy: row.updated_by };
    },
    async set(text, by, at) {
      upsert.run(text, at, by);
    },
    async clear() {
      return remove.run().changes > 0;
    },
  };
}

export function sqliteApprovals(db: Database.Database, key: Buffer): ApprovalStore {
  const insert = db.prepare(
    `INSERT INTO approvals (id, owner, tool, account_id, rule, approver, in_band, summary, seal, status, created_at, expires_at, decided_at, decided_by, reason)
     VALUES (@id, @owner, @tool, @account_id, @rule, @approver, @in_band, @summary, @seal, @status, @created_at, @expires_at, @decided_at, @decided_by, @reason)`,
  );
  const byId = db.prepare('SELECT * FROM approvals WHERE id = ?');
  const open = db.prepare(
    `SELECT * FROM approvals WHERE owner = ? AND seal = ? AND (status IN ('approved', 'denied') OR (status = 'pending' AND expires_at > ?))
     ORDER BY created_at DESC, rowid DESC LIMIT 1`,
  );
  const decide = db.prepare(
    "UPDATE approvals SET status = @status, decided_at = @now, decided_by = @by, reason = @reason WHERE id = @id AND status = 'pending' AND expires_at > @now",
  );
  const take = db.prepare("UPDATE approvals SET status = 'used' WHERE id = ? AND status = ?");
  const due = db.prepare("SELECT * FROM approvals WHERE status = 'pending' AND expires_at <= ?");
  const expire = db.prepare("UPDATE approvals SET status = 'expired' WHERE id = ? AND status = 'pending'");
  const expireDue = db.transaction((now: string) => (due.all(now) as ApprovalRow[]).filter((row) => expire.run(row.id).changes > 0).map(approvalOf));
  const seal = approvalSealer(key);
  const box = approvalCallBox(key);
  const insertCall = db.prepare('INSERT INTO approval_calls (approval_id, owner, call_enc, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (approval_id) DO NOTHING');
  const purgeCalls = db.prepare('DELETE FROM approval_calls WHERE expires_at <= ?');
  const keepCall = db.transaction((id: string, owner: string, callEnc: string, expiresAt: string, now: string) => {
    purgeCalls.run(now);
    insertCall.run(id, owner, callEnc, expiresAt);
  });
  const kept = db.prepare('SELECT call_enc, result_enc FROM approval_calls WHERE approval_id = ? AND owner = ? AND expires_at > ?');
  const keepResult = db.prepare('UPDATE approval_calls SET result_enc = ?, expires_at = ? WHERE approval_id = ? AND owner = ?');
  return {
    seal: async (parts) => seal(parts),
    async keepCall(id, owner, call, expiresAt) {
      keepCall(id, owner, box.seal(id, owner, 'call', call), expiresAt, new Date().toISOString());
    },
    async keptCall(id, owner, now) {
      const row = kept.get(id, owner, now) as ApprovalCallRow | undefined;
      return row && box.open(id, owner, row);
    },
    async keepResult(id, owner, result, expiresAt) {
      keepResult.run(box.seal(id, owner, 'result', result), expiresAt, id, owner);
    },
    async create(approval) {
      insert.run(approvalRow(approval));
    },
    async get(id) {
      const row = byId.get(id) as ApprovalRow | undefined;
      return row && approvalOf(row);
    },
    async findOpen(owner, seal, now) {
      const row = open.get(owner, seal, now) as ApprovalRow | undefined;
      return row && approvalOf(row);
    },
    async list(filter) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (filter.owner !== undefined) where.push('owner = ?') && params.push(filter.owner);
      if (filter.approver !== undefined) where.push('approver = ?') && params.push(filter.approver);
      if (filter.status?.length) where.push(`status IN (${filter.status.map(() => '?').join(', ')})`) && params.push(...filter.status);
      const rows = db.prepare(`SELECT * FROM approvals ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, rowid DESC`).all(...params);
      return (rows as ApprovalRow[]).map(approvalOf);
    },
    async decide(id, d) {
      if (decide.run({ id, status: d.status, by: d.by, reason: d.reason ?? null, now: d.now }).changes === 0) return undefined;
      return approvalOf(byId.get(id) as ApprovalRow);
    },
    async take(id, from) {
      return take.run(id, from).changes > 0;
    },
    async expire(now) {
      return expireDue(now);
    },
  };
}
