import * as z from 'zod/v4';
import { InputError } from '../../errors.js';
import type { ApiResponse } from '../../http/client.js';
import type { Tool } from '../../tool.js';
import { filePath, repoFields, repoPath } from './common.js';
import { github } from './connector.js';

/** Reading and writing repository files through the contents API. */

/** The most file bytes a result carries; longer files are cut and flagged `truncated`. */
export const MAX_CONTENT_BYTES = 1_000_000;
/** Files GitHub will not inline (1-100 MB) are fetched raw only up to this size (the HTTP client's response cap is 10 MB). */
const MAX_RAW_FETCH_BYTES = 9_500_000;
/** GitHub lists at most this many entries of a directory; the Git Trees API goes further. */
const MAX_DIR_ENTRIES = 1000;
const RAW_MEDIA_TYPE = 'application/vnd.github.raw+json';

interface GhContent {
  type: string;
  name: string;
  path: string;
  sha: string;
  size: number;
  encoding?: string;
  content?: string;
}

/** UTF-8 text, or null for binary (a NUL byte or invalid UTF-8). A cut buffer may end inside a character. */
function asText(bytes: Buffer, cut: boolean): string | null {
  if (bytes.subarray(0, 8000).includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes, { stream: cut });
  } catch {
    return null;
  }
}

/** The exact bytes of a raw response, whichever way the client decoded it. */
function bytesOf(res: ApiResponse): Buffer {
  if (res.body === null || res.body === undefined) return Buffer.alloc(0);
  if (res.bodyEncoding === 'base64') return Buffer.from(String(res.body), 'base64');
  if (res.bodyEncoding === 'json') return Buffer.from(JSON.stringify(res.body), 'utf8');
  return Buffer.from(String(res.body), 'utf8');
}

const entryShape = z.object({ name: z.string(), path: z.string(), type: z.string(), size: z.number(), sha: z.string() });

const getRepositoryContent = github.tool({
  name: 'get_repository_content',
  title: 'Get file or directory',
  description:
    'Read a file as text (binary as base64) or list a directory, at any ref. ' +
    'Files over 1 MB are cut at 1 MB with truncated: true.',
  input: z
    .object({
      ...repoFields,
      path: z.string().optional().describe('Omit for the root'),
      ref: z.string().optional().describe('Branch, tag or sha; default branch'),
    })
    .strict(),
  output: z.object({
    type: z.string(),
    path: z.string(),
    sha: z.string().optional(),
    size: z.number().optional(),
    encoding: z.enum(['utf-8', 'base64']).optional(),
    content: z.string().optional(),
    truncated: z.boolean().optional(),
    entries: z.array(entryShape).optional(),
  }),
  effect: 'read',
  async run({ owner, repo, path, ref }, { api }) {
    const endpoint = `${repoPath(owner, repo)}/contents/${filePath(path ?? '')}`.replace(/\/$/, '');
    const query = { ref: ref || undefined };
    const res = await api.request({ method: 'GET', endpoint, query });
    if (Array.isArray(res.body)) {
      const entries = (res.body as GhContent[]).map((e) => ({ name: e.name, path: e.path, type: e.type, size: e.size, sha: e.sha }));
      return { type: 'dir', path: (path ?? '').replace(/^\/+|\/+$/g, ''), entries, ...(entries.length >= MAX_DIR_ENTRIES ? { truncated: true } : {}) };
    }
    const item = res.body as GhContent;
    const base = { type: item.type, path: item.path, sha: item.sha, size: item.size };
    if (item.type !== 'file') return base;

    let bytes: Buffer;
    if (item.encoding === 'base64' && typeof item.content === 'string') {
      bytes = Buffer.from(item.content, 'base64');
    } else if (item.size > MAX_RAW_FETCH_BYTES) {
      return { ...base, truncated: true };
    } else {
      // GitHub leaves `content` empty (encoding "none") for files of 1-100 MB: only the raw media type has the bytes.
      bytes = bytesOf(await api.request({ method: 'GET', endpoint, query, headers: { accept: RAW_MEDIA_TYPE } }));
    }
    const cut = bytes.length > MAX_CONTENT_BYTES;
    const kept = cut ? bytes.subarray(0, MAX_CONTENT_BYTES) : bytes;
    const text = asText(kept, cut);
    const content = text !== null ? { encoding: 'utf-8' as const, content: text } : { encoding: 'base64' as const, content: kept.toString('base64') };
    return { ...base, ...content, ...(cut ? { truncated: true } : {}) };
  },
});

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const createOrUpdateFile = github.tool({
  name: 'create_or_update_file',
  title: 'Create or update file',
  description:
    'Commit one file to a branch, creating or replacing it; returns the blob sha, the commit and whether it was created.',
  input: z
    .object({
      ...repoFields,
      path: z.string().describe('e.g. docs/guide.md'),
      message: z.string().min(1).describe('Commit message'),
      branch: z.string().min(1).describe('Branch'),
      content: z.string().optional().describe('Text'),
      content_base64: z.string().optional().describe('Binary as base64, instead of content'),
      sha: z.string().optional().describe('Blob sha replaced; looked up if omitted'),
    })
    .strict(),
  output: z.object({
    path: z.string(),
    sha: z.string().nullable(),
    commit: z.object({ sha: z.string().nullable(), html_url: z.string().nullable() }),
    created: z.boolean(),
  }),
  effect: 'write',
  async run({ owner, repo, path, message, branch, content, content_base64, sha }, { api }) {
    if ((content === undefined) === (content_base64 === undefined)) {
      throw new InputError('Give exactly one of "content" (text) or "content_base64" (binary, base64-encoded).', content === undefined ? 'content' : 'content_base64');
    }
    let encoded: string;
    if (content_base64 !== undefined) {
      encoded = content_base64.replace(/\s+/g, '');
      if (!BASE64.test(encoded) || encoded.length % 4 === 1) {
        throw new InputError('"content_base64" is not valid base64 (A-Z, a-z, 0-9, +, / and = padding); or send text as "content".', 'content_base64');
      }
    } else {
      encoded = Buffer.from(content!, 'utf8').toString('base64');
    }
    const file = filePath(path);
    if (!file) throw new InputError('"path" must name a file, e.g. docs/guide.md.', 'path');
    const endpoint = `${repoPath(owner, repo)}/contents/${file}`;

    let current = sha;
    if (current === undefined) {
      const got = await api.request({ method: 'GET', endpoint, query: { ref: branch }, acceptStatus: [404] });
      if (got.status === 200) {
        if (Array.isArray(got.body)) throw new InputError(`"path" ${path} is a directory on ${branch}; give a file path inside it.`, 'path');
        const existing = got.body as GhContent;
        if (existing.type !== 'file') throw new InputError(`"path" ${path} is a ${existing.type}, not a file; give a file path.`, 'path');
        current = existing.sha;
      }
    }
    const res = await api.request({
      method: 'PUT',
      endpoint,
      body: { message, content: encoded, branch, ...(current !== undefined ? { sha: current } : {}) },
    });
    // GitHub's file-commit answer names every field of both objects optional.
    const body = res.body as { content?: { path?: string; sha?: string } | null; commit?: { sha?: string; html_url?: string } };
    return {
      path: body.content?.path ?? path,
      sha: body.content?.sha,
      commit: { sha: body.commit?.sha, html_url: body.commit?.html_url },
      created: res.status === 201,
    };
  },
});

export const contentsTools: Tool[] = [getRepositoryContent, createOrUpdateFile];
