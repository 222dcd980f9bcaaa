import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { answerBody, specificity, templatePattern, type Definition, type Operation } from './check.js';

/**
 * Vercel's REST API as @vercel/sdk describes it. The SDK has one generated function per operation (esm/funcs/*.js)
 * naming its method, path template, request model and the zod schema of each answer; the schemas live in
 * esm/models. Its schemas are forgiving by design (a missing string reads as ""), and it counts each such
 * coercion: a count above zero is drift, located by comparing what was sent with what the schema made of it.
 */
const SDK = dirname(createRequire(import.meta.url).resolve('@vercel/sdk/package.json'));

interface Answer {
  statuses: (number | string)[];
  schema?: string;
}
interface SdkOperation {
  id: string;
  method: string;
  template: string;
  pattern: RegExp;
  rank: number;
  imports: Map<string, string>;
  request?: string;
  bodyIsRequest: boolean;
  /** The query parameters the operation takes, as sent. */
  query: string[];
  answers: Answer[];
}

interface Issue {
  path: (string | number)[];
  message: string;
  code?: string;
  unionErrors?: { issues: Issue[] }[];
}
type Zod = { safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: { issues: Issue[] } } };

export async function vercelDefinition(): Promise<Definition> {
  const operations = readdirSync(join(SDK, 'esm/funcs'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => parseFunc(readFileSync(join(SDK, 'esm/funcs', f), 'utf8')))
    .filter((o): o is SdkOperation => !!o)
    .sort((a, b) => b.rank - a.rank);
  const { startCountingUnrecognized } = await import(join(SDK, 'esm/types/unrecognized.js'));
  const modules = new Map<string, Record<string, any>>();
  const schemaOf = async (op: SdkOperation, name: string): Promise<Zod> => {
    const file = op.imports.get(name);
    if (!file) throw new Error(`${op.id}: no import for ${name}`);
    if (!modules.has(file)) modules.set(file, await import(join(SDK, 'esm/models', file)));
    return modules.get(file)![name];
  };
  const check = (schema: Zod, value: unknown, what: string): string[] => {
    const counter = startCountingUnrecognized();
    const parsed = schema.safeParse(value);
    const coerced = counter.end(0);
    if (!parsed.success) return closest(parsed.error.issues).slice(0, 12).map((i) => `${what}/${i.path.join('/')} ${i.message}`);
    const extra = undocumented(value, parsed.data, what);
    if (!coerced) return extra;
    const found = differences(value, parsed.data, what);
    return [...(found.length ? found : [`${what}: ${coerced} value(s) of the wrong type, coerced by the SDK`]), ...extra];
  };

  const built = new Map<string, Operation>();
  const operation = async (op: SdkOperation): Promise<Operation> => {
    const request = op.request ? await schemaOf(op, op.request) : undefined;
    const body = request && !op.bodyIsRequest ? requestBodySchema(request) : request;
    const answers = await Promise.all(op.answers.map(async (a) => ({ ...a, zod: a.schema ? await schemaOf(op, a.schema) : undefined })));
    return {
      id: op.id,
      checkRequest(exchange) {
        const problems = [...new Set(exchange.request.query.keys())].filter((k) => !op.query.includes(k)).map((k) => `query parameter '${k}' is not documented`);
        const sent = exchange.request.rawBody.length > 0;
        if (sent && !body) problems.push('sends a body; the operation takes none');
        else if (sent && body) problems.push(...check(body, exchange.request.body, 'request body'));
        return problems;
      },
      checkResponse(exchange) {
        const answer = answers.find((a) => a.statuses.some((s) => s === exchange.status || s === `${String(exchange.status)[0]}XX`));
        if (!answer) return [`status ${exchange.status} is not documented`];
        if (!answer.zod) return [];
        const got = answerBody(exchange);
        if (got.empty) return answer.schema?.includes('$inboundSchema') && answer.statuses.includes(204) ? [] : ['answers with no body; the definition gives one'];
        if (!got.isJson) return ['answers something other than JSON'];
        return check(answer.zod, got.json, 'answer');
      },
    };
  };
  return {
    find(method, path) {
      const found = lookup(operations, method, path);
      return found && built.get(found.id);
    },
    async prepare(exchanges) {
      for (const e of exchanges) {
        const found = lookup(operations, e.request.method, e.request.path);
        if (found && !built.has(found.id)) built.set(found.id, await operation(found));
      }
    },
  };
}

/**
 * The operation for a path; Vercel keeps serving an operation's older versions (/v6/deployments beside /v7), which the
 * SDK leaves out: an older version is held to the newest one's definition.
 */
function lookup(operations: SdkOperation[], method: string, path: string): SdkOperation | undefined {
  const exact = operations.find((o) => o.method === method && o.pattern.test(path));
  if (exact || !/^\/v\d+\//.test(path)) return exact;
  return operations.find((o) => o.method === method && /^\/v\d+\//.test(o.template) && o.pattern.test(path.replace(/^\/v\d+\//, o.template.slice(0, o.template.indexOf('/', 1) + 1))));
}

/** For a value no branch of a union accepts, the issues of the branch that came closest: one of the value's own type first. */
function closest(issues: Issue[]): Issue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== 'invalid_union' || !issue.unionErrors?.length) return [issue];
    const wrongType = (branch: { issues: Issue[] }) => branch.issues.some((i) => i.code === 'invalid_type' && i.path.length <= issue.path.length);
    const score = (branch: { issues: Issue[] }) => (wrongType(branch) ? 1000 : 0) + branch.issues.length;
    const best = [...issue.unionErrors].sort((a, b) => score(a) - score(b))[0]!;
    return closest(best.issues);
  });
}

/** Reads one generated SDK function: method, path, models, and the matcher list of its answers. */
function parseFunc(source: string): SdkOperation | undefined {
  const method = /method: "([A-Z]+)"/.exec(source)?.[1];
  const template = /pathToFunc\("([^"]+)"\)/.exec(source)?.[1];
  const match = /M\.match\(([\s\S]*?)\)\(response/.exec(source)?.[1];
  if (!method || !template || !match) return undefined;
  const imports = new Map<string, string>();
  for (const m of source.matchAll(/import \{([^}]+)\} from "\.\.\/models\/([^"]+)";/g)) for (const name of m[1]!.split(',')) if (name.trim()) imports.set(name.trim(), m[2]!);
  const answers: Answer[] = [];
  for (const m of match.matchAll(/M\.(json|jsonErr|nil|fail)\((\[[^\]]*\]|\d+|"[^"]+")(?:, (?:types\$\.\w+\()?([A-Za-z0-9_$]+))?/g)) {
    const statuses = JSON.parse(m[2]!) as number | string | (number | string)[];
    answers.push({ statuses: Array.isArray(statuses) ? statuses : [statuses], schema: m[1] === 'json' || m[1] === 'jsonErr' ? m[3] : undefined });
  }
  const bodyFrom = /encodeJSON\("body", payload(\.[A-Za-z]+)?/.exec(source);
  const query = [.../encodeFormQuery\(\{([^}]*)\}/.exec(source)?.[1]?.matchAll(/"([^"]+)":/g) ?? []].map((m) => m[1]!);
  const request = [...imports.keys()].find((n) => n.endsWith('Request$outboundSchema'));
  return {
    id: `${method} ${template}`,
    method,
    template,
    pattern: templatePattern(template),
    rank: specificity(template),
    imports,
    request: bodyFrom ? request : undefined,
    bodyIsRequest: !!bodyFrom && !bodyFrom[1],
    query,
    answers,
  };
}

/** The zod schema of a request's body: the `requestBody` field of the request model, behind its remap. */
function requestBodySchema(request: any): Zod | undefined {
  const object = request._def?.schema ?? request;
  const field = object.shape?.requestBody;
  return field?._def?.getter ? field._def.getter() : field;
}

/** Where the SDK had to make up or convert a value: fields it filled in and values whose type it changed. */
function differences(sent: unknown, read: unknown, at: string): string[] {
  if (read instanceof Date) return [];
  if (sent === undefined) return read === undefined ? [] : [`${at} is required but missing`];
  if (sent === null) return read === null ? [] : [`${at} is null; the definition does not allow null`];
  if (typeof read !== typeof sent) return [`${at} is ${JSON.stringify(sent)}, of the wrong type`];
  if (Array.isArray(read) && Array.isArray(sent)) return read.flatMap((r, i) => differences(sent[i], r, `${at}/${i}`));
  if (read && typeof read === 'object' && sent && typeof sent === 'object') {
    return Object.entries(read).flatMap(([k, v]) => differences((sent as Record<string, unknown>)[k], v, `${at}/${k}`));
  }
  return [];
}

/** Fields sent that the model does not name: the schema drops them (a model open to more keeps them in additionalProperties). */
function undocumented(sent: unknown, read: unknown, at: string): string[] {
  if (Array.isArray(sent) && Array.isArray(read)) return sent.flatMap((v, i) => undocumented(v, read[i], `${at}/${i}`));
  if (!isRecord(sent) || !isRecord(read) || read instanceof Date) return [];
  // An object whose model names no fields at all (a user's billing) is left open by the definition.
  if (!Object.keys(read).length) return [];
  const open = isRecord(read.additionalProperties) ? read.additionalProperties : {};
  return Object.entries(sent).flatMap(([k, v]) => {
    if (k in read) return undocumented(v, read[k], `${at}/${k}`);
    return k in open ? [] : [`${at}/${k} is not in the model`];
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}
