import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config, OAuthProvider, OAuthSettings } from '../config.js';
import { openStore } from '../store/index.js';
import type { Provider, Store } from '../store/types.js';
import { createLogger } from '../log.js';
import { logMisses, sandboxAccounts, startSandbox, type Sandbox } from './index.js';
import { seedSandboxTeam } from './team.js';

/** What another process needs to reach the stand-ins of a running `serve --sandbox`. */
export interface SandboxEndpoints {
  pid: number;
  baseUrls: Record<Provider, string>;
  /** Each stand-in's root URL (the Outlook one without /v1.0). */
  servers: Record<Provider, string>;
  oauth: Record<OAuthProvider, OAuthSettings>;
  /** The MCP endpoint of the server that started them: a URL, or "stdio". */
  mcp: string;
  /** The Integrations page, when that server's listener runs. */
  page?: string;
}

/** The sandbox's own data directory, beside (never inside the tables of) the real store. */
export function sandboxDataDir(dataDir: string): string {
  return join(dataDir, 'sandbox');
}

const FILE = 'sandbox.json';

export function endpointsOf(sandbox: Sandbox, mcp: string, page?: string): SandboxEndpoints {
  const servers = Object.fromEntries(Object.entries(sandbox.servers).map(([p, s]) => [p, s.url])) as Record<Provider, string>;
  return { pid: process.pid, baseUrls: sandbox.baseUrls, servers, oauth: sandbox.oauthSettings, mcp, ...(page ? { page } : {}) };
}

/**
 * Announces this process's stand-ins to other commands run with --sandbox, unless another live process already
 * has. Returns what withdraws the announcement (only this process's own).
 */
export function publishSandbox(dataDir: string, endpoints: SandboxEndpoints): () => void {
  if (findRunningSandbox(dataDir)) return () => undefined;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, FILE);
  const temporary = `${file}.${process.pid}`;
  writeFileSync(temporary, JSON.stringify(endpoints, null, 2) + '\n', { mode: 0o600 });
  renameSync(temporary, file);
  return () => {
    if (readEndpoints(dataDir)?.pid === process.pid) rmSync(file, { force: true });
  };
}

/** The stand-ins of a live `serve --sandbox` on this data directory, if one runs. */
export function findRunningSandbox(dataDir: string): SandboxEndpoints | undefined {
  const found = readEndpoints(dataDir);
  return found && found.pid !== process.pid && alive(found.pid) ? found : undefined;
}

function readEndpoints(dataDir: string): SandboxEndpoints | undefined {
  try {
    return JSON.parse(readFileSync(join(dataDir, FILE), 'utf8')) as SandboxEndpoints;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Adds the sample account of each provider that has none yet. */
export async function seedSandboxAccounts(store: Store): Promise<void> {
  const existing = await store.accounts.list();
  for (const account of sandboxAccounts()) {
    if (!existing.some((a) => a.provider === account.provider)) await store.accounts.add(account);
  }
}

export interface SandboxSession {
  /** The config every command runs with: the sandbox's data directory, base URLs and authorization servers. */
  config: Config;
  /** Set when no `serve --sandbox` was running and this command started stand-ins of its own. */
  temporary?: Sandbox;
  close(): Promise<void>;
}

/**
 * For a command run with --sandbox that needs only the store (users, tokens, db): the config of the sandbox's own
 * store; with `people`, the store holds the sample accounts and the sandbox's team, as serve --sandbox --team has them.
 */
export async function sandboxStoreConfig(config: Config, o: { people: boolean }): Promise<Config> {
  const dataDir = sandboxDataDir(config.dataDir);
  if (o.people) {
    const store = await openStore({ dataDir, secretKey: config.secretKey });
    try {
      await seedSandboxAccounts(store);
      await seedSandboxTeam(store);
    } finally {
      await store.close();
    }
  }
  return { ...config, sandbox: true, dataDir, databaseUrl: undefined };
}

/**
 * For a command run with --sandbox: the stand-ins of a running `serve --sandbox` when there is one, else
 * stand-ins of the command's own for as long as it runs; the sandbox store holds the sample accounts either way.
 */
export async function joinSandbox(config: Config): Promise<SandboxSession> {
  const dataDir = sandboxDataDir(config.dataDir);
  const store = await openStore({ dataDir, secretKey: config.secretKey });
  try {
    await seedSandboxAccounts(store);
  } finally {
    await store.close();
  }
  const running = findRunningSandbox(dataDir);
  if (running) {
    return { config: { ...config, sandbox: true, dataDir, databaseUrl: undefined, baseUrls: running.baseUrls, oauth: running.oauth }, close: async () => undefined };
  }
  const sandbox = await startSandbox({ onMiss: logMisses(createLogger()) });
  return {
    config: { ...config, sandbox: true, dataDir, databaseUrl: undefined, baseUrls: sandbox.baseUrls, oauth: sandbox.oauthSettings },
    temporary: sandbox,
    close: () => sandbox.close(),
  };
}
