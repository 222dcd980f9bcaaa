import envPaths from 'env-paths';
import { InputError } from './errors.js';
import { keyCommandOf, type KeyCommand } from './key-command.js';
import { teamConfig, type TeamConfig } from './team-settings.js';
import { parseToolList } from './tool-selection.js';
import { OAUTH_PROVIDERS, oauthRecord, type OAuthProvider, PROVIDER_RECORDS, PROVIDERS, type Provider } from './providers.js';
import { didYouMean } from './suggest.js';
import { telemetrySettings, type TelemetrySettings } from './telemetry/settings.js';

/** How long the audit trail keeps records unless SWITCHBOARD_AUDIT_RETENTION_DAYS says otherwise. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;

/** How long the event log keeps events unless SWITCHBOARD_EVENT_RETENTION_DAYS says otherwise. */
export const DEFAULT_EVENT_RETENTION_DAYS = 30;
/** How many MCP Events subscriptions one person may hold unless SWITCHBOARD_EVENTS_MAX_SUBSCRIPTIONS says otherwise. */
export const DEFAULT_EVENTS_MAX_SUBSCRIPTIONS = 100;
/** How many webhook deliveries one person's subscriptions receive per minute unless SWITCHBOARD_EVENTS_MAX_PER_MINUTE says otherwise. */
export const DEFAULT_EVENTS_PER_MINUTE = 600;
/** The shortest lifetime events/subscribe grants, in seconds, unless SWITCHBOARD_EVENTS_MIN_TTL_SECONDS says otherwise. */
export const DEFAULT_EVENTS_MIN_TTL_SECONDS = 300;
/** How many polls one person may make per minute unless SWITCHBOARD_EVENTS_MAX_POLLS_PER_MINUTE says otherwise. */
export const DEFAULT_POLLS_PER_MINUTE = 120;

/** A whole-number setting from 1 to 100000, its default when unset, refused naming the variable otherwise. */
function wholeNumber(env: Record<string, string | undefined>, name: string, fallback: number, what: string): number {
  const text = env[name] || String(fallback);
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < 1 || value > 100_000) throw new InputError(`${name} must be a whole number from 1 to 100000 (${what}), not "${text}".`, name);
  return value;
}

export interface Config {
  dataDir: string;
  /** SWITCHBOARD_DATABASE_URL / --database-url: the store is this PostgreSQL database (shared by instances) instead of SQLite in dataDir. */
  databaseUrl?: string;
  baseUrls: Record<Provider, string>;
  http: { host: string; port: number; publicUrl?: string; token?: string };
  secretKey?: string;
  /** SWITCHBOARD_SECRET_KEY_COMMAND: the command that prints the key; the command line runs it and puts the key in secretKey. */
  secretKeyCommand?: KeyCommand;
  /** Connectors whose tools are listed; all when absent. */
  toolsets?: Provider[];
  /** --tools: only these tool names or globs (added to the toolsets' tools when both are given). */
  tools?: string[];
  /** --exclude-tools: never these tool names or globs. */
  excludeTools?: string[];
  /** `discover`: list only tools_search, tools_describe and tools_call, which reach every tool. */
  toolMode: 'all' | 'discover';
  readOnly: boolean;
  sandbox: boolean;
  transport: 'stdio' | 'http';
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Traces and metrics, from the standard OpenTelemetry environment and SWITCHBOARD_METRICS(_PORT): all off unless set. */
  telemetry: TelemetrySettings;
  /** Days a paid sales lookup is answered from the local cache. */
  salesCacheDays: number;
  /** SWITCHBOARD_EVENT_RETENTION_DAYS: events received longer ago are removed from the log, unless still owed a delivery or a retry. */
  eventRetentionDays: number;
  /** SWITCHBOARD_AUDIT (on unless `off`): every tool call and administrative act is recorded in the audit trail. */
  audit: boolean;
  /** SWITCHBOARD_AUDIT_RETENTION_DAYS: audit records older than this are removed, leaving the chain verifiable. */
  auditRetentionDays: number;
  /** Tokens (o200k_base) one tool result may take before it is cut with a cursor. */
  maxResultTokens: number;
  /** The OAuth apps Switchboard signs in with, per provider; in sandbox mode `serve` replaces them with the sandbox's. */
  oauth: Record<OAuthProvider, OAuthSettings>;
  /** SWITCHBOARD_FORWARD_ALLOW_PRIVATE: triggers may forward to private networks (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7). */
  forwardAllowPrivate: boolean;
  /** On SIGTERM/SIGINT, how long tool calls in flight may take to finish before serve exits anyway. */
  shutdownGraceMs: number;
  /** SWITCHBOARD_POLICY: the governance policy is this file (read at start), and the command line may not change it. */
  policyFile?: string;
  /** SWITCHBOARD_APPROVAL_TTL_MINUTES: how long an approval waits before it expires, unless its rule says (default 15 for the caller, 1440 for an admin). */
  approvalTtlMinutes?: number;
  /** SWITCHBOARD_WEBHOOK_GROUP_COMMIT (on unless 0): webhook deliveries arriving together share one read of their hook and one transaction; off, each has its own. */
  webhookGroupCommit: boolean;
  /** SWITCHBOARD_NEW_SECRET_KEY: the key `secrets rotate` re-encrypts under (else it writes a new key file). */
  newSecretKey?: string;
  /** SWITCHBOARD_EVENTS_ERROR_CODES: the numbering of MCP Events errors, the design sketch's (ChatGPT's) or the SEP draft's. */
  eventsErrorCodes: EventsErrorNumbering;
  /** SWITCHBOARD_EVENTS_MAX_SUBSCRIPTIONS: how many MCP Events subscriptions one person (or the one owner) may hold. */
  eventsMaxSubscriptions: number;
  /** SWITCHBOARD_EVENTS_MAX_PER_MINUTE: webhook deliveries one person's subscriptions receive per minute; more wait. */
  eventsMaxPerMinute: number;
  /** SWITCHBOARD_EVENTS_MAX_POLLS_PER_MINUTE: events/poll requests one person may make per minute. */
  eventsMaxPollsPerMinute: number;
  /** SWITCHBOARD_EVENTS_MIN_TTL_SECONDS: the shortest subscription lifetime granted; a shorter ttlMs is raised to it. */
  eventsMinTtlSeconds: number;
  /** --team / SWITCHBOARD_TEAM=1: MCP over HTTP is an OAuth protected resource; people sign in with GitHub or Microsoft, or at an external issuer. */
  team?: TeamConfig;
}

export { parseTeamRules, type ExternalIssuerConfig, type TeamConfig } from './team-settings.js';
export { OAUTH_PROVIDERS, type OAuthProvider } from './providers.js';

/** One provider's OAuth app and authorization server. Endpoints are the provider's paths under `url`. */
export interface OAuthSettings {
  /** SWITCHBOARD_<P>_OAUTH_URL: the authorization server's base (Outlook: ends in the tenant's /oauth2/v2.0). */
  url: string;
  /** Where the browser signs in when that is not under `url` (Vercel: the integration's install page). */
  authorizeUrl?: string;
  /** SWITCHBOARD_<P>_CLIENT_ID: the app registration's client id. */
  clientId?: string;
  /** SWITCHBOARD_<P>_CLIENT_SECRET, for providers that want one (GitHub web flow, Vercel); never logged. */
  clientSecret?: string;
  /** Outlook: common, organizations, consumers, or a tenant id or domain (SWITCHBOARD_OUTLOOK_TENANT). */
  tenant?: string;
}

/** Flags as parsed from argv; every one is optional. */
export interface Flags {
  http?: boolean;
  host?: string;
  port?: string;
  'public-url'?: string;
  sandbox?: boolean;
  toolsets?: string;
  tools?: string;
  'exclude-tools'?: string;
  'tool-mode'?: string;
  'read-only'?: boolean;
  'data-dir'?: string;
  'database-url'?: string;
  'log-level'?: string;
  'max-result-tokens'?: string;
  'shutdown-grace'?: string;
  /** serve's --team switch (true); `accounts add --team` names a Vercel team instead and is not this. */
  team?: boolean | string;
}

export const EVENTS_ERROR_NUMBERINGS = ['sketch', 'sep'] as const;
export type EventsErrorNumbering = (typeof EVENTS_ERROR_NUMBERINGS)[number];
export const DEFAULT_EVENTS_ERROR_NUMBERING: EventsErrorNumbering = 'sketch';

export const DEFAULT_BASE_URLS = Object.fromEntries(PROVIDERS.map((p) => [p, PROVIDER_RECORDS[p].baseUrl])) as Record<Provider, string>;

/** Flags win over environment, environment over defaults. Pure: reads only its arguments. */
export function loadConfig(env: Record<string, string | undefined>, flags: Flags = {}): Config {
  const baseUrls = { ...DEFAULT_BASE_URLS };
  for (const p of PROVIDERS) {
    const name = `${PROVIDER_RECORDS[p].envPrefix}_BASE_URL`;
    const v = env[name];
    if (v) baseUrls[p] = checkUrl(v, name);
  }
  /** What the person typed a value as: the flag when given, else the environment variable. */
  const named = (flag: keyof Flags, variable: string) => (flags[flag] !== undefined ? `--${flag}` : variable);
  const portText = flags.port ?? env.SWITCHBOARD_PORT ?? '8765';
  const port = Number(portText);
  if (!/^\d+$/.test(portText.trim()) || port > 65535) {
    throw new InputError(`${named('port', 'SWITCHBOARD_PORT')} must be a whole number from 0 to 65535, not "${portText}".`, 'port');
  }
  const publicUrl = flags['public-url'] ?? env.SWITCHBOARD_PUBLIC_URL;
  const publicUrlName = named('public-url', 'SWITCHBOARD_PUBLIC_URL');
  const logLevel = flags['log-level'] ?? env.SWITCHBOARD_LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.includes(logLevel as Config['logLevel'])) {
    throw new InputError(`${named('log-level', 'SWITCHBOARD_LOG_LEVEL')} must be debug, info, warn or error, not "${logLevel}".${didYouMean(logLevel, LOG_LEVELS)}`, 'log-level');
  }
  const cacheDaysText = env.SWITCHBOARD_SALES_CACHE_DAYS ?? '30';
  const salesCacheDays = Number(cacheDaysText);
  if (!Number.isFinite(salesCacheDays) || salesCacheDays < 0 || salesCacheDays > 3650) {
    throw new InputError(`SWITCHBOARD_SALES_CACHE_DAYS must be a number of days from 0 to 3650, not "${cacheDaysText}".`, 'SWITCHBOARD_SALES_CACHE_DAYS');
  }
  const retentionText = env.SWITCHBOARD_EVENT_RETENTION_DAYS || String(DEFAULT_EVENT_RETENTION_DAYS);
  const eventRetentionDays = Number(retentionText);
  if (!/^\d+$/.test(retentionText.trim()) || eventRetentionDays < 1 || eventRetentionDays > 36500) {
    throw new InputError(
      `SWITCHBOARD_EVENT_RETENTION_DAYS must be a whole number of days from 1 to 36500 (how long the event log keeps events), not "${retentionText}".`,
      'SWITCHBOARD_EVENT_RETENTION_DAYS',
    );
  }
  const auditText = (env.SWITCHBOARD_AUDIT ?? '').trim().toLowerCase();
  if (!['', 'on', 'off'].includes(auditText)) throw new InputError(`SWITCHBOARD_AUDIT must be on or off (whether tool calls and administrative acts are recorded), not "${env.SWITCHBOARD_AUDIT}".`, 'SWITCHBOARD_AUDIT');
  const auditRetentionDays = wholeNumber(env, 'SWITCHBOARD_AUDIT_RETENTION_DAYS', DEFAULT_AUDIT_RETENTION_DAYS, 'how many days the audit trail keeps records');
  const eventsMaxSubscriptions = wholeNumber(env, 'SWITCHBOARD_EVENTS_MAX_SUBSCRIPTIONS', DEFAULT_EVENTS_MAX_SUBSCRIPTIONS, 'MCP Events subscriptions per person');
  const eventsMaxPerMinute = wholeNumber(env, 'SWITCHBOARD_EVENTS_MAX_PER_MINUTE', DEFAULT_EVENTS_PER_MINUTE, 'MCP Events webhook deliveries per person and minute');
  const eventsMaxPollsPerMinute = wholeNumber(env, 'SWITCHBOARD_EVENTS_MAX_POLLS_PER_MINUTE', DEFAULT_POLLS_PER_MINUTE, 'events/poll requests per person and minute');
  const eventsMinTtlSeconds = wholeNumber(env, 'SWITCHBOARD_EVENTS_MIN_TTL_SECONDS', DEFAULT_EVENTS_MIN_TTL_SECONDS, 'the shortest subscription lifetime, in seconds');
  if (eventsMinTtlSeconds > 86_400) {
    throw new InputError(`SWITCHBOARD_EVENTS_MIN_TTL_SECONDS must be at most 86400 (a day, the longest lifetime granted), not ${eventsMinTtlSeconds}.`, 'SWITCHBOARD_EVENTS_MIN_TTL_SECONDS');
  }
  const maxTokensText = flags['max-result-tokens'] ?? env.SWITCHBOARD_MAX_RESULT_TOKENS ?? '25000';
  const maxResultTokens = Number(maxTokensText);
  if (!Number.isInteger(maxResultTokens) || maxResultTokens < 1000 || maxResultTokens > 1_000_000) {
    throw new InputError(`--max-result-tokens (SWITCHBOARD_MAX_RESULT_TOKENS) must be a whole number from 1000 to 1000000, not "${maxTokensText}".`, 'max-result-tokens');
  }
  const graceText = flags['shutdown-grace'] ?? env.SWITCHBOARD_SHUTDOWN_GRACE_SECONDS ?? '10';
  const grace = Number(graceText);
  if (!Number.isFinite(grace) || grace < 0 || grace > 3600) {
    throw new InputError(`--shutdown-grace (SWITCHBOARD_SHUTDOWN_GRACE_SECONDS) must be a number of seconds from 0 to 3600, not "${graceText}".`, 'shutdown-grace');
  }
  const team = flags.team === true || parseSwitch(env.SWITCHBOARD_TEAM, 'SWITCHBOARD_TEAM');
  const sandbox = flags.sandbox ?? truthy(env.SWITCHBOARD_SANDBOX);
  return {
    team: team ? teamConfig(env, publicUrl ? { url: new URL(checkUrl(publicUrl, publicUrlName)), given: publicUrl, name: publicUrlName } : undefined, sandbox) : undefined,
    shutdownGraceMs: grace * 1000,
    policyFile: env.SWITCHBOARD_POLICY || undefined,
    approvalTtlMinutes: env.SWITCHBOARD_APPROVAL_TTL_MINUTES ? wholeNumber(env, 'SWITCHBOARD_APPROVAL_TTL_MINUTES', 15, 'minutes an approval waits for a decision') : undefined,
    salesCacheDays,
    eventRetentionDays,
    audit: auditText !== 'off',
    auditRetentionDays,
    maxResultTokens,
    oauth: loadOAuth(env),
    newSecretKey: env.SWITCHBOARD_NEW_SECRET_KEY || undefined,
    forwardAllowPrivate: parseSwitch(env.SWITCHBOARD_FORWARD_ALLOW_PRIVATE, 'SWITCHBOARD_FORWARD_ALLOW_PRIVATE'),
    eventsErrorCodes: parseNumbering(env.SWITCHBOARD_EVENTS_ERROR_CODES),
    eventsMaxSubscriptions,
    eventsMaxPerMinute,
    eventsMaxPollsPerMinute,
    eventsMinTtlSeconds,
    webhookGroupCommit: parseSwitch(env.SWITCHBOARD_WEBHOOK_GROUP_COMMIT || '1', 'SWITCHBOARD_WEBHOOK_GROUP_COMMIT'),
    dataDir: flags['data-dir'] ?? env.SWITCHBOARD_DATA_DIR ?? envPaths('switchboard', { suffix: '' }).data,
    databaseUrl: checkDatabaseUrl(flags['database-url'] ?? (env.SWITCHBOARD_DATABASE_URL || undefined)),
    baseUrls,
    http: {
      host: flags.host ?? env.SWITCHBOARD_HOST ?? '127.0.0.1',
      port,
      publicUrl: publicUrl ? checkUrl(publicUrl, publicUrlName) : undefined,
      token: env.SWITCHBOARD_HTTP_TOKEN || undefined,
    },
    secretKey: env.SWITCHBOARD_SECRET_KEY || undefined,
    secretKeyCommand: keyCommandOf(env),
    toolsets: parseToolsets(flags.toolsets ?? env.SWITCHBOARD_TOOLSETS, named('toolsets', 'SWITCHBOARD_TOOLSETS')),
    tools: parseToolList(flags.tools ?? env.SWITCHBOARD_TOOLS, named('tools', 'SWITCHBOARD_TOOLS')),
    excludeTools: parseToolList(flags['exclude-tools'] ?? env.SWITCHBOARD_EXCLUDE_TOOLS, named('exclude-tools', 'SWITCHBOARD_EXCLUDE_TOOLS')),
    toolMode: parseToolMode(flags['tool-mode'] ?? env.SWITCHBOARD_TOOL_MODE, named('tool-mode', 'SWITCHBOARD_TOOL_MODE')),
    readOnly: flags['read-only'] ?? truthy(env.SWITCHBOARD_READ_ONLY),
    sandbox,
    transport: flags.http ? 'http' : 'stdio',
    logLevel: logLevel as Config['logLevel'],
    telemetry: telemetrySettings(env),
  };
}

const TENANT = /^[A-Za-z0-9][A-Za-z0-9.-]{0,99}$/;
const INTEGRATION_SLUG = /^[a-z0-9][a-z0-9-]{0,99}$/;

function loadOAuth(env: Record<string, string | undefined>): Record<OAuthProvider, OAuthSettings> {
  const tenant = env.SWITCHBOARD_OUTLOOK_TENANT?.trim() || 'common';
  if (!TENANT.test(tenant)) {
    throw new InputError(
      `SWITCHBOARD_OUTLOOK_TENANT must be common, organizations, consumers, or a tenant id or domain, not "${tenant}".`,
      'SWITCHBOARD_OUTLOOK_TENANT',
    );
  }
  const slug = env.SWITCHBOARD_VERCEL_INTEGRATION_SLUG?.trim();
  if (slug && !INTEGRATION_SLUG.test(slug)) {
    throw new InputError(`SWITCHBOARD_VERCEL_INTEGRATION_SLUG must be the integration's URL slug (a-z, 0-9, -), not "${slug}".`, 'SWITCHBOARD_VERCEL_INTEGRATION_SLUG');
  }
  const out = {} as Record<OAuthProvider, OAuthSettings>;
  for (const p of OAUTH_PROVIDERS) {
    const record = oauthRecord(p);
    const name = PROVIDER_RECORDS[p].envPrefix;
    const url = env[`${name}_OAUTH_URL`];
    const tenanted = record.url.includes('{tenant}');
    const defaults: OAuthSettings = {
      url: record.url.replace('{tenant}', tenant),
      ...(tenanted ? { tenant } : {}),
      ...(record.installPage ? { authorizeUrl: slug ? record.installPage.replace('{slug}', slug) : undefined } : {}),
    };
    const base = url ? checkUrl(url, `${name}_OAUTH_URL`) : defaults.url;
    out[p] = {
      ...defaults,
      url: base,
      // An overridden server that signs in on an install page (the sandbox) serves its sign-in page at <url>/authorize.
      ...(record.installPage && url && !slug ? { authorizeUrl: `${base}/authorize` } : {}),
      clientId: env[`${name}_CLIENT_ID`]?.trim() || undefined,
      clientSecret: env[`${name}_CLIENT_SECRET`]?.trim() || undefined,
    };
  }
  return out;
}

const LOG_LEVELS: ReadonlyArray<Config['logLevel']> = ['debug', 'info', 'warn', 'error'];

function parseToolMode(value: string | undefined, name: string): 'all' | 'discover' {
  if (value === undefined || value === 'all') return 'all';
  if (value === 'discover') return 'discover';
  throw new InputError(`${name} must be all or discover, not "${value}".${didYouMean(value, ['all', 'discover'])}`, 'tool-mode');
}

function parseNumbering(value: string | undefined): EventsErrorNumbering {
  const v = value?.trim().toLowerCase() || DEFAULT_EVENTS_ERROR_NUMBERING;
  if ((EVENTS_ERROR_NUMBERINGS as readonly string[]).includes(v)) return v as EventsErrorNumbering;
  throw new InputError(
    `SWITCHBOARD_EVENTS_ERROR_CODES must be sketch (-32011..-32015, what ChatGPT follows; the default) or sep (-32023..-32027, the SEP draft's), not "${value}".${didYouMean(v, EVENTS_ERROR_NUMBERINGS)}`,
    'SWITCHBOARD_EVENTS_ERROR_CODES',
  );
}

function parseToolsets(value: string | undefined, name: string): Provider[] | undefined {
  if (!value) return undefined;
  const names = value.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  for (const n of names) {
    if (!(PROVIDERS as readonly string[]).includes(n)) {
      throw new InputError(`${name}: unknown toolset "${n}"; choose from ${PROVIDERS.join(', ')}.${didYouMean(n, PROVIDERS)}`, 'toolsets');
    }
  }
  return names as Provider[];
}

function checkUrl(value: string, name: string): string {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
    return value.replace(/\/+$/, '');
  } catch {
    throw new InputError(`${name} must be an http(s) URL, not "${value}".`, name);
  }
}

/** A postgres:// URL; the message shows it without its password. */
function checkDatabaseUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const fix = 'use postgres://USER:PASSWORD@HOST:5432/DATABASE (SWITCHBOARD_DATABASE_URL or --database-url)';
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new InputError(`The database URL is not a URL: ${fix}.`, 'database-url');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new InputError(`The database URL must start with postgres:// or postgresql://, not ${url.protocol}//: ${fix}.`, 'database-url');
  }
  if (!url.hostname || url.pathname.length <= 1) {
    throw new InputError(`The database URL must name a host and a database: ${fix}.`, 'database-url');
  }
  return value.trim();
}

function parseSwitch(value: string | undefined, name: string): boolean {
  const v = value?.trim().toLowerCase();
  if (!v || v === '0' || v === 'false') return false;
  if (v === '1' || v === 'true') return true;
  throw new InputError(`${name} must be 1 or 0 (true or false), not "${value}".`, name);
}

function truthy(v: string | undefined): boolean {
  return v === '1' || v?.toLowerCase() === 'true';
}

/** A provider named on the command line or in a form. */
export function checkProvider(value: string | undefined): Provider {
  if (value && (PROVIDERS as readonly string[]).includes(value)) return value as Provider;
  throw new InputError(value ? `Unknown provider "${value}": choose ${PROVIDERS.join(', ')}.${didYouMean(value, PROVIDERS)}` : `Name a provider: ${PROVIDERS.join(', ')}.`, 'provider');
}
