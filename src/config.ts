import envPaths from 'env-paths';
import { InputError } from './errors.js';
import { PROVIDERS, type Provider } from './store/types.js';

export interface Config {
  dataDir: string;
  baseUrls: Record<Provider, string>;
  http: { host: string; port: number; publicUrl?: string; token?: string };
  secretKey?: string;
  /** Connectors whose tools are listed; all when absent. */
  toolsets?: Provider[];
  readOnly: boolean;
  sandbox: boolean;
  transport: 'stdio' | 'http';
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Days a paid sales lookup is answered from the local cache. */
  salesCacheDays: number;
}

/** Flags as parsed from argv; every one is optional. */
export interface Flags {
  http?: boolean;
  host?: string;
  port?: string;
  'public-url'?: string;
  sandbox?: boolean;
  toolsets?: string;
  'read-only'?: boolean;
  'data-dir'?: string;
  'log-level'?: string;
}

export const DEFAULT_BASE_URLS: Record<Provider, string> = {
  outlook: 'https://graph.microsoft.com/v1.0',
  sales: 'https://api.lusha.com',
  github: 'https://api.github.com',
  vercel: 'https://api.vercel.com',
};

/** Flags win over environment, environment over defaults. Pure: reads only its arguments. */
export function loadConfig(env: Record<string, string | undefined>, flags: Flags = {}): Config {
  const baseUrls = { ...DEFAULT_BASE_URLS };
  for (const p of PROVIDERS) {
    const v = env[`SWITCHBOARD_${p.toUpperCase()}_BASE_URL`];
    if (v) baseUrls[p] = checkUrl(v, `SWITCHBOARD_${p.toUpperCase()}_BASE_URL`);
  }
  const portText = flags.port ?? env.SWITCHBOARD_PORT ?? '8765';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InputError(`--port must be a whole number from 0 to 65535, not "${portText}".`, 'port');
  }
  const publicUrl = flags['public-url'] ?? env.SWITCHBOARD_PUBLIC_URL;
  const logLevel = flags['log-level'] ?? env.SWITCHBOARD_LOG_LEVEL ?? 'info';
  if (!['debug', 'info', 'warn', 'error'].includes(logLevel)) {
    throw new InputError(`--log-level must be debug, info, warn or error, not "${logLevel}".`, 'log-level');
  }
  const cacheDaysText = env.SWITCHBOARD_SALES_CACHE_DAYS ?? '30';
  const salesCacheDays = Number(cacheDaysText);
  if (!Number.isFinite(salesCacheDays) || salesCacheDays < 0 || salesCacheDays > 3650) {
    throw new InputError(`SWITCHBOARD_SALES_CACHE_DAYS must be a number of days from 0 to 3650, not "${cacheDaysText}".`, 'SWITCHBOARD_SALES_CACHE_DAYS');
  }
  return {
    salesCacheDays,
    dataDir: flags['data-dir'] ?? env.SWITCHBOARD_DATA_DIR ?? envPaths('switchboard', { suffix: '' }).data,
    baseUrls,
    http: {
      host: flags.host ?? env.SWITCHBOARD_HOST ?? '127.0.0.1',
      port,
      publicUrl: publicUrl ? checkUrl(publicUrl, '--public-url') : undefined,
      token: env.SWITCHBOARD_HTTP_TOKEN || undefined,
    },
    secretKey: env.SWITCHBOARD_SECRET_KEY || undefined,
    toolsets: parseToolsets(flags.toolsets ?? env.SWITCHBOARD_TOOLSETS),
    readOnly: flags['read-only'] ?? truthy(env.SWITCHBOARD_READ_ONLY),
    sandbox: flags.sandbox ?? truthy(env.SWITCHBOARD_SANDBOX),
    transport: flags.http ? 'http' : 'stdio',
    logLevel: logLevel as Config['logLevel'],
  };
}

function parseToolsets(value: string | undefined): Provider[] | undefined {
  if (!value) return undefined;
  const names = value.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  for (const n of names) {
    if (!(PROVIDERS as readonly string[]).includes(n)) {
      throw new InputError(`--toolsets: unknown toolset "${n}"; choose from ${PROVIDERS.join(', ')}.`, 'toolsets');
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

function truthy(v: string | undefined): boolean {
  return v === '1' || v?.toLowerCase() === 'true';
}
