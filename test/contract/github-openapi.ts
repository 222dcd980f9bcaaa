import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { SandboxExchange } from '../../src/sandbox/index.js';
import { answerBody, mediaType, specificity, templatePattern, type Definition, type Operation } from './check.js';

/** GitHub's REST description (OpenAPI 3.0), as @octokit/openapi ships it. */
const FILE = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');
const addStandardFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
/** The standard formats, and the two of GitHub's own its description uses. */
const addFormats = (ajv: Ajv) =>
  addStandardFormats(ajv)
    .addFormat('repo.nwo', /^[\w.-]+(\/[\w.-]+)?$/)
    .addFormat('timestamp', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= 0 });
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
/** Parameters GitHub documents as one segment that hold slashes (file paths, branch names, refs). */
const GREEDY = ['path', 'ref', 'branch'];
/** Answers any endpoint may give that the description leaves to its general pages: auth, not found (or hidden), rate limits, outages. */
const GENERAL_STATUSES = [401, 403, 404, 429, 500, 502, 503];

export function githubDefinition(): Definition {
  const spec = JSON.parse(readFileSync(FILE, 'utf8'));
  withoutNullable(spec.components);
  withoutNullable(spec.paths);
  const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
  const query = addFormats(new Ajv({ strict: false, allErrors: true, coerceTypes: 'array' }));
  for (const a of [ajv, query]) a.addSchema({ components: spec.components, paths: spec.paths }, 'gh');
  const validators = new Map<string, ValidateFunction>();
  const validator = (a: Ajv, pointer: string) => {
    const key = `${a === query ? 'q' : 'b'}${pointer}`;
    if (!validators.has(key)) validators.set(key, a.compile({ $ref: `gh#${pointer}` }));
    return validators.get(key)!;
  };
  const resolve = (node: any) => (node?.$ref ? pointerGet(spec, node.$ref.slice(1)) : node);

  const operations = Object.entries<any>(spec.paths).flatMap(([template, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ method: m.toUpperCase(), template, pattern: templatePattern(template, GREEDY), rank: specificity(template), pointer: `/paths/${escape(template)}/${m}` })),
  );
  operations.sort((a, b) => b.rank - a.rank);

  const operation = (o: (typeof operations)[number]): Operation => {
    const op = pointerGet(spec, o.pointer);
    const parameters = [...(spec.paths[o.template].parameters ?? []), ...(op.parameters ?? [])].map(resolve);
    return {
      id: `${o.method} ${o.template}`,
      checkRequest(exchange) {
        const problems: string[] = [];
        for (const [name, value] of exchange.request.query) {
          const index = parameters.findIndex((p) => p.in === 'query' && p.name === name);
          if (index < 0) problems.push(`query parameter '${name}' is not documented`);
          else problems.push(...errors(validator(query, parameterPointer(spec, o, index)), value, `query ${name}`));
        }
        const schema = op.requestBody ? resolve(op.requestBody).content?.['application/json']?.schema : undefined;
        const sent = exchange.request.rawBody.length > 0;
        if (sent && !op.requestBody) problems.push('sends a body; the operation takes none');
        else if (sent && schema) problems.push(...errors(validator(ajv, bodyPointer(spec, o)), exchange.request.body, 'request body'));
        else if (!sent && op.requestBody && resolve(op.requestBody).required) problems.push('sends no body; the operation requires one');
        return problems;
      },
      checkResponse(exchange) {
        const status = String(exchange.status);
        const key = [status, `${status[0]}XX`, 'default'].find((k) => op.responses[k]);
        const body = answerBody(exchange);
        if (!key) {
          if (!GENERAL_STATUSES.includes(exchange.status)) return [`status ${status} is not documented (documented: ${Object.keys(op.responses).join(', ')})`];
          return body.isJson ? errors(validator(ajv, '/components/schemas/basic-error'), body.json, 'error body') : [];
        }
        const pointer = responsePointer(spec, o.pointer, key);
        const response = pointerGet(spec, pointer);
        const types = Object.keys(response.content ?? {});
        if (!types.length && body.isJson && exchange.status >= 400) return errors(validator(ajv, '/components/schemas/basic-error'), body.json, 'error body');
        if (!types.length) return body.empty ? [] : ['answers with a body; the definition gives none'];
        if (body.empty) return [`answers with no body; the definition gives ${types.join(' or ')}`];
        if (!body.isJson) return asksForRaw(exchange) ? [] : [`answers ${mediaType(exchange.headers['content-type'])}; the definition gives ${types.join(' or ')}`];
        const type = types.includes(mediaType(exchange.headers['content-type'])) ? mediaType(exchange.headers['content-type']) : types.includes('application/json') ? 'application/json' : types.find((t) => t.includes('json'));
        if (!type) return [`answers JSON; the definition gives ${types.join(' or ')}`];
        const schemaPointer = `${pointer}/content/${escape(type)}/schema`;
        // Error bodies are left out of the field check: GitHub has added to them (status) ahead of its description.
        const extra = exchange.status < 300 ? undocumented(spec, pointerGet(spec, schemaPointer), body.json, 'answer') : [];
        return [...errors(validator(ajv, schemaPointer), body.json, 'answer'), ...extra];
      },
    };
  };
  const built = new Map<string, Operation>();
  return {
    find(method, rawPath) {
      // The root of a repository's contents is /contents/ with an empty path, which GitHub also serves as /contents.
      const path = rawPath.replace(/\/contents$/, '/contents/');
      const found = operations.find((o) => o.method === method && o.pattern.test(path));
      if (!found) return undefined;
      if (!built.has(found.pointer)) built.set(found.pointer, operation(found));
      return built.get(found.pointer);
    },
  };
}

/**
 * Fields of an answer the description does not name. Its objects leave additionalProperties unsaid (open, to JSON
 * Schema), but a field the stand-in invents is one a tool may come to read that GitHub never sends.
 */
function undocumented(spec: any, node: any, value: unknown, at: string): string[] {
  const schema = node?.$ref ? pointerGet(spec, node.$ref.slice(1)) : node;
  if (!schema || value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return schema.items ? value.flatMap((v, i) => undocumented(spec, schema.items, v, `${at}/${i}`)) : [];
  const branches = (schema.anyOf ?? schema.oneOf) as any[] | undefined;
  if (branches) {
    const fits = (b: any) => Object.keys(value).filter((k) => k in propertiesOf(spec, b)).length;
    const best = branches.filter((b) => (b.$ref ? pointerGet(spec, b.$ref.slice(1)) : b).type !== 'null').sort((a, b) => fits(b) - fits(a))[0];
    return undocumented(spec, best, value, at);
  }
  const properties = propertiesOf(spec, schema);
  const open = !Object.keys(properties).length || (schema.additionalProperties ?? false) !== false || (schema.allOf ?? []).some((b: any) => b.additionalProperties);
  return Object.entries(value).flatMap(([key, v]) => {
    if (key in properties) return undocumented(spec, properties[key], v, `${at}/${key}`);
    if (typeof schema.additionalProperties === 'object') return undocumented(spec, schema.additionalProperties, v, `${at}/${key}`);
    return open ? [] : [`${at}/${key} is not in the description`];
  });
}

/** The properties an object schema names, its allOf parts' included. */
function propertiesOf(spec: any, node: any): Record<string, any> {
  const schema = node?.$ref ? pointerGet(spec, node.$ref.slice(1)) : node;
  if (!schema) return {};
  return Object.assign({}, ...(schema.allOf ?? []).map((b: any) => propertiesOf(spec, b)), schema.properties ?? {});
}

/** A raw or HTML media type asked for in Accept: GitHub then answers the content itself, not JSON. */
function asksForRaw(exchange: SandboxExchange): boolean {
  return /application\/vnd\.github(\.v3)?\.(raw|html|diff|patch|sha)/.test(String(exchange.request.headers.accept ?? ''));
}

/** The pointer of a response, following one $ref to components/responses. */
function responsePointer(spec: any, operationPointer: string, key: string): string {
  const pointer = `${operationPointer}/responses/${key}`;
  const ref = pointerGet(spec, pointer).$ref as string | undefined;
  return ref ? ref.slice(1) : pointer;
}

/** The pointer of the schema of the operation's index-th parameter (path-level parameters first). */
function parameterPointer(spec: any, o: { pointer: string; template: string }, index: number): string {
  const op = pointerGet(spec, o.pointer);
  const all = [...(spec.paths[o.template].parameters ?? []).map((_: unknown, i: number) => `/paths/${escape(o.template)}/parameters/${i}`), ...(op.parameters ?? []).map((_: unknown, i: number) => `${o.pointer}/parameters/${i}`)];
  const at = all[index]!;
  const ref = pointerGet(spec, at).$ref as string | undefined;
  return `${ref ? ref.slice(1) : at}/schema`;
}

function bodyPointer(spec: any, o: { pointer: string }): string {
  const ref = pointerGet(spec, `${o.pointer}/requestBody`).$ref as string | undefined;
  return `${ref ? ref.slice(1) : `${o.pointer}/requestBody`}/content/application~1json/schema`;
}

function errors(validate: ValidateFunction, value: unknown, what: string): string[] {
  if (validate(value)) return [];
  return compact(validate.errors ?? []).map((e) => `${what}${e.instancePath || ''} ${e.message}${e.params && 'allowedValues' in e.params ? ` (${(e.params.allowedValues as unknown[]).join(', ')})` : ''}${e.params && 'additionalProperty' in e.params ? ` '${e.params.additionalProperty}'` : ''}`);
}

/** Drops the noise of oneOf/anyOf branches when a plainer error says the same place is wrong. */
function compact(list: ErrorObject[]): ErrorObject[] {
  const plain = list.filter((e) => !['oneOf', 'anyOf', 'if'].includes(e.keyword));
  return (plain.length ? plain : list).slice(0, 20);
}

/** OpenAPI 3.0's `nullable` as JSON Schema: null joins the allowed types (and enum), or the schema becomes anyOf it and null. */
function withoutNullable(node: any): void {
  if (Array.isArray(node)) return node.forEach(withoutNullable);
  if (!node || typeof node !== 'object') return;
  for (const value of Object.values(node)) withoutNullable(value);
  if (node.nullable !== true) return;
  delete node.nullable;
  if (Array.isArray(node.enum) && !node.enum.includes(null)) node.enum.push(null);
  if (typeof node.type === 'string') node.type = [node.type, 'null'];
  else if (!node.type) {
    const rest = { ...node };
    for (const key of Object.keys(node)) delete node[key];
    node.anyOf = [rest, { type: 'null' }];
  }
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function pointerGet(root: any, pointer: string): any {
  return pointer
    .split('/')
    .slice(1)
    .reduce((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], root);
}
