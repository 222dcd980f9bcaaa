import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { SandboxExchange } from '../../src/sandbox/index.js';
import { answerBody, type Definition, type Operation } from './check.js';

/**
 * Microsoft Graph v1.0 as its TypeScript SDK describes it. @microsoft/msgraph-sdk-users has one request builder per
 * path under /users/{user-id} (a folder per segment, 'item' for an id) naming, per method, its URI template, the
 * model of the answer and of the body, and @microsoft/msgraph-sdk-subscriptions the same under /subscriptions;
 * @microsoft/msgraph-sdk holds the models as generated deserializers: for each JSON property of a model, the reader
 * of its type. Checking a body walks it with those readers.
 */
const require = createRequire(import.meta.url);
const PACKAGES: Record<string, string> = {
  users: dirname(require.resolve('@microsoft/msgraph-sdk-users/package.json')),
  subscriptions: dirname(require.resolve('@microsoft/msgraph-sdk-subscriptions/package.json')),
};
const GRAPH = dirname(require.resolve('@microsoft/msgraph-sdk/package.json'));

type Factory = (node: unknown) => (into: object) => Record<string, (node: CheckNode) => void>;
interface RequestMetadata {
  uriTemplate: string;
  adapterMethodName: string;
  responseBodyFactory?: Factory;
  requestBodySerializer?: { name: string };
  errorMappings?: Record<string, Factory>;
}

export async function graphDefinition(): Promise<Definition> {
  const models = await import(join(GRAPH, 'models/index.js'));
  const builders = new Map<string, { module: Record<string, any>; metadata: Record<string, RequestMetadata> } | null>();

  const builderAt = async (folder: string) => {
    if (!builders.has(folder)) {
      const file = join(PACKAGES[folder.split('/')[0]!]!, folder, 'index.js');
      if (!existsSync(file)) builders.set(folder, null);
      else {
        const module = await import(file);
        const name = Object.keys(module).find((k) => k.endsWith('RequestBuilderRequestsMetadata'));
        builders.set(folder, name ? { module, metadata: module[name] } : null);
      }
    }
    return builders.get(folder)!;
  };
  const operation = (method: string, meta: RequestMetadata, module: Record<string, any>): Operation => {
    const uri = meta.uriTemplate.replace('{+baseurl}', '');
    const cut = [uri.indexOf('{?'), uri.indexOf('?'), uri.length].find((i) => i >= 0)!;
    const [template, query] = [uri.slice(0, cut), uri.slice(cut)];
    const allowedQuery = decodeURIComponent(query.replace(/=\{[^}]*\}/g, '').replace(/[{}?&*]/g, ',')).split(',').filter(Boolean);
    const body = meta.requestBodySerializer ? requestFactory(meta.requestBodySerializer.name, module, models) : undefined;
    return {
      id: `${method} ${template.replace(/%2D/g, '-')}`,
      checkRequest(exchange) {
        const problems = [...exchange.request.query.keys()].filter((k) => !allowedQuery.includes(k)).map((k) => `query parameter '${k}' is not documented`);
        const sent = exchange.request.rawBody.length > 0;
        if (sent && !meta.requestBodySerializer) problems.push('sends a body; the operation takes none');
        else if (sent && body) problems.push(...checkObject(body, exchange.request.body, 'request body'));
        else if (sent) problems.push(`no reader found for the body model (${meta.requestBodySerializer!.name})`);
        return problems;
      },
      checkResponse(exchange) {
        const got = answerBody(exchange);
        if (exchange.status >= 400) {
          const status = String(exchange.status);
          const factory = meta.errorMappings?.[status] ?? meta.errorMappings?.[`${status[0]}XX`] ?? meta.errorMappings?.XXX;
          if (!factory) return [`status ${status} has no documented error model`];
          return got.isJson ? checkObject(factory, got.json, 'error') : ['answers an error without a JSON body'];
        }
        if (meta.adapterMethodName === 'sendNoResponseContent') return got.empty ? [] : ['answers with a body; the operation gives none'];
        if (!meta.responseBodyFactory) return [];
        if (!got.isJson) return ['answers something other than JSON; the operation gives a model'];
        return checkObject(meta.responseBodyFactory, got.json, 'answer');
      },
    };
  };
  const found = new Map<string, Operation | undefined>();
  const key = (method: string, path: string) => `${method} ${path}`;
  return {
    find: (method, path) => found.get(key(method, path)),
    async prepare(exchanges: SandboxExchange[]) {
      for (const { request } of exchanges) {
        const k = key(request.method, request.path);
        if (found.has(k)) continue;
        const folder = folderOf(request.path);
        const builder = folder ? await builderAt(folder) : null;
        const meta = builder?.metadata[request.method.toLowerCase()];
        found.set(k, builder && meta ? operation(request.method, meta, builder.module) : undefined);
      }
    },
  };
}

/** The request builder folder of a Graph path, e.g. /v1.0/me/messages/AAMk/move → users/item/messages/item/move. */
function folderOf(path: string): string | undefined {
  const segments = path.replace(/^\/v1\.0/, '').replace(/^\/me(?=\/|$)/, '/users/me').split('/').filter(Boolean);
  const root = PACKAGES[segments[0] ?? ''];
  if (!root) return undefined;
  let folder = segments[0]!;
  for (const segment of segments.slice(1)) {
    const literal = decodeURIComponent(segment).replace(/^microsoft\.graph\./, '').replace(/\(\)$/, '');
    if (/^[A-Za-z]+$/.test(literal) && existsSync(join(root, folder, literal))) folder = `${folder}/${literal}`;
    else if (existsSync(join(root, folder, 'item'))) folder = `${folder}/item`;
    else return undefined;
  }
  return folder;
}

/** The reader of a request body model, from its serializer's name: in the builder's own module, else among the models. */
function requestFactory(serializer: string, module: Record<string, any>, models: Record<string, any>): Factory | undefined {
  const name = `create${serializer.replace(/^serialize/, '')}FromDiscriminatorValue`;
  return module[name] ?? models[name];
}

function checkObject(factory: Factory, value: unknown, at: string): string[] {
  const problems: string[] = [];
  new CheckNode(value, at, problems).getObjectValue(factory);
  return problems.slice(0, 12);
}

/**
 * An action's parameters are spelled as Graph's CSDL declares them (Message, SaveToSentItems) while its documentation
 * and every client send them camelCase; Graph matches them without regard to case.
 */
function actionParameter(readers: Record<string, unknown>, key: string): string {
  return Object.keys(readers).find((k) => /^[A-Z]/.test(k) && k.toLowerCase() === key.toLowerCase()) ?? key;
}

/** OData control information Graph may add to any object: @odata.context, @odata.etag, name@odata.nextLink... */
const isAnnotation = (key: string) => key.includes('@odata.') || key.startsWith('@microsoft.graph.');

/** A ParseNode that reads a JSON value as the SDK's deserializers ask for it, noting each value that is not of the asked type. */
class CheckNode {
  onBeforeAssignFieldValues = undefined;
  onAfterAssignFieldValues = undefined;
  constructor(
    private readonly value: unknown,
    private readonly at: string,
    private readonly problems: string[],
  ) {}

  private is(ok: boolean, what: string): boolean {
    if (this.value === null || this.value === undefined) return false;
    if (!ok) this.problems.push(`${this.at} is ${JSON.stringify(this.value).slice(0, 60)}, not ${what}`);
    return ok;
  }
  private text(pattern: RegExp, what: string): undefined {
    this.is(typeof this.value === 'string' && pattern.test(this.value), what);
    return undefined;
  }
  getChildNode(key: string) {
    const v = this.value as Record<string, unknown> | null;
    return v && typeof v === 'object' && key in v ? new CheckNode(v[key], `${this.at}/${key}`, this.problems) : undefined;
  }
  getStringValue() {
    return this.is(typeof this.value === 'string', 'a string') ? (this.value as string) : undefined;
  }
  getBooleanValue() {
    this.is(typeof this.value === 'boolean', 'a boolean');
    return undefined;
  }
  getNumberValue() {
    this.is(typeof this.value === 'number', 'a number');
    return undefined;
  }
  getGuidValue() {
    return this.text(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'a GUID');
  }
  getDateValue() {
    // Graph writes some instants without an offset (an error's innerError.date); the SDK reads both as UTC.
    return this.text(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/, 'an ISO 8601 date-time');
  }
  getDateOnlyValue() {
    return this.text(/^\d{4}-\d{2}-\d{2}$/, 'a date (yyyy-mm-dd)');
  }
  getTimeOnlyValue() {
    return this.text(/^\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/, 'a time of day');
  }
  getDurationValue() {
    return this.text(/^-?P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/, 'an ISO 8601 duration');
  }
  getByteArrayValue() {
    return this.text(/^[A-Za-z0-9+/=_-]*$/, 'base64');
  }
  getCollectionOfPrimitiveValues() {
    this.is(Array.isArray(this.value), 'an array');
    return undefined;
  }
  getCollectionOfObjectValues(factory: Factory) {
    if (this.is(Array.isArray(this.value), 'an array')) (this.value as unknown[]).forEach((v, i) => new CheckNode(v, `${this.at}/${i}`, this.problems).getObjectValue(factory));
    return undefined;
  }
  getObjectValue(factory: Factory) {
    if (!this.is(typeof this.value === 'object' && !Array.isArray(this.value), 'an object')) return {};
    const readers = factory(this)({});
    for (const [key, v] of Object.entries(this.value as Record<string, unknown>)) {
      const reader = readers[key] ?? readers[actionParameter(readers, key)];
      if (reader) reader(new CheckNode(v, `${this.at}/${key}`, this.problems));
      else if (!isAnnotation(key)) this.problems.push(`${this.at}/${key} is not a property of this model`);
    }
    return {};
  }
  getEnumValue(type: Record<string, string>) {
    // Graph reads enum members without regard to case: its own examples send "contentType": "Text".
    const allowed = Object.values(type).map((v) => v.toLowerCase());
    if (this.is(typeof this.value === 'string', 'a string')) {
      for (const part of (this.value as string).split(',')) if (!allowed.includes(part.trim().toLowerCase())) this.problems.push(`${this.at} is '${part}', not one of ${allowed.join(', ')}`);
    }
    return undefined;
  }
  getCollectionOfEnumValues(type: Record<string, string>) {
    if (this.is(Array.isArray(this.value), 'an array')) (this.value as unknown[]).forEach((v, i) => new CheckNode(v, `${this.at}/${i}`, this.problems).getEnumValue(type));
    return [];
  }
}
