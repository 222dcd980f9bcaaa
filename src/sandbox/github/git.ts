import { sha1 } from '../util.js';

/** Just enough of git for the GitHub sandbox: blobs, commits with whole trees, refs, diffs. */

export interface GitPerson {
  name: string;
  email: string;
  date: string;
}
export interface GitCommit {
  sha: string;
  message: string;
  author: GitPerson;
  committer: GitPerson;
  /** GitHub login of the author, when the email belongs to a known user. */
  authorLogin: string | null;
  parents: string[];
  /** Path → blob sha, for every file in the commit. */
  tree: Record<string, string>;
}
export interface GitStore {
  commits: Record<string, GitCommit>;
  /** Blob sha → base64 content. */
  blobs: Record<string, string>;
  branches: Record<string, string>;
  tags: Record<string, string>;
}

export function blobSha(content: Buffer): string {
  return sha1(Buffer.concat([Buffer.from(`blob ${content.length}\0`), content]));
}

export function treeSha(tree: Record<string, string>): string {
  return sha1(Object.keys(tree).sort().map((p) => `${p}\0${tree[p]}`).join('\n'));
}

export function putBlob(git: GitStore, content: Buffer): string {
  const sha = blobSha(content);
  git.blobs[sha] = content.toString('base64');
  return sha;
}

/** Records a commit whose tree is `base` with `changes` applied (null deletes a path). */
export function commit(
  git: GitStore,
  input: { parents: string[]; changes: Record<string, Buffer | string | null>; message: string; author: GitPerson; authorLogin: string | null; base?: Record<string, string> },
): GitCommit {
  const tree = { ...(input.base ?? (input.parents[0] ? git.commits[input.parents[0]]!.tree : {})) };
  for (const [path, content] of Object.entries(input.changes)) {
    if (content === null) delete tree[path];
    else tree[path] = putBlob(git, Buffer.isBuffer(content) ? content : Buffer.from(content));
  }
  const header = [`tree ${treeSha(tree)}`, ...input.parents.map((p) => `parent ${p}`), `author ${input.author.name} <${input.author.email}> ${input.author.date}`];
  const c: GitCommit = {
    sha: sha1(`commit\0${header.join('\n')}\n\n${input.message}`),
    message: input.message,
    author: input.author,
    committer: input.author,
    authorLogin: input.authorLogin,
    parents: input.parents,
    tree,
  };
  git.commits[c.sha] = c;
  return c;
}

/** A branch, tag, full sha or unique sha prefix (7+ characters) → commit sha. */
export function resolveRef(git: GitStore, ref: string): string | undefined {
  const name = ref.replace(/^refs\/(heads|tags)\//, '');
  if (git.branches[name]) return git.branches[name];
  if (git.tags[name]) return git.tags[name];
  if (git.commits[ref]) return ref;
  if (/^[0-9a-f]{7,39}$/.test(ref)) {
    const found = Object.keys(git.commits).filter((s) => s.startsWith(ref));
    if (found.length === 1) return found[0];
  }
  return undefined;
}

/** Every commit reachable from `sha`, newest first. */
export function history(git: GitStore, sha: string): GitCommit[] {
  const seen = new Set<string>();
  const queue = [sha];
  while (queue.length) {
    const s = queue.shift()!;
    if (seen.has(s) || !git.commits[s]) continue;
    seen.add(s);
    queue.push(...git.commits[s]!.parents);
  }
  return [...seen].map((s) => git.commits[s]!).sort((a, b) => b.committer.date.localeCompare(a.committer.date));
}

export function mergeBase(git: GitStore, a: string, b: string): string | undefined {
  const inA = new Set(history(git, a).map((c) => c.sha));
  return history(git, b).find((c) => inA.has(c.sha))?.sha;
}

/** Commits on `head` that `base` does not have. */
export function aheadOf(git: GitStore, base: string, head: string): GitCommit[] {
  const inBase = new Set(history(git, base).map((c) => c.sha));
  return history(git, head).filter((c) => !inBase.has(c.sha));
}

export interface FileDiff {
  filename: string;
  status: 'added' | 'removed' | 'modified';
  additions: number;
  deletions: number;
  changes: number;
  sha: string | null;
  patch: string;
}

/** Lines as git counts them: a final newline ends the last line rather than starting an empty one. */
function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function diffTrees(git: GitStore, before: Record<string, string>, after: Record<string, string>): FileDiff[] {
  const text = (sha?: string) => (sha ? Buffer.from(git.blobs[sha] ?? '', 'base64').toString('utf8') : '');
  const paths = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return paths
    .filter((p) => before[p] !== after[p])
    .map((p) => {
      const oldLines = linesOf(before[p] ? text(before[p]) : '');
      const newLines = linesOf(after[p] ? text(after[p]) : '');
      let head = 0;
      while (head < oldLines.length && head < newLines.length && oldLines[head] === newLines[head]) head++;
      let tail = 0;
      while (tail < oldLines.length - head && tail < newLines.length - head && oldLines[oldLines.length - 1 - tail] === newLines[newLines.length - 1 - tail]) tail++;
      const removed = oldLines.slice(head, oldLines.length - tail);
      const added = newLines.slice(head, newLines.length - tail);
      const patch = `@@ -${head + 1},${removed.length} +${head + 1},${added.length} @@\n` + [...removed.map((l) => `-${l}`), ...added.map((l) => `+${l}`)].join('\n');
      return {
        filename: p,
        status: !before[p] ? 'added' : !after[p] ? 'removed' : 'modified',
        additions: added.length,
        deletions: removed.length,
        changes: added.length + removed.length,
        sha: after[p] ?? null,
        patch,
      };
    });
}

/** Three-way merge of trees: the changes `head` made since `base` laid over `target` (no conflict detection). */
export function mergeTrees(baseTree: Record<string, string>, headTree: Record<string, string>, targetTree: Record<string, string>): Record<string, string> {
  const out = { ...targetTree };
  for (const p of new Set([...Object.keys(baseTree), ...Object.keys(headTree)])) {
    if (baseTree[p] === headTree[p]) continue;
    if (headTree[p] === undefined) delete out[p];
    else out[p] = headTree[p]!;
  }
  return out;
}
