import { ProviderError, type ProviderErrorInit } from '../../errors.js';
import type { Api } from '../../http/client.js';

/** What the shared client does not cover for GitHub: GraphQL's errors-in-a-200. */

function initOf(e: ProviderError): ProviderErrorInit {
  return { connector: e.connector, status: e.status, method: e.method, path: e.path, code: e.code, providerMessage: e.providerMessage, retryAfterSeconds: e.retryAfterSeconds, rateLimit: e.rateLimit, body: e.body };
}

export interface GraphqlErrorEntry {
  type?: string;
  message: string;
  path?: Array<string | number>;
}

const GRAPHQL_HINTS: Record<string, string> = {
  NOT_FOUND: 'Check the owner, numbers and URLs (a project number is in its URL: /orgs/ORG/projects/5).',
  INSUFFICIENT_SCOPES: 'The token lacks a scope: Projects need "project"; reconnect the account with it (switchboard accounts add github).',
  FORBIDDEN: 'The account lacks access to this project or repository.',
};

/** GraphQL answers 200 with `errors[]`; this turns them into one provider error naming the type, path and message. */
export class GraphqlError extends ProviderError {
  override name = 'GraphqlError';
  constructor(
    readonly errors: GraphqlErrorEntry[],
    rateLimit?: ProviderErrorInit['rateLimit'],
  ) {
    const first = errors[0]!;
    super({ connector: 'github', status: 200, method: 'POST', path: '/graphql', code: first.type, providerMessage: first.message, rateLimit, body: { errors } });
    const lines = errors.slice(0, 3).map((e) => `${e.type ? `${e.type} ` : ''}${e.path?.length ? `at ${e.path.join('.')}` : ''}: ${e.message}`.trim());
    this.message = `GitHub GraphQL refused the request (${lines.join('; ')}). ${GRAPHQL_HINTS[first.type ?? ''] ?? ''}`.trim();
  }
}

// GitHub Enterprise Server serves REST under /api/v3 and GraphQL at /api/graphql; github.com serves both at the root.
const ENTERPRISE_REST = /\/api\/v3$/;

/** One GraphQL request; `errors[]` in the answer throw a GraphqlError, so callers only see data. */
export async function graphql<T>(api: Api, query: string, variables: Record<string, unknown>): Promise<T> {
  const restPath = api.baseUrl.pathname.replace(/\/+$/, '');
  const endpoint = ENTERPRISE_REST.test(restPath) ? api.under(restPath.replace(ENTERPRISE_REST, '/api')) : api;
  const res = await endpoint.request({ method: 'POST', endpoint: '/graphql', body: { query, variables } });
  const body = res.body as { data?: T; errors?: GraphqlErrorEntry[] } | null;
  if (body?.errors?.length) throw new GraphqlError(body.errors, res.rateLimit);
  if (!body?.data) throw new GraphqlError([{ message: 'The answer held no data' }], res.rateLimit);
  return body.data;
}

/** The same provider error with a fact appended to GitHub's message (e.g. the pull request that already exists). */
export function withFact(error: ProviderError, fact: string): ProviderError {
  return new ProviderError({ ...initOf(error), providerMessage: `${error.providerMessage ?? ''} ${fact}`.trim() });
}
