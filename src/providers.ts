/**
 * Everything the code outside a provider's connector and sandbox needs to know about it, as data: config, accounts,
 * the page, the store and errors read it here, so a provider is named once. Imports nothing.
 */

export type CredentialKind = 'token' | 'api_key';

/** What an account of a provider may take besides its credential: a Vercel team, a sales API dialect, permission groups. */
export type AccountOption = 'team' | 'dialect' | 'groups';

export interface OAuthRecord {
  /** Whose authorization server it is, in messages ("Microsoft's authorization server refused..."). */
  title: string;
  /** The authorization server's default base; `{tenant}` stands for SWITCHBOARD_<P>_TENANT. */
  url: string;
  /** Endpoint paths under the base; without `authorization`, the browser signs in on the install page. */
  paths: { authorization?: string; token: string; device?: string };
  /** Where a person enters a device sign-in's code: the page the device authorization's answer names. */
  deviceVerificationPage?: string;
  /** Where the browser signs in when that is not under the base; `{slug}` is the integration's slug. */
  installPage?: string;
  /** Scopes asked for on every sign-in (besides those of the permission groups chosen). */
  scopes: readonly string[];
  /** Extra query parameters of the authorization URL. */
  authorizeParams?: Readonly<Record<string, string>>;
  /** A refresh names the scopes again. */
  scopesOnRefresh?: boolean;
  /** The account keeps the scopes asked for rather than those the token answer lists. */
  keepRequestedScopes?: boolean;
  /** The token endpoint answers its errors with status 200. */
  errorsWithStatus200?: boolean;
  /** The app registration has a client secret to check when the client is refused. */
  clientSecret: boolean;
}

export interface ProviderRecord {
  id: string;
  /** How the Integrations page names it. */
  title: string;
  /** How its connector and tool titles name it ("Outlook API call"). */
  toolTitle: string;
  /** Who answers, in error messages. */
  apiTitle: string;
  baseUrl: string;
  /** Its settings are SWITCHBOARD_<P>_BASE_URL, _OAUTH_URL, _CLIENT_ID...: this is the prefix. */
  envPrefix: string;
  credential: CredentialKind;
  /** What the credential is, under the page's token field. */
  tokenHelp: string;
  /** An account's own base URL, as an example. */
  baseUrlExample: string;
  /** When an account may live on another host: the page's hint for its API base URL field. */
  baseUrlHint?: string;
  /** Where the API lives under a bare host (`{host}`), when a bare host is certainly wrong; not for hosts starting with `unlessHostStartsWith`. */
  bareHostHint?: { text: string; unlessHostStartsWith?: string };
  accountOptions: readonly AccountOption[];
  /** A team server's people may sign in with it: the scopes that show who they are, and the one that shows their organizations. */
  teamSignIn?: { scopes: readonly string[]; organizationScope?: string };
  /** Permission groups, each with the scopes that grant it, and those an account gets when none are named. */
  permissionGroups?: { scopes: Readonly<Record<string, readonly string[]>>; defaults: readonly string[] };
  oauth?: OAuthRecord;
}

/** The specification's Outlook permission groups (section 5), each with the Graph scopes that grant it. */
export const OUTLOOK_PERMISSION_GROUPS = {
  mail: ['Mail.ReadWrite', 'Mail.Send'],
  calendar: ['Calendars.ReadWrite'],
  contacts: ['Contacts.ReadWrite'],
  'mailbox-settings': ['MailboxSettings.ReadWrite'],
  'team-collaboration': ['OnlineMeetingTranscript.Read.All', 'MailboxSettings.Read'],
} as const;

export const PROVIDER_RECORDS = {
  outlook: {
    id: 'outlook',
    title: 'Microsoft Outlook',
    toolTitle: 'Outlook',
    apiTitle: 'Microsoft Graph',
    baseUrl: 'https://graph.microsoft.com/v1.0',
    envPrefix: 'SWITCHBOARD_OUTLOOK',
    credential: 'token',
    tokenHelp: 'A Microsoft Graph access token (short-lived; sign-in is better).',
    baseUrlExample: 'https://graph.microsoft.us/v1.0',
    baseUrlHint: 'A national cloud, e.g. https://graph.microsoft.us/v1.0. Leave empty for graph.microsoft.com.',
    bareHostHint: { text: "Microsoft Graph's base URL ends in its version: give https://{host}/v1.0" },
    accountOptions: ['groups'],
    teamSignIn: { scopes: ['User.Read'] },
    permissionGroups: { scopes: OUTLOOK_PERMISSION_GROUPS, defaults: ['mail', 'calendar', 'contacts', 'mailbox-settings'] },
    oauth: {
      title: 'Microsoft',
      url: 'https://login.microsoftonline.com/{tenant}/oauth2/v2.0',
      paths: { authorization: '/authorize', token: '/token', device: '/devicecode' },
      deviceVerificationPage: 'https://microsoft.com/devicelogin',
      // Always User.Read (who signed in) and offline_access (a refresh token).
      scopes: ['offline_access', 'User.Read'],
      authorizeParams: { response_mode: 'query', prompt: 'select_account' },
      scopesOnRefresh: true,
      // Outlook lists what it granted without offline_access; keep what was asked for so a refresh asks the same.
      keepRequestedScopes: true,
      clientSecret: false,
    },
  },
  sales: {
    id: 'sales',
    title: 'Sales intelligence',
    toolTitle: 'Sales intelligence',
    apiTitle: 'The sales-intelligence API',
    baseUrl: 'https://api.lusha.com',
    envPrefix: 'SWITCHBOARD_SALES',
    credential: 'api_key',
    tokenHelp: 'The API key from your sales-intelligence account settings.',
    baseUrlExample: 'https://api.lusha.com',
    accountOptions: ['dialect'],
  },
  github: {
    id: 'github',
    title: 'GitHub',
    toolTitle: 'GitHub',
    apiTitle: 'GitHub',
    baseUrl: 'https://api.github.com',
    envPrefix: 'SWITCHBOARD_GITHUB',
    credential: 'token',
    tokenHelp: 'A personal access token (fine-grained or classic).',
    baseUrlExample: 'https://ghe.example.com/api/v3',
    baseUrlHint: 'GitHub Enterprise Server: https://HOST/api/v3. Leave empty for github.com.',
    // GitHub Enterprise Server serves REST under /api/v3; github.com and GHE.com (api.<subdomain>.ghe.com) at the root of an api. host.
    bareHostHint: { text: 'GitHub Enterprise Server serves its API under /api/v3: give https://{host}/api/v3', unlessHostStartsWith: 'api.' },
    accountOptions: [],
    teamSignIn: { scopes: ['read:user', 'user:email'], organizationScope: 'read:org' },
    oauth: {
      title: 'GitHub',
      url: 'https://github.com',
      paths: { authorization: '/login/oauth/authorize', token: '/login/oauth/access_token', device: '/login/device/code' },
      deviceVerificationPage: 'https://github.com/login/device',
      // What the tools and triggers need of an OAuth app (GitHub Apps ignore scopes and use the app's permissions).
      scopes: ['repo', 'workflow', 'gist', 'project', 'read:org'],
      errorsWithStatus200: true,
      clientSecret: true,
    },
  },
  vercel: {
    id: 'vercel',
    title: 'Vercel',
    toolTitle: 'Vercel',
    apiTitle: 'Vercel',
    baseUrl: 'https://api.vercel.com',
    envPrefix: 'SWITCHBOARD_VERCEL',
    credential: 'token',
    tokenHelp: 'An access token from Vercel account settings.',
    baseUrlExample: 'https://api.vercel.com',
    accountOptions: ['team'],
    oauth: {
      title: 'Vercel',
      // Integrations sign in on their install page and exchange the code at /v2/oauth/access_token.
      url: 'https://api.vercel.com/v2/oauth',
      paths: { token: '/access_token' },
      installPage: 'https://vercel.com/integrations/{slug}/new',
      scopes: [],
      clientSecret: true,
    },
  },
} as const satisfies Record<string, ProviderRecord>;

export type Provider = keyof typeof PROVIDER_RECORDS;
export const PROVIDERS = Object.keys(PROVIDER_RECORDS) as readonly Provider[] as readonly [Provider, ...Provider[]];

/** The providers that sign in with OAuth. */
export type OAuthProvider = { [P in Provider]: (typeof PROVIDER_RECORDS)[P] extends { oauth: OAuthRecord } ? P : never }[Provider];
export const OAUTH_PROVIDERS = PROVIDERS.filter((p): p is OAuthProvider => 'oauth' in PROVIDER_RECORDS[p]);

/** A provider's record, read as the common shape. */
export function providerRecord(provider: Provider): ProviderRecord {
  return PROVIDER_RECORDS[provider];
}

/** The record of a provider named in free text (an error's connector), if it is one. */
export function findProviderRecord(name: string): ProviderRecord | undefined {
  return Object.hasOwn(PROVIDER_RECORDS, name) ? PROVIDER_RECORDS[name as Provider] : undefined;
}

/** Those of `providers` whose app registration is complete: a client id, and the client secret where the record wants one. */
export function registeredApps<P extends OAuthProvider>(providers: readonly P[], apps: Record<P, { clientId?: string; clientSecret?: string }>): P[] {
  return providers.filter((p) => apps[p].clientId && (!oauthRecord(p).clientSecret || apps[p].clientSecret));
}

/** An OAuth provider's sign-in settings. */
export function oauthRecord(provider: OAuthProvider): OAuthRecord {
  return PROVIDER_RECORDS[provider].oauth;
}
