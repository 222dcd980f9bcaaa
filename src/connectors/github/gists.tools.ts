import * as z from 'zod/v4';
import { InputError } from '../../errors.js';
import type { Tool } from '../../tool.js';
import { checkIso, cursorField, githubPage, limitField, segment } from './common.js';
import { github } from './connector.js';

/** Gists: create, edit (content, rename, delete files) and list. */

/** A listed gist (base-gist) has every field; a created or updated one (gist-simple) may lack any of them. */
interface GhGist {
  id?: string;
  html_url?: string;
  public?: boolean;
  description?: string | null;
  files?: Record<string, { filename?: string } | null>;
  updated_at?: string;
}

const gistShape = {
  id: z.string(),
  html_url: z.string(),
  public: z.boolean(),
  description: z.string().nullable(),
  files: z.array(z.string()),
  updated_at: z.string(),
};
const writtenGistShape = {
  ...gistShape,
  id: z.string().nullable(),
  html_url: z.string().nullable(),
  public: z.boolean().nullable(),
  updated_at: z.string().nullable(),
};

function compactGist<G extends GhGist>(g: G): Pick<G, 'id' | 'html_url' | 'public' | 'description' | 'updated_at'> & { files: string[] } {
  return { id: g.id, html_url: g.html_url, public: g.public, description: g.description, files: Object.keys(g.files ?? {}), updated_at: g.updated_at };
}

/** GitHub refuses empty gist files with a bare 422; say which one before sending. */
function checkContents(files: Record<string, string>, field: string): void {
  for (const [name, content] of Object.entries(files)) {
    if (!name.trim()) throw new InputError(`"${field}" has an empty file name; name every file, e.g. notes.md.`, field);
    if (!content.trim()) throw new InputError(`"${field}.${name}" is empty; GitHub refuses empty gist files (to remove one from a gist, use update_gist's delete_files).`, `${field}.${name}`);
  }
}

const createGist = github.tool({
  name: 'create_gist',
  title: 'Create gist',
  description: 'Create a gist from text files; returns its id, URL and file names. Secret (unlisted) unless public.',
  input: z
    .object({
      files: z.record(z.string(), z.string()).describe('Name → text, e.g. {"a.md": "# A"}'),
      description: z.string().optional().describe('Description'),
      public: z.boolean().optional().describe('Default false'),
    })
    .strict(),
  output: z.object(writtenGistShape),
  effect: 'write',
  async run({ files, description, public: isPublic }, { api }) {
    if (Object.keys(files).length === 0) throw new InputError('"files" needs at least one file, e.g. {"notes.md": "# Notes"}.', 'files');
    checkContents(files, 'files');
    const body = {
      files: Object.fromEntries(Object.entries(files).map(([name, content]) => [name, { content }])),
      ...(description !== undefined ? { description } : {}),
      public: isPublic ?? false,
    };
    return compactGist(await api.post<GhGist>('/gists', body));
  },
});

const updateGist = github.tool({
  name: 'update_gist',
  title: 'Update gist',
  description:
    'Edit a gist you own: description, file texts (a new name adds a file), renames, deletions; returns the gist. ' +
    'Ids come from list_gists.',
  input: z
    .object({
      gist_id: z.string().describe('Gist id'),
      description: z.string().optional().describe('New description'),
      files: z.record(z.string(), z.string()).optional().describe('Name → new text'),
      rename: z.record(z.string(), z.string()).optional().describe('Old name → new name'),
      delete_files: z.array(z.string()).optional().describe('File names to delete'),
    })
    .strict(),
  output: z.object(writtenGistShape),
  effect: 'write',
  async run({ gist_id, description, files = {}, rename = {}, delete_files = [] }, { api }) {
    if (description === undefined && !Object.keys(files).length && !Object.keys(rename).length && !delete_files.length) {
      throw new InputError('Nothing to change: give description, files, rename or delete_files.', 'files');
    }
    checkContents(files, 'files');
    for (const name of delete_files) {
      if (!name) throw new InputError('"delete_files" has an empty name; give file names as list_gists shows them.', 'delete_files');
      if (name in files || name in rename) {
        throw new InputError(`"delete_files" names ${JSON.stringify(name)}, which files or rename also change; drop it from one of them.`, 'delete_files');
      }
    }
    for (const [from, to] of Object.entries(rename)) {
      if (!to.trim()) throw new InputError(`"rename.${from}" is empty; give the new file name.`, `rename.${from}`);
    }
    // GitHub's PATCH takes one entry per current file name: {content?, filename?} edits or renames it, null deletes it.
    const changes: Record<string, { content?: string; filename?: string } | null> = {};
    for (const [name, content] of Object.entries(files)) changes[name] = { content };
    for (const [from, to] of Object.entries(rename)) changes[from] = { ...changes[from], filename: to };
    for (const name of delete_files) changes[name] = null;
    const body = { ...(description !== undefined ? { description } : {}), ...(Object.keys(changes).length ? { files: changes } : {}) };
    return compactGist(await api.patch<GhGist>(`/gists/${segment(gist_id, 'gist_id')}`, body));
  },
});

const listGists = github.tool({
  name: 'list_gists',
  title: 'List gists',
  description:
    "List a user's gists newest first (yours, secret ones too, if username is omitted). " +
    'Gives update_gist its ids.',
  input: z
    .object({
      username: z.string().optional().describe('Login; omit for yours'),
      since: z.string().optional().describe('Updated since (ISO 8601)'),
      limit: limitField(100, 30),
      cursor: cursorField,
    })
    .strict(),
  output: z.object({ gists: z.array(z.object(gistShape)), next_cursor: z.string().nullable() }),
  effect: 'read',
  records: 'gists',
  async run({ username, since, limit, cursor }, { api }) {
    const endpoint = username !== undefined ? `/users/${segment(username, 'username')}/gists` : '/gists';
    const page = await githubPage<Required<GhGist>>(api, endpoint, { limit: limit ?? 30, cursor, query: { since: checkIso(since, 'since') } });
    return { gists: page.items.map(compactGist), next_cursor: page.next_cursor };
  },
});

export const gistsTools: Tool[] = [createGist, updateGist, listGists];
