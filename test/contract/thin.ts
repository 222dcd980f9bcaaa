import type { Routes, SandboxRequest, SandboxResponse, SandboxServer } from '../../src/sandbox/index.js';
import type { Definition } from './check.js';

/**
 * Answers as thin as a provider's published definition allows: every field the definition lets the provider leave out,
 * left out. Which fields may go is asked of the definition itself, one field at a time: a field stays when its absence
 * would break the definition.
 */

type Json = Record<string, unknown> | unknown[];
type Thinner = (request: SandboxRequest, response: SandboxResponse) => Promise<SandboxResponse>;

const isJson = (body: unknown): body is Json => !!body && typeof body === 'object' && !Buffer.isBuffer(body);

/** Serves `routes` on `server` as before, each successful JSON answer thinned (until the server is reset). */
export function serveThin(server: SandboxServer, routes: Routes, thin: Thinner): void {
  for (const [key, handler] of Object.entries(routes)) server.use(key, async (request) => thin(request, await handler(request)));
}

export interface ThinOptions {
  /** Keep lists that hold something, so that each record in them is thinned instead of the list going whole. */
  keepLists: boolean;
  /** Fields kept whatever the definition says: Graph's entity keys, which its SDK models leave optional. */
  keep?: (key: string) => boolean;
}

/** Leaves out of each answer every field that `definition` lets the provider leave out. */
export function byDefinition(definition: Definition, options: ThinOptions): Thinner {
  return async (request, response) => {
    const status = response.status ?? 200;
    if (status >= 300 || !isJson(response.body)) return response;
    const headers = { 'content-type': 'application/json', ...response.headers };
    const exchange = (body: unknown) => ({ request, route: 'thin', injected: false, status, headers, payload: JSON.stringify(body) });
    await definition.prepare?.([exchange(response.body)]);
    const operation = definition.find(request.method, request.path);
    if (!operation) return response;
    const fits = (body: unknown) => operation.checkResponse(exchange(body)).length === 0;
    if (!fits(response.body)) return response;
    const body = structuredClone(response.body);
    // What was decided for a field of one record holds for the same field of the others: "/value/*/subject".
    const decided = new Map<string, boolean>();
    const visit = (node: unknown, at: string) => {
      if (Array.isArray(node)) return node.forEach((item) => visit(item, `${at}/*`));
      if (!node || typeof node !== 'object') return;
      const object = node as Record<string, unknown>;
      for (const key of Object.keys(object)) {
        const value = object[key];
        visit(value, `${at}/${key}`);
        if ((options.keepLists && Array.isArray(value) && value.length > 0) || options.keep?.(key)) continue;
        const field = `${at}/${key}`;
        if (decided.get(field) === false) continue;
        delete object[key];
        if (decided.has(field)) continue;
        const optional = fits(body);
        decided.set(field, optional);
        if (!optional) object[key] = value;
      }
    };
    visit(body, '');
    if (!fits(body)) throw new Error(`thinning ${request.method} ${request.path} broke its definition: ${operation.checkResponse(exchange(body)).join('; ')}`);
    return { ...response, body };
  };
}

/**
 * The sales API publishes no definition: its records are as the stand-in shapes them, and enrichment data is partial
 * by nature, so a person or company record may come with its id alone.
 */
export const salesRecordsThin: Thinner = async (_request, response) => {
  // Records are thinned whole or not at all: the envelope around them is what the stand-in's dialects define.
  if (!isJson(response.body)) return response;
  const isRecord = (o: Record<string, unknown>) => typeof o.id === 'string' && /^sbx-(person|company)-/.test(o.id) && ['name', 'fullName', 'firstName', 'domain'].some((k) => k in o);
  const thin = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(thin);
    if (!node || typeof node !== 'object') return node;
    const object = node as Record<string, unknown>;
    if (isRecord(object)) return { id: object.id };
    return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, thin(v)]));
  };
  return { ...response, body: thin(response.body) };
};
