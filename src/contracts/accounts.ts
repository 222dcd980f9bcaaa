import type { Account, AccountSecret, Provider } from '../store/types.js';

/** Keeps OAuth access tokens usable: what connectors' API clients ask before sending and after a 401. */
export interface TokenProvider {
  /** The secret to send now; an OAuth token close to expiry is refreshed first. */
  fresh(account: Account, secret: AccountSecret, signal?: AbortSignal): Promise<AccountSecret>;
  /**
   * The provider refused `rejected` (401): a newer token another process stored, else a refreshed one;
   * undefined when the account cannot be refreshed (a pasted token). Throws AccountError when only a
   * new sign-in helps (the account is then marked needs_reconnect).
   */
  renew(account: Account, rejected: AccountSecret, signal?: AbortSignal): Promise<AccountSecret | undefined>;
}

/**
 * Browser sign-in (authorization code + PKCE) split at the redirect, for the Integrations page's pop-up.
 * `serve` builds one with createSignIn() and hands it out as `ToolDeps.signIn`.
 */
export interface SignInApi {
  /**
   * Starts a sign-in: returns the provider's authorization URL to open and its `state`. The state is kept
   * in the store with its PKCE verifier (encrypted), for 10 minutes, and works once, on any instance of the store. `redirectUri` must be the exact
   * URI the provider's app registration lists (e.g. `http://127.0.0.1:8765/oauth/callback/outlook`).
   */
  /** Starts a browser sign-in whose account will be `owner`'s (PERSONAL_OWNER when not given). */
  beginSignIn(provider: Provider, options: { redirectUri: string; groups?: string[]; label?: string; owner?: string }): Promise<{ url: string; state: string }>;
  /**
   * Finishes it at the redirect: checks the state (and that `redirectUri` is the one it began with),
   * exchanges the code with the verifier, asks the provider who signed in, and stores the account
   * (or reconnects the account with the same label and identity). Throws InputError/AccountError/ProviderError
   * with a message fit to show; never includes the code or a token.
   */
  completeSignIn(provider: Provider, options: { code: string; state: string; redirectUri: string }): Promise<Account>;
}
