import { InputError } from '../../errors.js';
import type { Api } from '../../http/client.js';
import { graphQuery } from './common.js';

/** Graph's well-known folder names, usable wherever a folder id is (mailFolder resource). */
export const WELL_KNOWN_FOLDERS = [
  'inbox',
  'drafts',
  'sentitems',
  'deleteditems',
  'junkemail',
  'archive',
  'outbox',
  'msgfolderroot',
  'clutter',
  'conflicts',
  'conversationhistory',
  'localfailures',
  'recoverableitemsdeletions',
  'scheduled',
  'searchfolders',
  'serverfailures',
  'syncissues',
];

/**
 * Graph folder ids are long base64 strings (Exchange ones start AAMk or AQMk); a display name is short
 * or has spaces. Ids pass unchanged, so an id costs no folder walk.
 */
const ID_LIKE = /^(?:[A-Za-z0-9+/=_-]{32,}|A[AQ]Mk[A-Za-z0-9+/=_-]{12,})$/;

/** Bounds of the display-name walk: folder levels below the top, and Graph requests in all. */
const MAX_DEPTH = 3;
const MAX_REQUESTS = 20;

export interface WalkedFolder {
  id: string;
  displayName: string;
  /** Display names from the top level down, e.g. "Inbox/Receipts". */
  path: string;
  depth: number;
}

interface GraphFolder {
  id: string;
  displayName?: string | null;
  childFolderCount?: number;
}

/** Lists a mailbox's folders breadth first (top level, then child folders), bounded. */
export async function walkFolders(api: Api, base: string): Promise<{ folders: WalkedFolder[]; complete: boolean }> {
  const query = graphQuery({ $top: 100, $select: 'id,displayName,childFolderCount' });
  const folders: WalkedFolder[] = [];
  let requests = 0;
  let complete = true;
  let queue: Array<{ endpoint: string; parent?: WalkedFolder }> = [{ endpoint: `${base}/mailFolders${query}` }];
  while (queue.length) {
    const next: typeof queue = [];
    for (const item of queue) {
      let endpoint: string | undefined = item.endpoint;
      while (endpoint) {
        if (requests >= MAX_REQUESTS) return { folders, complete: false };
        requests++;
        const page: { value?: GraphFolder[]; '@odata.nextLink'?: string } = await api.get(endpoint);
        for (const f of page.value ?? []) {
          const name = f.displayName ?? '';
          const folder = { id: f.id, displayName: name, path: item.parent ? `${item.parent.path}/${name}` : name, depth: item.parent ? item.parent.depth + 1 : 0 };
          folders.push(folder);
          if ((f.childFolderCount ?? 0) > 0) {
            if (folder.depth < MAX_DEPTH) next.push({ endpoint: `${base}/mailFolders/${encodeURIComponent(f.id)}/childFolders${query}`, parent: folder });
            else complete = false;
          }
        }
        endpoint = page['@odata.nextLink'];
      }
    }
    queue = next;
  }
  return { folders, complete };
}

/**
 * A folder reference as Graph takes it: a well-known name or an id passes unchanged; anything else is a
 * display name, found by walking the folders (case-insensitive), refused when unknown or ambiguous.
 */
export async function resolveFolderRef(api: Api, base: string, ref: string, field: string): Promise<string> {
  const value = ref.trim();
  if (WELL_KNOWN_FOLDERS.includes(value.toLowerCase())) return value.toLowerCase();
  if (ID_LIKE.test(value)) return value;
  const { folders, complete } = await walkFolders(api, base);
  const matches = folders.filter((f) => f.displayName.toLowerCase() === value.toLowerCase());
  if (matches.length === 1) return matches[0]!.id;
  if (matches.length > 1) {
    const list = matches.map((f) => `"${f.path}" (id ${f.id})`).join('; ');
    throw new InputError(`"${field}": ${matches.length} folders are named "${value}": ${list}. Pass the id of the one you mean. Nothing was changed.`, field);
  }
  const top = folders.filter((f) => f.depth === 0).map((f) => `"${f.displayName}"`);
  const scope = complete ? '' : ` (searched ${folders.length} folders, ${MAX_DEPTH + 1} levels deep; pass the id of a deeper folder)`;
  throw new InputError(
    `"${field}": no folder is named "${value}"${scope}. Top-level folders: ${top.join(', ')}. ` +
      'Also accepted: a folder id (outlook_list_folders, with parent for child folders) or a well-known name such as inbox, archive, sentitems.',
    field,
  );
}
