/*
 * What migration 14 creates: MCP Events subscriptions, and deliveries rebuilt so that a forward is unique per
 * (event, url) and a subscription delivery per (event, subscription). Shipped: never edit, add a migration instead.
 */

export const EVENT_SUBSCRIPTION_TABLES = `
  CREATE TABLE event_subscriptions (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    mode TEXT NOT NULL,
    name TEXT NOT NULL,
    arguments_json TEXT NOT NULL,
    url TEXT,
    trigger_id TEXT NOT NULL REFERENCES triggers(id) ON DELETE CASCADE,
    client_name TEXT,
    secret_enc TEXT,
    refresh_before INTEGER,
    status TEXT NOT NULL DEFAULT 'active',
    start_event_id INTEGER NOT NULL,
    last_delivery_at INTEGER,
    last_error TEXT,
    failed_since INTEGER,
    failed_attempts INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX event_subscriptions_trigger ON event_subscriptions (trigger_id);
  CREATE INDEX event_subscriptions_owner ON event_subscriptions (owner);
  CREATE INDEX event_subscriptions_refresh ON event_subscriptions (refresh_before) WHERE refresh_before IS NOT NULL;
  CREATE TABLE verified_callbacks (
    owner TEXT NOT NULL,
    url TEXT NOT NULL,
    until INTEGER NOT NULL,
    PRIMARY KEY (owner, url)
  );
`;

export const DELIVERY_TABLES = `
  CREATE TABLE deliveries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id INTEGER NOT NULL,
    trigger_id TEXT NOT NULL,
    url TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending',
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    give_up_at INTEGER NOT NULL,
    last_status INTEGER,
    last_error TEXT,
    claimed_by TEXT,
    claimed_until INTEGER,
    subscription_id TEXT
  );
  CREATE UNIQUE INDEX deliveries_forward ON deliveries (event_id, url) WHERE subscription_id IS NULL;
  CREATE UNIQUE INDEX deliveries_subscription ON deliveries (subscription_id, event_id) WHERE subscription_id IS NOT NULL;
  CREATE INDEX deliveries_event ON deliveries (event_id);
  CREATE INDEX deliveries_owed ON deliveries (subscription_id, event_id) WHERE state = 'pending' AND subscription_id IS NOT NULL;
  CREATE INDEX deliveries_due ON deliveries (state, next_attempt_at);
  CREATE INDEX deliveries_claimed ON deliveries (claimed_by) WHERE claimed_by IS NOT NULL;
  CREATE TABLE delivery_attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id INTEGER NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
    attempt INTEGER NOT NULL,
    at TEXT NOT NULL,
    status INTEGER,
    error TEXT,
    duration_ms INTEGER
  );
`;
