import type Database from 'better-sqlite3';

export interface Migration {
  version: number;
  up(db: Database.Database): void;
}

/** Ordered and append-only: never edit a shipped migration, add the next version instead. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up(db) {
      db.exec(`
        CREATE TABLE meta (
          key TEXT PRIMARY KEY,
          value TEXT NOT NULL
        );
        CREATE TABLE accounts (
          id TEXT PRIMARY KEY,
          provider TEXT NOT NULL,
          label TEXT NOT NULL,
          identity TEXT,
          is_default INTEGER NOT NULL DEFAULT 0,
          status TEXT NOT NULL DEFAULT 'active',
          groups_json TEXT NOT NULL DEFAULT '[]',
          scopes_json TEXT NOT NULL DEFAULT '[]',
          meta_json TEXT NOT NULL DEFAULT '{}',
          secret_enc TEXT NOT NULL,
          created_at TEXT NOT NULL,
          last_used_at TEXT
        );
        CREATE UNIQUE INDEX accounts_provider_label ON accounts (provider, lower(label));
        CREATE UNIQUE INDEX accounts_one_default_per_provider ON accounts (provider) WHERE is_default = 1;
      `);
    },
  },
];

export interface MigrationResult {
  from: number;
  to: number;
}

export function assertMigrationsOrdered(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    const previous = index === 0 ? 0 : migrations[index - 1].version;
    const valid = Number.isInteger(migration.version) && (index === 0 ? migration.version === 1 : migration.version > previous);
    if (!valid) {
      throw new Error(`Migration versions must start at 1 and strictly increase; entry ${index} has version ${migration.version} after ${previous}.`);
    }
  });
}

/** Brings the schema up to the newest migration in one immediate transaction, so concurrent openers serialise. */
export function runMigrations(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): MigrationResult {
  assertMigrationsOrdered(migrations);
  const newest = migrations.at(-1)?.version ?? 0;
  const migrate = db.transaction((): MigrationResult => {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > newest) {
      throw new Error(
        `The database ${db.name} was written by a newer Switchboard (schema ${current}, this one knows ${newest}); ` +
          'upgrade Switchboard or use another --data-dir.',
      );
    }
    for (const migration of migrations) if (migration.version > current) migration.up(db);
    if (current !== newest) db.pragma(`user_version = ${newest}`);
    return { from: current, to: newest };
  });
  return migrate.immediate();
}
