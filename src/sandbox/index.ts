import type { NewAccount, Provider } from '../store/types.js';
import { GITHUB_SAMPLE_TOKEN, createGithubState, githubRoutes, type GithubState } from './github.js';
import { OUTLOOK_SAMPLE_TOKEN, createOutlookState, outlookRoutes, type OutlookState } from './outlook.js';
import { SALES_SAMPLE_KEY, createSalesState, salesRoutes, type SalesState } from './sales.js';
import { startSandboxServer, type SandboxServer } from './server.js';
import { VERCEL_SAMPLE_TOKEN, createVercelState, vercelRoutes, type VercelState } from './vercel.js';

export { startSandboxServer, type Routes, type SandboxHandler, type SandboxRequest, type SandboxResponse, type SandboxServer } from './server.js';
export { createGithubState, githubRoutes, type GithubState } from './github.js';
export { createOutlookState, outlookRoutes, type OutlookState } from './outlook.js';
export { deliverEmail, expireDeltaTokens } from './outlook.delta.js';
export { OUTLOOK_PERSONAL_TOKEN } from './outlook.calendar.js';
export { createSalesState, salesRoutes, type SalesState } from './sales.js';
export { createVercelState, vercelRoutes, type VercelState } from './vercel.js';

/** Bearer tokens the sample accounts use at the Graph, GitHub and Vercel sandboxes. */
export const SANDBOX_TOKENS = {
  outlook: OUTLOOK_SAMPLE_TOKEN,
  github: GITHUB_SAMPLE_TOKEN,
  vercel: VERCEL_SAMPLE_TOKEN,
} as const;

/** API keys the sample accounts use (the sales API takes `api_key`). */
export const SANDBOX_API_KEYS = { sales: SALES_SAMPLE_KEY } as const;

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
  close(): Promise<void>;
}

export interface SandboxOptions {
  ports?: Partial<Record<Provider, number>>;
}

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
  const ports = options.ports ?? {};
  const started: SandboxServer[] = [];
  try {
    const start = async (name: Provider, routes: Parameters<typeof startSandboxServer>[1]) => {
      const server = await startSandboxServer(name, routes, ports[name] ?? 0);
      started.push(server);
      return server;
    };
    const servers: Record<Provider, SandboxServer> = {
      outlook: await start('outlook', outlookRoutes(states.outlook)),
      sales: await start('sales', salesRoutes(states.sales)),
      github: await start('github', githubRoutes(states.github)),
      vercel: await start('vercel', vercelRoutes(states.vercel)),
    };
    return {
      servers,
      states,
      baseUrls: {
        outlook: `${servers.outlook.url}/v1.0`,
        sales: servers.sales.url,
        github: servers.github.url,
        vercel: servers.vercel.url,
      },
      accounts: sandboxAccounts(),
      close: async () => {
        await Promise.all(started.map((s) => s.close()));
      },
    };
  } catch (error) {
    await Promise.all(started.map((s) => s.close()));
    throw error;
  }
}
