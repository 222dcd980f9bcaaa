/** The audit trail (src/store/sqlite/audit.ts): one chained record per tool call or administrative act. */
export const AUDIT_TABLES = `
  CREATE TABLE audit (
    seq INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    owner TEXT NOT NULL,
    auth TEXT NOT NULL,
    client_name TEXT,
    client_id TEXT,
    action TEXT NOT NULL,
    tool TEXT,
    effect TEXT,
    account_id TEXT,
    target TEXT,
    outcome TEXT NOT NULL,
    error_class TEXT,
    provider_status INTEGER,
    duration_ms INTEGER,
    approval_id TEXT,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
  );
  CREATE INDEX audit_owner ON audit (owner, seq);
  CREATE INDEX audit_at ON audit (at);
  CREATE TABLE audit_chain (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    key_enc TEXT,
    head_seq INTEGER NOT NULL DEFAULT 0,
    head_hash TEXT NOT NULL DEFAULT '',
    anchor_seq INTEGER NOT NULL DEFAULT 0,
    anchor_hash TEXT NOT NULL DEFAULT ''
  );
  INSERT INTO audit_chain (id) VALUES (1);
`;
