import type { Config } from './config.js';
import { forOwner } from './owner.js';
import type { Redactor } from './redact.js';
import { openStore, PERSONAL_OWNER, type Store } from './store/index.js';

/**
 * The store as a command run on the server's machine sees it: the personal owner's accounts, triggers and events. In
 * team mode that is the operator's own (the ones they may share); people's own are theirs, reached over MCP or the page.
 */
export async function openCliStore(config: Pick<Config, 'dataDir' | 'databaseUrl' | 'secretKey'>, redactor?: Redactor): Promise<Store> {
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, secretKey: config.secretKey, redactor });
  return forOwner({ store }, PERSONAL_OWNER).store;
}
