import { setTimeout as delay } from 'node:timers/promises';
import { InputError } from '../errors.js';
import type { Account, Provider } from '../store/types.js';
import { accountGroups } from './commands.js';
import { DEVICE_PROVIDERS, OAuthGrantError, OAuthServer, requestedScopes, requireOAuthProvider } from './oauth.js';
import { storeSignIn, type SignInDeps } from './sign-in.js';

export interface DevicePrompt {
  userCode: string;
  verificationUri: string;
  /** Seconds the code stays valid. */
  expiresIn: number;
  /** The provider's own instruction (Microsoft sends one). */
  message?: string;
}

export interface DeviceOptions {
  groups?: string[];
  label?: string;
  /** Shows the code and the address to the person. */
  prompt(p: DevicePrompt): void;
  signal?: AbortSignal;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Seconds added to the interval on slow_down (RFC 8628: 5). */
  slowDownSeconds?: number;
}

/** Device code sign-in (RFC 8628) for Outlook and GitHub: show the code, poll until approved, store the account. */
export async function deviceSignIn(deps: SignInDeps, provider: Provider, o: DeviceOptions): Promise<Account> {
  const p = requireOAuthProvider(provider);
  if (!DEVICE_PROVIDERS.includes(p)) throw new InputError(`${p} has no device sign-in; use --browser instead.`, 'device');
  const server = new OAuthServer(p, deps.oauth[p], deps.redactor);
  const groups = accountGroups(p, o.groups);
  const scopes = requestedScopes(p, groups);
  const sleep = o.sleep ?? ((ms: number, signal?: AbortSignal) => delay(ms, undefined, { signal }));
  const now = deps.now ?? Date.now;
  const started = await server.deviceAuthorization(scopes, o.signal);
  deps.redactor?.add(started.device_code);
  o.prompt({ userCode: started.user_code, verificationUri: started.verification_uri, expiresIn: started.expires_in, message: typeof started.message === 'string' ? started.message : undefined });
  const deadline = now() + started.expires_in * 1000;
  let interval = typeof started.interval === 'number' && started.interval >= 0 ? started.interval : 5;
  for (;;) {
    if (now() >= deadline) throw new InputError('The sign-in code expired before it was entered; run the command again for a new one.', 'device');
    await sleep(interval * 1000, o.signal);
    try {
      const tokens = await server.deviceToken(started.device_code, o.signal);
      return await storeSignIn(deps, p, tokens, {
        signIn: 'device',
        groups: o.groups?.length ? groups : undefined,
        label: o.label,
        requested: scopes,
        now: now(),
        tenant: deps.oauth[p].tenant,
      });
    } catch (error) {
      if (!(error instanceof OAuthGrantError)) throw error;
      if (error.oauthError === 'authorization_pending') continue;
      if (error.oauthError === 'slow_down') {
        const told = Number(error.details.interval);
        interval = Number.isFinite(told) && told > interval ? told : interval + (o.slowDownSeconds ?? 5);
        continue;
      }
      if (error.oauthError === 'expired_token') throw new InputError('The sign-in code expired before it was entered; run the command again for a new one.', 'device');
      if (error.oauthError === 'access_denied' || error.oauthError === 'authorization_declined') {
        throw new InputError('The sign-in was declined on the verification page; nothing was stored.', 'device');
      }
      if (error.oauthError === 'device_flow_disabled') {
        throw new InputError('Device sign-in is not enabled for this GitHub app: enable "Device Flow" in its settings, or use --browser.', 'device');
      }
      throw error;
    }
  }
}
