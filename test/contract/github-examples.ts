import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { SandboxRequest, SandboxResponse } from '../../src/sandbox/index.js';
import { specificity, templatePattern } from './check.js';

/**
 * GitHub's own documented answers: the examples its OpenAPI description (@octokit/openapi) gives each operation and
 * status. They are GitHub's word on what an answer looks like, and some leave out fields the schema beside them
 * requires (the full repository's `language`).
 */
const FILE = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
const GREEDY = ['path', 'ref', 'branch'];

export interface GithubExamples {
  /** The first documented example of the operation's answer with this status, when there is one. */
  of(method: string, path: string, status: number): unknown;
  /** The named example (components/examples). */
  named(name: string): unknown;
}

export function githubExamples(): GithubExamples {
  const spec = JSON.parse(readFileSync(FILE, 'utf8'));
  const deref = (node: any) => (node?.$ref ? node.$ref.slice(2).split('/').reduce((n: any, k: string) => n?.[k], spec) : node);
  const operations = Object.entries<any>(spec.paths)
    .flatMap(([template, item]) => METHODS.filter((m) => item[m]).map((m) => ({ method: m.toUpperCase(), pattern: templatePattern(template, GREEDY), rank: specificity(template), op: item[m] })))
    .sort((a, b) => b.rank - a.rank);
  return {
    of(method, rawPath, status) {
      const path = rawPath.replace(/\/contents$/, '/contents/');
      const found = operations.find((o) => o.method === method && o.pattern.test(path));
      const response = deref(found?.op.responses?.[String(status)]);
      const examples = response?.content?.['application/json']?.examples as Record<string, unknown> | undefined;
      const first = examples && Object.values(examples)[0];
      return first === undefined ? undefined : structuredClone(deref(first).value);
    },
    named: (name) => structuredClone(spec.components.examples[name].value),
  };
}

/** Answers with GitHub's documented example for the operation and status, in place of the stand-in's own answer. */
export function asDocumented(examples: GithubExamples) {
  return async (request: SandboxRequest, response: SandboxResponse): Promise<SandboxResponse> => {
    const status = response.status ?? 200;
    if (status >= 300 || !response.body || typeof response.body !== 'object' || Buffer.isBuffer(response.body)) return response;
    const example = examples.of(request.method, request.path, status);
    return example === undefined ? response : { ...response, body: example };
  };
}
