import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import type { TokenProvider } from '../contracts/accounts.js';
import { AccountError, ProviderError, reconnectMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { Redactor } from '../redact.js';
import { instruments } from '../telemetry/metrics.js';
import type { Account, AccountSecret, Store } from '../store/types.js';
import { isOAuthProvider, OAuthGrantError, OAuthServer, secretFromTokens, type OAuthProvider, type OAuthSettings } from './oauth.js';

export interface TokenRefresherOptions {
  store: Store;
  oauth: Record<OAuthProvider, OAuthSettings>;
  redactor?: Redactor;
  logger?: Logger;
  now?: () => number;
  /** Refresh when less than this is left (default 2 minutes). */
  skewMs?: number;
  /** How long the cross-process refresh lease lives if its holder dies (default 30 s). */
  leaseMs?: number;
  /** How long to wait for another process's refresh (default 45 s). */
  waitMs?: number;
}

/**
 * Refreshes OAuth access tokens: one refresh at a time per account, in this process (shared promise)
 * and across processes (the store lease `refresh:<accountId>`). Whoever holds the lease re-reads the
 * secret first, so a token another process just refreshed is used instead of refreshing again; a
 * rotated refresh token is stored together with its access token, in one write.
 */
export class TokenRefresher implements TokenProvider {
  private readonly inflight = new Map<string, Promise<AccountSecret>>();
  private readonly holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly now: () => number;

  constructor(private readonly o: TokenRefresherOptions) {
    this.now = o.now ?? Date.now;
  }

  async fresh(account: Account, secret: AccountSecret, signal?: AbortSignal): Promise<AccountSecret> {
    if (!this.refreshable(account, secret) || !this.expiring(secret)) return secret;
    return this.refresh(account, secret, signal);
  }

  async renew(account: Account, rejected: AccountSecret, signal?: AbortSignal): Promise<AccountSecret | undefined> {
    if (!this.refreshable(account, rejected)) return undefined;
    return this.refresh(account, rejected, signal);
  }

  private refreshable(account: Account, secret: AccountSecret): boolean {
    return secret.kind === 'oauth' && !!secret.refreshToken && isOAuthProvider(account.provider);
  }

  private expiring(secret: AccountSecret): boolean {
    return secret.expiresAt !== undefined && secret.expiresAt - this.now() < (this.o.skewMs ?? 120_000);
  }

  private refresh(account: Account, seen: AccountSecret, signal?: AbortSignal): Promise<AccountSecret> {
    const running = this.inflight.get(account.id);
    if (running) return running;
    const started = this.refreshUnderLease(account, seen, signal).finally(() => this.inflight.delete(account.id));
    this.inflight.set(account.id, started);
    return started;
  }

  private async refreshUnderLease(account: Account, seen: AccountSecret, signal?: AbortSignal): Promise<AccountSecret> {
    const { store } = this.o;
    const lease = `refresh:${account.id}`;
    const deadline = this.now() + (this.o.waitMs ?? 45_000);
    while (!(await store.leases.acquire(lease, this.holder, this.o.leaseMs ?? 30_000))) {
      if (this.now() > deadline) {
        throw new ProviderError({
          connector: account.provider,
          status: 0,
          method: 'POST',
          path: 'token refresh',
          providerMessage: 'another Switchboard process has been refreshing this account\'s token for too long; retry in a minute',
        });
      }
      await delay(50, undefined, { signal });
    }
    try {
      // Whoever refreshed while this process waited has stored the result: use it.
      const { account: latest, secret: current } = await store.accounts.resolve(account.provider, account.id);
      if (current.token !== seen.token && !(current.expiresAt !== undefined && current.expiresAt <= this.now())) return current;
      if (current.kind !== 'oauth' || !current.refreshToken) return current;
      const provider = account.provider as OAuthProvider;
      const server = new OAuthServer(provider, this.o.oauth[provider], this.o.redactor);
      let tokens;
      try {
        tokens = await server.refresh(current.refreshToken, latest.scopes, signal);
      } catch (error) {
        if (error instanceof OAuthGrantError && error.grantRevoked) {
          await store.accounts.setStatus(account.id, 'needs_reconnect');
          instruments()?.reconnectRequired.add(1, { 'switchboard.provider': provider });
          this.o.logger?.warn('token refresh refused; account needs reconnecting', { provider, account: account.id, error: error.oauthError });
          throw new AccountError(reconnectMessage(latest), { provider: latest.provider, label: latest.label });
        }
        throw error;
      }
      const next = secretFromTokens(tokens, this.now(), current.refreshToken);
      await store.accounts.updateSecret(account.id, next);
      this.o.logger?.debug('token refreshed', { provider, account: account.id, rotated: tokens.refreshToken !== undefined });
      return next;
    } finally {
      await store.leases.release(lease, this.holder);
    }
  }
}
