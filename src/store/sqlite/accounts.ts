import type Database from 'better-sqlite3';
import { AccountError, reconnectMessage } from '../../errors.js';
import type { Redactor } from '../../redact.js';
import {
  checkNewAccount,
  checkLabel,
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

const ORDER = 'ORDER BY provider, created_at, rowid';
/** The accounts an owner may use: their own, and those shared with them or with everyone. Every owner's when @owner is NULL. */
const VISIBLE = "(@owner IS NULL OR owner = @owner OR id IN (SELECT account_id FROM account_grants WHERE grantee IN (@owner, '*')))";
/** The accounts an owner may change: their own only. */
const OWN = '(@owner IS NULL OR owner = @owner)';
/** Among accounts of several owners, the owner's own first. */
const OWN_FIRST = 'owner IS NOT @owner';
/** Whose default account counts: the owner's; the personal owner's when every owner's accounts are read. */
const OWN_DEFAULT = "owner = COALESCE(@owner, '')";

export class SqliteAccountStore implements AccountStore {
  private readonly scope: { owner: string | null };
  constructor(
    private readonly db: Database.Database,
    private readonly key: Buffer,
    private readonly redactor?: Redactor,
    /** Throws when the store's key changed since this connection opened (secrets rotate); called before every secret write. */
    private readonly guard: () => void = () => undefined,
    private readonly owner: Owner = undefined,
    /** When each account was last marked used, shared by every owner's view. */
    private readonly touched = new Map<string, number>(),
  ) {
    this.scope = { owner: owner ?? null };
  }

  async list(filter: { provider?: Provider; group?: string } = {}): Promise<Account[]> {
    // Every usable account of a provider is read, whatever the group: the default is chosen among them all.
    const sql = `SELECT * FROM accounts WHERE ${VISIBLE} AND (@provider IS NULL OR provider = @provider) ${ORDER}`;
    const accounts = this.views(this.db.prepare(sql).all({ ...this.scope, provider: filter.provider ?? null }) as AccountRow[]);
    return filter.group === undefined ? accounts : accounts.filter((a) => a.groups.includes(filter.group!));
  }

  async find(ref: string, provider?: Provider): Promise<Account | undefined> {
    const row = this.findRow(ref, provider);
    return row && this.view(row);
  }

  async resolve(provider: Provider, ref?: string): Promise<{ account: Account; secret: AccountSecret }> {
    const usable = this.usable(provider);
    const chosen = defaultAmong(usable, this.defaultOwner);
    const row = ref === undefined ? chosen : this.findRow(ref, provider);
    if (!row) throw missingAccount(provider, ref, this.views(usable));
    const account = this.marked(row, row.id === chosen?.id);
    if (account.status === 'needs_reconnect') throw new AccountError(reconnectMessage(account), { provider: account.provider, label: account.label });
    let plaintext: string;
    try {
      plaintext = decryptSecret(this.key, row.secret_enc, row.id);
    } catch (error) {
      this.guard();
      throw error;
    }
    const secret = JSON.parse(plaintext) as AccountSecret;
    for (const value of [secret.token, secret.apiKey, secret.refreshToken]) this.redactor?.add(value);
    return { account, secret };
  }

  async add(input: NewAccount): Promise<Account> {
    const { label: explicitLabel, baseUrl } = checkNewAccount(input);
    const id = newAccountId();
    const insert = this.db.transaction((): AccountRow => {
      this.guard();
      let label: string;
      if (explicitLabel !== undefined) {
        if (this.labelTaken(input.provider, explicitLabel)) throw this.labelCollision(input.provider, explicitLabel);
        label = explicitLabel;
      } else {
        label = this.freeLabel(input.provider, defaultLabelBase(input));
      }
      const isDefault = !this.hasOwnDefault(input.provider);
      this.db
        .prepare(
          `INSERT INTO accounts (id, owner, provider, label, identity, is_default, groups_json, scopes_json, meta_json, base_url, secret_enc, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          id,
          this.owner ?? PERSONAL_OWNER,
          input.provider,
          label,
          input.identity ?? null,
          isDefault ? 1 : 0,
          JSON.stringify(input.groups ?? []),
          JSON.stringify(input.scopes ?? []),
          JSON.stringify(input.meta ?? {}),
          baseUrl,
          encryptSecret(this.key, JSON.stringify(input.secret), id),
          new Date().toISOString(),
        );
      return this.rowById(id)!;
    });
    return this.view(insert.immediate());
  }

  async remove(ref: string, provider?: Provider): Promise<Account> {
    const removeTx = this.db.transaction((): AccountRow => {
      const row = this.requireRow(ref, provider);
      this.db.prepare('DELETE FROM accounts WHERE id = ?').run(row.id);
      if (row.is_default) {
        this.db
          .prepare(
            `UPDATE accounts SET is_default = 1
             WHERE id = (SELECT id FROM accounts WHERE provider = ? AND owner = ? ORDER BY created_at, rowid LIMIT 1)`,
          )
          .run(row.provider, row.owner);
      }
      return row;
    });
    return toAccount(removeTx.immediate());
  }

  async rename(ref: string, label: string): Promise<Account> {
    const newLabel = checkLabel(label);
    const renameTx = this.db.transaction((): AccountRow => {
      const row = this.requireRow(ref);
      const holder = this.labelHolder(row.provider, newLabel);
      if (holder && holder.id !== row.id) throw this.labelCollision(row.provider, newLabel);
      this.db.prepare('UPDATE accounts SET label = ? WHERE id = ?').run(newLabel, row.id);
      return this.rowById(row.id)!;
    });
    return this.view(renameTx.immediate());
  }

  async setDefault(ref: string): Promise<Account> {
    const setDefaultTx = this.db.transaction((): AccountRow => {
      const row = this.requireRow(ref);
      this.db.prepare('UPDATE accounts SET is_default = 0 WHERE provider = ? AND owner = ? AND is_default = 1').run(row.provider, row.owner);
      this.db.prepare('UPDATE accounts SET is_default = 1 WHERE id = ?').run(row.id);
      return this.rowById(row.id)!;
    });
    return this.view(setDefaultTx.immediate());
  }

  async share(ref: string, grantee: string): Promise<Account> {
    const tx = this.db.transaction((): AccountRow => {
      const row = this.requireRow(ref);
      this.db.prepare('INSERT OR IGNORE INTO account_grants (account_id, grantee, created_at) VALUES (?, ?, ?)').run(row.id, grantee, new Date().toISOString());
      return row;
    });
    return this.view(tx.immediate());
  }

  async unshare(ref: string, grantee: string): Promise<{ account: Account; removed: boolean }> {
    const tx = this.db.transaction(() => {
      const row = this.requireRow(ref);
      const removed = this.db.prepare('DELETE FROM account_grants WHERE account_id = ? AND grantee = ?').run(row.id, grantee).changes > 0;
      return { account: this.view(row), removed };
    });
    return tx.immediate();
  }

  async grants(): Promise<AccountGrant[]> {
    const rows = this.db
      .prepare(`SELECT g.account_id, g.grantee FROM account_grants g JOIN accounts a ON a.id = g.account_id WHERE (@owner IS NULL OR a.owner = @owner) ORDER BY g.created_at, g.account_id, g.grantee`)
      .all(this.scope) as Array<{ account_id: string; grantee: string }>;
    return rows.map((r) => ({ accountId: r.account_id, grantee: r.grantee }));
  }

  /** Signs an existing account in again: new secret, identity, groups, scopes and meta; active again; same id, label and triggers. */
  async reconnect(id: string, input: Omit<NewAccount, 'provider' | 'label'>): Promise<Account> {
    const tx = this.db.transaction((): AccountRow => {
      this.guard();
      const row = this.ownRowById(id);
      if (!row) throw unknownId(id);
      const meta = { ...(JSON.parse(row.meta_json) as Record<string, string>), ...input.meta };
      this.db
        .prepare(
          `UPDATE accounts SET identity = ?, groups_json = ?, scopes_json = ?, meta_json = ?, secret_enc = ?, status = 'active' WHERE id = ?`,
        )
        .run(
          input.identity ?? row.identity,
          JSON.stringify(input.groups ?? JSON.parse(row.groups_json)),
          JSON.stringify(input.scopes ?? JSON.parse(row.scopes_json)),
          JSON.stringify(meta),
          encryptSecret(this.key, JSON.stringify(input.secret), id),
          id,
        );
      return this.rowById(id)!;
    });
    return this.view(tx.immediate());
  }

  async updateSecret(id: string, secret: AccountSecret): Promise<void> {
    const update = this.db.transaction(() => {
      this.guard();
      return this.db.prepare(`UPDATE accounts SET secret_enc = ? WHERE id = ? AND ${VISIBLE}`).run(encryptSecret(this.key, JSON.stringify(secret), id), id, this.scope);
    });
    if (update.immediate().changes === 0) throw unknownId(id);
  }

  async setStatus(id: string, status: AccountStatus): Promise<void> {
    checkStatus(status);
    const result = this.db.prepare(`UPDATE accounts SET status = ? WHERE id = ? AND ${VISIBLE}`).run(status, id, this.scope);
    if (result.changes === 0) throw unknownId(id);
  }

  // Silent when the account is gone: a concurrent remove must not fail a tool call that already succeeded.
  // At most one write a minute per account.
  async touch(id: string): Promise<void> {
    const now = Date.now();
    if (now - (this.touched.get(id) ?? 0) < TOUCH_INTERVAL_MS) return;
    this.touched.set(id, now);
    this.db.prepare('UPDATE accounts SET last_used_at = ? WHERE id = ?').run(new Date(now).toISOString(), id);
  }

  /** Whose default a call without `account` uses: the view's owner's; the personal owner's when every owner's accounts are read. */
  private get defaultOwner(): string {
    return this.owner ?? PERSONAL_OWNER;
  }

  /** Every account of a provider the view's owner may use. */
  private usable(provider: string): AccountRow[] {
    return this.db.prepare(`SELECT * FROM accounts WHERE provider = @provider AND ${VISIBLE} ${ORDER}`).all({ ...this.scope, provider }) as AccountRow[];
  }

  /** An account as the view's owner sees it: default when a call without `account` uses it; marked when it is another's, shared with them. */
  private view(row: AccountRow): Account {
    return this.marked(row, defaultAmong(this.usable(row.provider), this.defaultOwner)?.id === row.id);
  }

  /** Accounts as the view's owner sees them; `rows` must hold every usable account of each provider among them. */
  private views(rows: AccountRow[]): Account[] {
    return withDefaults(rows, this.defaultOwner).map(({ row, isDefault }) => this.marked(row, isDefault));
  }

  private marked(row: AccountRow, isDefault: boolean): Account {
    const account = { ...toAccount(row), isDefault };
    return this.owner !== undefined && row.owner !== this.owner ? { ...account, shared: true } : account;
  }

  private rowById(id: string, which = VISIBLE): AccountRow | undefined {
    return this.db.prepare(`SELECT * FROM accounts WHERE id = ? AND ${which}`).get(id, this.scope) as AccountRow | undefined;
  }

  private ownRowById(id: string): AccountRow | undefined {
    return this.rowById(id, OWN);
  }

  /** By id or label among the accounts `which` allows; a label names the owner's own account before a shared one. */
  private findRow(ref: string, provider?: Provider, which = VISIBLE): AccountRow | undefined {
    const byId = this.rowById(ref, which);
    if (byId && (provider === undefined || byId.provider === provider)) return byId;
    const trimmed = ref.trim();
    if (provider !== undefined) return this.labelHolder(provider, trimmed, which);
    const matches = this.db.prepare(`SELECT * FROM accounts WHERE lower(label) = lower(?) AND ${which} ORDER BY ${OWN_FIRST}, provider, created_at, rowid`).all(trimmed, this.scope) as AccountRow[];
    const providers = new Set(matches.map((m) => m.provider));
    if (providers.size > 1) throw labelOfSeveralProviders(trimmed, matches.map(toAccount));
    return matches[0];
  }

  /** An account the owner may change (their own), by id or label. */
  private requireRow(ref: string, provider?: Provider): AccountRow {
    const row = this.findRow(ref, provider, OWN);
    if (row) return row;
    throw noSuchAccount(ref, (this.db.prepare(`SELECT * FROM accounts WHERE ${OWN} ${ORDER}`).all(this.scope) as AccountRow[]).map(toAccount));
  }

  /** Whether the owner has chosen a default among their own accounts of a provider (their first becomes it). */
  private hasOwnDefault(provider: string): boolean {
    return this.db.prepare(`SELECT 1 FROM accounts WHERE provider = ? AND is_default = 1 AND ${OWN_DEFAULT}`).get(provider, this.scope) !== undefined;
  }

  private labelHolder(provider: string, label: string, which = OWN): AccountRow | undefined {
    return this.db.prepare(`SELECT * FROM accounts WHERE provider = ? AND lower(label) = lower(?) AND ${which} ORDER BY ${OWN_FIRST}`).get(provider, label, this.scope) as
      | AccountRow
      | undefined;
  }

  private labelTaken(provider: string, label: string): boolean {
    return this.labelHolder(provider, label) !== undefined;
  }

  private labelCollision(provider: string, label: string) {
    return labelCollision(provider, label, this.freeLabel(provider, label));
  }

  private freeLabel(provider: string, base: string): string {
    return freeLabel(base, (label) => this.labelTaken(provider, label));
  }
}
