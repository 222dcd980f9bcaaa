import { OAUTH_PROVIDERS, type OAuthProvider, type OAuthSettings } from '../config.js';
import { PROVIDERS } from '../providers.js';
import type { NewAccount, Provider } from '../store/types.js';
import { GITHUB_SAMPLE_TOKEN, createGithubState, githubRoutes, type GithubState } from './github/routes.js';
import { OUTLOOK_SAMPLE_TOKEN, createOutlookState, outlookRoutes, type OutlookState } from './outlook/routes.js';
import { createOAuthSandbox, SANDBOX_OAUTH_CLIENTS, TokenSet, type OAuthSandbox } from './oauth/state.js';
import { OUTLOOK_PERSONAL_TOKEN } from './outlook/calendar.js';
import { PERSONAL_USER } from './outlook/calendar.data.js';
import { oauthRoutes } from './oauth/routes.js';
import { sandboxOAuthSettings } from './oauth/endpoints.js';
import { SALES_SAMPLE_KEY, createSalesState, salesRoutes, type SalesState } from './sales/routes.js';
import type { Logger } from '../log.js';
import { startSandboxServer, type Routes, type SandboxRequest, type SandboxServer } from './server.js';
import { apiBasePath } from './util.js';
import { VERCEL_SAMPLE_TOKEN, createVercelState, vercelRoutes, type VercelState } from './vercel/routes.js';

export { reportMiss, startSandboxServer, takeMisses, type Routes, type SandboxExchange, type SandboxHandler, type SandboxRequest, type SandboxResponse, type SandboxServer } from './server.js';
export { createGithubState, githubEnterpriseRoutes, githubRoutes, type GithubState } from './github/routes.js';
export { createOutlookState, outlookRoutes, type OutlookState } from './outlook/routes.js';
export { deliverEmail, expireDeltaTokens, slowDelta } from './outlook/delta.js';
export { dropNotifications, grantSubscriptionsFor, liveSubscriptions, sendLifecycle, settleNotifications, subscriptionSide, type SbxSubscription } from './outlook/subscriptions.js';
export { OUTLOOK_PERSONAL_TOKEN } from './outlook/calendar.js';
export { createSalesState, salesRoutes, type SalesState } from './sales/routes.js';
export { createVercelState, vercelRoutes, type VercelState } from './vercel/routes.js';
export { createOAuthSandbox, redirectUriRegistered, SANDBOX_OAUTH_CLIENTS, TokenSet, type OAuthSandbox, type SandboxClient } from './oauth/state.js';
export { oauthRoutes } from './oauth/routes.js';

/** Bearer tokens the sample accounts use at the Graph, GitHub and Vercel sandboxes. */
export const SANDBOX_TOKENS = {
  outlook: OUTLOOK_SAMPLE_TOKEN,
  github: GITHUB_SAMPLE_TOKEN,
  vercel: VERCEL_SAMPLE_TOKEN,
} as const;

/** API keys the sample accounts use (the sales API takes `api_key`). */
export const SANDBOX_API_KEYS = { sales: SALES_SAMPLE_KEY } as const;

/** A credential the stand-ins accept: a public sample value, shown in sandbox mode only. */
export interface SandboxCredential {
  provider: Provider;
  kind: 'token' | 'API key' | 'OAuth app';
  /** The token or key; for an OAuth app, its client id. */
  value: string;
  /** Whom it stands for, or what uses it. */
  who: string;
}

/** Every credential the stand-ins accept besides the tokens their sign-ins issue. */
export function sandboxCredentials(): SandboxCredential[] {
  const app = (p: OAuthProvider): SandboxCredential => {
    const { id, secret } = SANDBOX_OAUTH_CLIENTS[p];
    return { provider: p, kind: 'OAuth app', value: id, who: secret ? `client id; its secret is ${secret}` : 'client id of a public client (no secret)' };
  };
  return [
    { provider: 'outlook', kind: 'token', value: SANDBOX_TOKENS.outlook, who: SANDBOX_IDENTITIES.outlook },
    { provider: 'outlook', kind: 'token', value: OUTLOOK_PERSONAL_TOKEN, who: `${PERSONAL_USER.mail}, a personal account` },
    { provider: 'github', kind: 'token', value: SANDBOX_TOKENS.github, who: SANDBOX_IDENTITIES.github },
    { provider: 'vercel', kind: 'token', value: SANDBOX_TOKENS.vercel, who: `${SANDBOX_IDENTITIES.vercel} (with --team sbx-team, its team)` },
    { provider: 'sales', kind: 'API key', value: SANDBOX_API_KEYS.sales, who: 'the sample sales account' },
    ...OAUTH_PROVIDERS.map(app),
  ];
}

/** Who the sample credentials belong to. */
export const SANDBOX_IDENTITIES = {
  outlook: 'avery@contoso.example',
  github: 'sbx-octocat',
  vercel: 'sbx-vercel',
  sales: null,
} as const;

export interface SandboxStates {
  outlook: OutlookState;
  sales: SalesState;
  github: GithubState;
  vercel: VercelState;
}

export interface Sandbox {
  servers: Record<Provider, SandboxServer>;
  states: SandboxStates;
  /** What a connector's base URL becomes; Outlook's ends in /v1.0 like Graph's. */
  baseUrls: Record<Provider, string>;
  /** One sample account per provider, secret included, ready for `store.accounts.add`. */
  accounts: NewAccount[];
  /** Each OAuth provider's sandbox authorization server (served by that provider's sandbox): state and controls. */
  oauth: Record<OAuthProvider, OAuthSandbox>;
  /** What `config.oauth` becomes against this sandbox: its endpoints and registered client ids. */
  oauthSettings: Record<OAuthProvider, OAuthSettings>;
  close(): Promise<void>;
}

export interface SandboxOptions {
  ports?: Partial<Record<Provider, number>>;
  /** Told of each request no route answers (the stand-in answers it 501). */
  onMiss?: (provider: Provider, request: SandboxRequest) => void;
}

/** Logs each request the stand-ins have no route for: a gap in the sandbox, worth a line where someone looks. */
export function logMisses(logger: Logger): NonNullable<SandboxOptions['onMiss']> {
  return (provider, request) => logger.warn(SANDBOX_MISS, { provider, method: request.method, path: request.path });
}

/** The message of that line, which tests read from a child process's output. */
export const SANDBOX_MISS = 'sandbox has no route';

/** The sample accounts, one per provider. */
export function sandboxAccounts(): NewAccount[] {
  return [
    {
      provider: 'outlook',
      label: 'sandbox',
      identity: SANDBOX_IDENTITIES.outlook,
      groups: ['mail', 'calendar', 'contacts', 'mailbox-settings'],
      scopes: ['Mail.ReadWrite', 'Mail.Send', 'Calendars.ReadWrite', 'Contacts.ReadWrite', 'MailboxSettings.Read', 'User.Read', 'offline_access'],
      meta: { tenant: 'common' },
      secret: { kind: 'token', token: SANDBOX_TOKENS.outlook },
    },
    {
      provider: 'sales',
      label: 'sandbox',
      identity: SANDBOX_IDENTITIES.sales,
      secret: { kind: 'api_key', apiKey: SANDBOX_API_KEYS.sales },
    },
    {
      provider: 'github',
      label: 'sandbox',
      identity: SANDBOX_IDENTITIES.github,
      scopes: ['gist', 'project', 'read:org', 'repo', 'workflow'],
      secret: { kind: 'token', token: SANDBOX_TOKENS.github },
    },
    {
      provider: 'vercel',
      label: 'sandbox',
      identity: SANDBOX_IDENTITIES.vercel,
      secret: { kind: 'token', token: SANDBOX_TOKENS.vercel },
    },
  ];
}

/** Starts the four stand-in providers on 127.0.0.1 (port 0 unless told), each with fresh sample data. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const states: SandboxStates = {
    outlook: createOutlookState(),
    sales: createSalesState(),
    github: createGithubState(),
    vercel: createVercelState(),
  };
  for (const p of OAUTH_PROVIDERS) states[p].tokens = new TokenSet(states[p].tokens);
  const oauth = Object.fromEntries(OAUTH_PROVIDERS.map((p) => [p, createOAuthSandbox(p, states[p].tokens as TokenSet, SANDBOX_IDENTITIES[p])])) as Record<OAuthProvider, OAuthSandbox>;
  const apiRoutes: Record<Provider, Routes> = {
    outlook: outlookRoutes(states.outlook),
    sales: salesRoutes(states.sales),
    github: githubRoutes(states.github),
    vercel: vercelRoutes(states.vercel),
  };
  const ports = options.ports ?? {};
  const started: SandboxServer[] = [];
  try {
    const servers = {} as Record<Provider, SandboxServer>;
    for (const p of PROVIDERS) {
      const signIn = Object.hasOwn(oauth, p) ? oauthRoutes(oauth[p as OAuthProvider]) : {};
      const server = await startSandboxServer(p, { ...apiRoutes[p], ...signIn }, ports[p] ?? 0, options.onMiss && ((request) => options.onMiss!(p, request)));
      started.push(server);
      servers[p] = server;
    }
    return {
      servers,
      states,
      baseUrls: Object.fromEntries(PROVIDERS.map((p) => [p, servers[p].url + apiBasePath(p)])) as Record<Provider, string>,
      accounts: sandboxAccounts(),
      oauth,
      oauthSettings: Object.fromEntries(OAUTH_PROVIDERS.map((p) => [p, sandboxOAuthSettings(p, servers[p].url, oauth[p].client)])) as Record<OAuthProvider, OAuthSettings>,
      close: async () => {
        await Promise.all(started.map((s) => s.close()));
      },
    };
  } catch (error) {
    await Promise.all(started.map((s) => s.close()));
    throw error;
  }
}
