import { expect } from 'vitest';
import type { SandboxRequest } from '../../src/sandbox/server.js';
import { startHarness, type Harness } from '../harness.js';

/** A harness for the repository and gist tools. */
export function startReposHarness(): Promise<Harness> {
  return startHarness();
}

export const OWNER = 'sbx-octocat';
export const REPO = 'hello-world';
export const REPO_PATH = `/repos/${OWNER}/${REPO}`;

/** What the GitHub sandbox received, as method + path + query + body. */
export function received(h: Harness): Array<{ method: string; path: string; query: Record<string, string>; body: any; headers: SandboxRequest['headers'] }> {
  return h.sandbox.servers.github.requests.map((r) => ({ method: r.method, path: r.path, query: Object.fromEntries(r.query), body: r.body, headers: r.headers }));
}

/** The requests, as `METHOD /path` lines. */
export function lines(h: Harness): string[] {
  return h.sandbox.servers.github.requests.map((r) => `${r.method} ${r.path}`);
}

export function lastRequest(h: Harness, method: string) {
  const all = received(h).filter((r) => r.method === method);
  expect(all.length, `no ${method} request was sent`).toBeGreaterThan(0);
  return all[all.length - 1]!;
}

export function resetGithub(h: Harness): void {
  h.sandbox.servers.github.reset();
}

export const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');

/** The content of a file on a branch, straight from the sandbox's state. */
export function fileOn(h: Harness, branch: string, path: string, repo = REPO): Buffer | undefined {
  const r = h.sandbox.states.github.repos.find((x) => x.name === repo)!;
  const blob = r.git.commits[r.git.branches[branch]!]?.tree[path];
  return blob ? Buffer.from(r.git.blobs[blob]!, 'base64') : undefined;
}

export function headOf(h: Harness, branch: string, repo = REPO): string | undefined {
  return h.sandbox.states.github.repos.find((x) => x.name === repo)!.git.branches[branch];
}
