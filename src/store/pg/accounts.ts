import { AccountError, reconnectMessage } from '../../errors.js';
import type { Redactor } from '../../redact.js';
import {
  checkLabel,
  checkNewAccount,
  checkStatus,
  defaultAmong,
  defaultLabelBase,
  freeLabel,
  labelCollision,
  labelOfSeveralProviders,
  missingAccount,
  newAccountId,
  noSuchAccount,
  TOUCH_INTERVAL_MS,
  unknownId,
  withDefaults,
} from '../account-rules.js';
import { decryptSecret, encryptSecret } from '../crypto.js';
import { PERSONAL_OWNER, type Owner } from '../owner.js';
import { toAccount, type AccountRow } from '../rows.js';
import type { Account, AccountGrant, AccountSecret, AccountStatus, AccountStore, NewAccount, Provider } from '../types.js';
import type { Queryable, Sql, Tx } from './connection.js';

export class PgAccountStore implements AccountStore {
  private readonly o: Scope;
  constructor(
    private readonly sql: Sql,
    private readonly key: Buffer,
    private readonly redactor: Redactor | undefined,
    /** Throws when the store's key changed since this process opened it (secrets rotate); run in every transaction that writes a secret. */
    private readonly guard: (tx: Tx) => Promise<void>,
    owner: Owner = undefined,
    /** When each account was last marked used, shared by every owner's view. */
    private readonly touched = new Map<string, number>(),
  ) {
    this.o = owner ?? null;
  }

  async list(filter: { provider?: Provider; group?: string } = {}): Promise<Account[]> {
    // Every usable account of a provider is read, whatever the group: the default is chosen among them all.
    const rows = await this.sql<AccountRow[]>`
      SELECT * FROM accounts
      WHERE ${visible(this.sql, this.o)} AND (${filter.provider ?? null}::text IS NULL OR provider = ${filter.provider ?? null})
      ORDER BY provider, created_at, seq`;
    const accounts = this.views(rows);
    return filter.group === undefined ? accounts : accounts.filter((a) => a.groups.includes(filter.group!));
  }

  async find(ref: string, provider?: Provider): Promise<Account | undefined> {
    const row = await findRow(this.sql, this.o, ref, provider);
    return row && this.view(row);
  }

  async resolve(provider: Provider, ref?: string): Promise<{ account: Account; secret: AccountSecret }> {
    const usable = await ofProvider(this.sql, this.o, provider, visible);
    const chosen = defaultAmong(usable, this.defaultOwner);
    const row = ref === undefined ? chosen : await findRow(this.sql, this.o, ref, provider);
    if (!row) throw missingAccount(provider, ref, this.views(usable));
    const account = this.marked(row, row.id === chosen?.id);
    if (account.status === 'needs_reconnect') throw new AccountError(reconnectMessage(account), { provider: account.provider, label: account.label });
    let plaintext: string;
    try {
      plaintext = decryptSecret(this.key, row.secret_enc, row.id);
    } catch (error) {
      await this.sql.begin((tx) => this.guard(tx));
      throw error;
    }
    const secret = JSON.parse(plaintext) as AccountSecret;
    for (const value of [secret.token, secret.apiKey, secret.refreshToken]) this.redactor?.add(value);
    return { account, secret };
  }

  async add(input: NewAccount): Promise<Account> {
    const { label: explicitLabel, baseUrl } = checkNewAccount(input);
    const id = newAccountId();
    const row = await this.write(async (tx) => {
      await this.guard(tx);
      const taken = new Set((await ofProvider(tx, this.o, input.provider, own)).map((r) => r.label.toLowerCase()));
      const isTaken = (label: string) => taken.has(label.toLowerCase());
      if (explicitLabel !== undefined && isTaken(explicitLabel)) throw labelCollision(input.provider, explicitLabel, freeLabel(explicitLabel, isTaken));
      const label = explicitLabel ?? freeLabel(defaultLabelBase(input), isTaken);
      const [ownDefault] = await tx`SELECT 1 FROM accounts WHERE provider = ${input.provider} AND is_default AND owner = ${this.defaultOwner}`;
      const isDefault = ownDefault === undefined;
      const [inserted] = await tx<AccountRow[]>`
        INSERT INTO accounts (id, owner, provider, label, identity, is_default, groups_json, scopes_json, meta_json, base_url, secret_enc, created_at)
        VALUES (${id}, ${this.o ?? PERSONAL_OWNER}, ${input.provider}, ${label}, ${input.identity ?? null}, ${isDefault}, ${JSON.stringify(input.groups ?? [])}::text::json,
          ${JSON.stringify(input.scopes ?? [])}::text::json, ${JSON.stringify(input.meta ?? {})}::text::json, ${baseUrl},
          ${encryptSecret(this.key, JSON.stringify(input.secret), id)}, ${new Date().toISOString()})
        RETURNING *`;
      return inserted;
    });
    return this.view(row);
  }

  async remove(ref: string, provider?: Provider): Promise<Account> {
    const row = await this.write(async (tx) => {
      const found = await requireRow(tx, this.o, ref, provider);
      await tx`DELETE FROM accounts WHERE id = ${found.id}`;
      if (found.is_default) {
        await tx`UPDATE accounts SET is_default = true
          WHERE id = (SELECT id FROM accounts WHERE provider = ${found.provider} AND owner = ${found.owner} ORDER BY created_at, seq LIMIT 1)`;
      }
      return found;
    });
    return toAccount(row);
  }

  async rename(ref: string, label: string): Promise<Account> {
    const newLabel = checkLabel(label);
    const row = await this.write(async (tx) => {
      const found = await requireRow(tx, this.o, ref);
      const holder = await labelHolder(tx, this.o, found.provider, newLabel, own);
      if (holder && holder.id !== found.id) {
        const taken = new Set((await ofProvider(tx, this.o, found.provider, own)).map((r) => r.label.toLowerCase()));
        throw labelCollision(found.provider, newLabel, freeLabel(newLabel, (l) => taken.has(l.toLowerCase())));
      }
      const [renamed] = await tx<AccountRow[]>`UPDATE accounts SET label = ${newLabel} WHERE id = ${found.id} RETURNING *`;
      return renamed;
    });
    return this.view(row);
  }

  async setDefault(ref: string): Promise<Account> {
    const row = await this.write(async (tx) => {
      const found = await requireRow(tx, this.o, ref);
      await tx`UPDATE accounts SET is_default = false WHERE provider = ${found.provider} AND owner = ${found.owner} AND is_default`;
      const [updated] = await tx<AccountRow[]>`UPDATE accounts SET is_default = true WHERE id = ${found.id} RETURNING *`;
      return updated;
    });
    return this.view(row);
  }

  async reconnect(id: string, input: Omit<NewAccount, 'provider' | 'label'>): Promise<Account> {
    const row = await this.write(async (tx) => {
      await this.guard(tx);
      const row = await rowById(tx, this.o, id, own);
      if (!row) throw unknownId(id);
      const found = toAccount(row);
      const [updated] = await tx<AccountRow[]>`
        UPDATE accounts SET identity = ${input.identity ?? found.identity}, groups_json = ${JSON.stringify(input.groups ?? found.groups)}::text::json,
          scopes_json = ${JSON.stringify(input.scopes ?? found.scopes)}::text::json, meta_json = ${JSON.stringify({ ...found.meta, ...input.meta })}::text::json,
          secret_enc = ${encryptSecret(this.key, JSON.stringify(input.secret), id)}, status = 'active'
        WHERE id = ${id} RETURNING *`;
      return updated;
    });
    return this.view(row);
  }

  async updateSecret(id: string, secret: AccountSecret): Promise<void> {
    const changed = await this.sql.begin(async (tx) => {
      await this.guard(tx);
      return (await tx`UPDATE accounts SET secret_enc = ${encryptSecret(this.key, JSON.stringify(secret), id)} WHERE id = ${id} AND ${visible(tx, this.o)}`).count;
    });
    if (changed === 0) throw unknownId(id);
  }

  async setStatus(id: string, status: AccountStatus): Promise<void> {
    checkStatus(status);
    const result = await this.sql`UPDATE accounts SET status = ${status} WHERE id = ${id} AND ${visible(this.sql, this.o)}`;
    if (result.count === 0) throw unknownId(id);
  }

  // Silent when the account is gone: a concurrent remove must not fail a tool call that already succeeded.
  async touch(id: string): Promise<void> {
    const now = Date.now();
    if (now - (this.touched.get(id) ?? 0) < TOUCH_INTERVAL_MS) return;
    this.touched.set(id, now);
    await this.sql`UPDATE accounts SET last_used_at = ${new Date(now).toISOString()} WHERE id = ${id}`;
  }

  async share(ref: string, grantee: string): Promise<Account> {
    const row = await this.write(async (tx) => {
      const found = await requireRow(tx, this.o, ref);
      await tx`INSERT INTO account_grants (account_id, grantee, created_at) VALUES (${found.id}, ${grantee}, ${new Date().toISOString()}) ON CONFLICT DO NOTHING`;
      return found;
    });
    return this.view(row);
  }

  async unshare(ref: string, grantee: string): Promise<{ account: Account; removed: boolean }> {
    const { found, removed } = await this.write(async (tx) => {
      const found = await requireRow(tx, this.o, ref);
      return { found, removed: (await tx`DELETE FROM account_grants WHERE account_id = ${found.id} AND grantee = ${grantee}`).count > 0 };
    });
    return { account: await this.view(found), removed };
  }

  async grants(): Promise<AccountGrant[]> {
    const rows = await this.sql<Array<{ account_id: string; grantee: string }>>`
      SELECT g.account_id, g.grantee FROM account_grants g JOIN accounts a ON a.id = g.account_id
      WHERE (${this.o}::text IS NULL OR a.owner = ${this.o}) ORDER BY g.created_at, g.account_id, g.grantee`;
    return rows.map((r) => ({ accountId: r.account_id, grantee: r.grantee }));
  }

  /** Whose default a call without `account` uses: the view's owner's; the personal owner's when every owner's accounts are read. */
  private get defaultOwner(): string {
    return this.o ?? PERSONAL_OWNER;
  }

  /** An account as the view's owner sees it: default when a call without `account` uses it; marked when it is another's, shared with them. */
  private async view(row: AccountRow): Promise<Account> {
    const usable = await ofProvider(this.sql, this.o, row.provider, visible);
    return this.marked(row, defaultAmong(usable, this.defaultOwner)?.id === row.id);
  }

  /** Accounts as the view's owner sees them; `rows` must hold every usable account of each provider among them. */
  private views(rows: AccountRow[]): Account[] {
    return withDefaults(rows, this.defaultOwner).map(({ row, isDefault }) => this.marked(row, isDefault));
  }

  private marked(row: AccountRow, isDefault: boolean): Account {
    const account = { ...toAccount(row), isDefault };
    return this.o !== null && row.owner !== this.o ? { ...account, shared: true } : account;
  }

  /**
   * Label and default changes read, decide and write: one at a time across every instance, as SQLite's write
   * lock makes them there. Reads and the other tables go on meanwhile.
   */
  private write<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.sql.begin(async (tx) => {
      await tx`LOCK TABLE accounts IN SHARE ROW EXCLUSIVE MODE`;
      return work(tx);
    }) as Promise<T>;
  }
}

/** Whose accounts a view reads: one owner's, or every owner's (null). */
type Scope = string | null;
type Which = (db: Queryable, o: Scope) => ReturnType<Queryable>;

/** The accounts an owner may use: their own, and those shared with them or with everyone. */
const visible: Which = (db, o) =>
  db`(${o}::text IS NULL OR owner = ${o} OR id IN (SELECT account_id FROM account_grants WHERE grantee IN (${o}, '*')))`;
/** The accounts an owner may change: their own only. */
const own: Which = (db, o) => db`(${o}::text IS NULL OR owner = ${o})`;

async function rowById(db: Queryable, o: Scope, id: string, which: Which = visible): Promise<AccountRow | undefined> {
  const [row] = await db<AccountRow[]>`SELECT * FROM accounts WHERE id = ${id} AND ${which(db, o)}`;
  return row;
}

/** By id or label among the accounts `which` allows; a label names the owner's own account before a shared one. */
async function findRow(db: Queryable, o: Scope, ref: string, provider?: Provider, which: Which = visible): Promise<AccountRow | undefined> {
  const byId = await rowById(db, o, ref, which);
  if (byId && (provider === undefined || byId.provider === provider)) return byId;
  const trimmed = ref.trim();
  if (provider !== undefined) return labelHolder(db, o, provider, trimmed, which);
  const matches = await db<AccountRow[]>`
    SELECT * FROM accounts WHERE lower(label) = lower(${trimmed}) AND ${which(db, o)}
    ORDER BY owner IS DISTINCT FROM ${o}, provider, created_at, seq`;
  if (new Set(matches.map((m) => m.provider)).size > 1) throw labelOfSeveralProviders(trimmed, matches.map(toAccount));
  return matches[0];
}

/** An account the owner may change (their own), by id or label. */
async function requireRow(db: Queryable, o: Scope, ref: string, provider?: Provider): Promise<AccountRow> {
  const row = await findRow(db, o, ref, provider, own);
  if (row) return row;
  throw noSuchAccount(ref, (await db<AccountRow[]>`SELECT * FROM accounts WHERE ${own(db, o)} ORDER BY provider, created_at, seq`).map(toAccount));
}

async function labelHolder(db: Queryable, o: Scope, provider: string, label: string, which: Which = own): Promise<AccountRow | undefined> {
  const [row] = await db<AccountRow[]>`
    SELECT * FROM accounts WHERE provider = ${provider} AND lower(label) = lower(${label}) AND ${which(db, o)}
    ORDER BY owner IS DISTINCT FROM ${o} LIMIT 1`;
  return row;
}

function ofProvider(db: Queryable, o: Scope, provider: string, which: Which): Promise<AccountRow[]> {
  return db<AccountRow[]>`SELECT * FROM accounts WHERE provider = ${provider} AND ${which(db, o)} ORDER BY created_at, seq`;
}
