import type { Dispatcher } from 'undici';
import * as z from 'zod/v4';
import { didYouMean } from './suggest.js';
import { InputError } from './errors.js';
import { fillMissing, type Lenient } from './missing-fields.js';
import { checkArguments } from './nesting.js';
import { checkFields, fieldsInput, pickFields, recordFieldNames, selectableOutput } from './fields.js';
import { createApi, readingAnswers, type Api, type ResponseCache } from './http/client.js';
import type { RetryPolicy } from './http/retry.js';
import type { SignInApi, TokenProvider } from './contracts/accounts.js';
import type { TriggerRuntime } from './contracts/triggers.js';
import type { ForwardPolicy } from './http/forward-guard.js';
import type { PersonAtProvider } from './contracts/team.js';
import type { Actor, AuditTrail, BudgetGate, CallBudget } from './contracts/governance.js';
import type { Drain } from './drain.js';
import type { Redactor } from './redact.js';
import type { ObjectSchema } from './schema.js';
import type { PolicySource } from './policy.js';
import type { Account, AccountSecret, Provider, Store } from './store/types.js';

export type Effect = 'read' | 'write' | 'delete';

/** What every tool may use, passed in by the server: nothing is a module global. */
export interface ToolDeps {
  /** The store as the caller's owner sees it (Store.ownedBy): the tools reach nobody else's accounts, triggers or events. */
  store: Store;
  /** Whose call it is: a person's id in team mode, else PERSONAL_OWNER. */
  owner?: string;
  /** Trigger kinds, the event log and the runner; absent where a process serves no triggers. */
  triggers?: TriggerRuntime;
  baseUrls: Record<Provider, string>;
  redactor: Redactor;
  readOnly: boolean;
  dispatcher?: Dispatcher;
  retry?: RetryPolicy;
  /** Shared ETag cache for connectors that revalidate GETs (GitHub). */
  cache?: ResponseCache;
  /** Days a paid sales lookup is answered from the local cache (default 30). */
  salesCacheDays?: number;
  /** Browser sign-in (pop-up on the Integrations page); absent where OAuth is not set up. */
  signIn?: SignInApi;
  /** Refreshes OAuth access tokens before expiry and after a 401; without it tokens are sent as stored. */
  tokens?: TokenProvider;
  /** Keeps each result within a token budget, cut with a cursor when larger; without it results go whole. */
  results?: ResultFitter;
  /** Where trigger events may be forwarded; without it private networks are refused. */
  forwardPolicy?: ForwardPolicy;
  /** `cli` when a person runs the tool from the command line: what happens next is then said as CLI commands. */
  surface?: 'cli';
  /** Shutdown of a serving process: new calls are refused once it stops, and long polls end early. */
  drain?: Drain;
  /** Who makes the call and how they authenticated; the audit trail records it. */
  actor?: Actor;
  /** Where tool calls and administrative acts are recorded; nothing is recorded without it. */
  audit?: AuditTrail;
  /** The governance policy in force (approvals, budgets, tools per person); everything is allowed without it. */
  policy?: PolicySource;
  /** Budgets on shared quotas, counted before each provider request; without it nothing is counted. */
  budgets?: BudgetGate;
  /** Why the policy's tools rules refuse this caller a tool (the rule), or undefined when they allow it; absent: every tool. */
  refuseTool?: (tool: { name: string; effect: Effect }) => string | undefined;
  /** SWITCHBOARD_APPROVAL_TTL_MINUTES: how long an approval waits, unless its rule says. */
  approvalTtlMinutes?: number;
}

export interface CallContext {
  deps: ToolDeps;
  signal: AbortSignal;
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Filled in by the tool road as the call goes, for its audit record: the account it resolved, the provider's status. */
  facts?: CallFacts;
}

export interface CallFacts {
  account?: string;
  providerStatus?: number;
  /** The approval the call runs under, when the policy asked for one. */
  approvalId?: string;
}

/** Keeps each result within a token budget (ResultBudget): runs the tool, or serves the rest of a result cut earlier. */
export interface ResultFitter {
  call(tool: Tool, args: unknown, ctx: CallContext): Promise<Record<string, unknown>>;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  input: ObjectSchema;
  output: ObjectSchema;
  effect: Effect;
  idempotent?: boolean;
  /** The connector whose account the tool uses; absent for platform tools. */
  connector?: Provider;
  call(args: unknown, ctx: CallContext): Promise<Record<string, unknown>>;
}

export interface ToolDefinition<I extends ObjectSchema, O extends ObjectSchema, C> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  effect: Effect;
  idempotent?: boolean;
  /** A list tool's field of records: callers may pass `fields` to get fewer fields of each record. */
  records?: string;
  /** The input field that holds another tool's arguments (tools_call): their nesting counts from that field. */
  carries?: string;
  run(input: z.output<I>, ctx: C): Promise<Lenient<z.input<O>>>;
}

/** A tool in one line: the first sentence of its description. */
export function summaryOf(tool: Pick<Tool, 'description'>): string {
  return tool.description.split(/(?<=\.)\s/)[0]!;
}

/** A platform tool (accounts, triggers, events): no provider account of its own. */
export function defineTool<I extends ObjectSchema, O extends ObjectSchema>(def: ToolDefinition<I, O, CallContext>): Tool {
  const view = recordsView(def);
  return {
    name: def.name,
    title: def.title,
    description: def.description,
    input: view.input,
    output: view.output,
    effect: def.effect,
    idempotent: def.idempotent,
    async call(args, ctx) {
      const { rest, finish } = view.take(parseInput(view.input, args, undefined, def.carries) as Record<string, unknown>);
      return finish(fillMissing(def.output, await def.run(rest as z.output<I>, ctx)) as Record<string, unknown>);
    },
  };
}

type Data = Record<string, unknown>;

/** The `fields` input of a list tool, checked before the call, and applied to its records after. */
function recordsView(def: { input: ObjectSchema; output: ObjectSchema; records?: string }) {
  const records = def.records;
  if (!records) return { input: def.input, output: def.output, take: (args: Data) => ({ rest: args, finish: (result: Data) => result }) };
  const names = recordFieldNames(def.output, records);
  return {
    input: def.input.extend({ fields: fieldsInput }) as ObjectSchema,
    output: selectableOutput(def.output, records),
    take(args: Data) {
      const { fields, ...rest } = args as Data & { fields?: string[] };
      checkFields(fields, names);
      return { rest, finish: (result: Data) => pickFields(result, records, fields, names) };
    },
  };
}

/** The arguments checked (nesting and text first, then the schema), or an InputError naming each wrong field. */
export function parseInput<I extends ObjectSchema>(schema: I, args: unknown, prefix?: string, carries?: string): z.output<I> {
  checkArguments(args, { prefix, carries });
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((issue) => {
    const path = [prefix, ...issue.path].filter((p) => p !== undefined).join('.') || '(arguments)';
    if (issue.code === 'unrecognized_keys') return `${path}: unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}; remove them`;
    if (issue.code === 'invalid_value') {
      const typed = issue.path.reduce<unknown>((at, key) => (at as Record<PropertyKey, unknown> | undefined)?.[key], args);
      const choices = issue.values.filter((v): v is string => typeof v === 'string');
      if (typeof typed === 'string') return `${path}: ${issue.message}${didYouMean(typed, choices)}`;
    }
    return `${path}: ${issue.message}`;
  });
  const first = [prefix, ...(parsed.error.issues[0]?.path ?? [])].filter((p) => p !== undefined).join('.');
  throw new InputError(`Invalid arguments:\n- ${lines.join('\n- ')}`, first || undefined);
}

export interface AccountContext extends CallContext {
  account: Account;
  api: Api;
}

export interface ConnectorSpec {
  id: Provider;
  title: string;
  baseUrl: string;
  defaultHeaders?: Record<string, string>;
  /** How an account's secret becomes request headers. */
  auth(secret: AccountSecret, account: Account): Record<string, string>;
  /** Query parameters every request of this account carries (Vercel teamId). */
  defaultQuery?(account: Account): Record<string, string> | undefined;
  /** Revalidate GETs with ETags through the shared cache, so repeated reads cost no quota. */
  conditionalGets?: boolean;
  /** Fields every result of this connector's tools carries (GitHub: the remaining quota), with their schema. */
  resultExtras?: { shape: z.ZodRawShape; from(api: Api): Record<string, unknown> };
  /**
   * Who the credential belongs to, looked up when an account is added; `wanted` is what the person asked
   * for besides (a Vercel team), checked here so that nothing unusable is stored.
   */
  identify(api: Api, wanted: IdentifyRequest): Promise<{ identity: string | null; scopes?: string[]; meta?: Record<string, string> }>;
  /** Who signed in to a team server, asked with the token that sign-in granted (providers that sign people in). */
  whoSignedIn?(api: Api): Promise<PersonAtProvider>;
  /** Whether a request sends an email, counted by the emails-per-day budget. */
  sendsEmail?(method: string, path: string): boolean;
  /** The credits a tool's result says it spent, counted by the sales-credits budget; each call reserves one first. */
  creditsOf?(result: Record<string, unknown>): number;
}

export interface IdentifyRequest {
  /** A Vercel team id or slug. */
  team?: string;
}

export interface Connector extends ConnectorSpec {
  tool<I extends ObjectSchema, O extends ObjectSchema>(def: ToolDefinition<I, O, AccountContext>): Tool;
  /** An API client bound to one account. */
  api(account: Account, secret: AccountSecret, deps: Pick<ToolDeps, 'baseUrls' | 'dispatcher' | 'retry' | 'cache' | 'tokens'>, signal?: AbortSignal, budget?: CallBudget): Api;
}

/** Runs a call that may spend sales credits: one is reserved first (refused at the limit), then corrected by what it reports. */
async function spending<T>(budget: CallBudget | undefined, creditsOf: ConnectorSpec['creditsOf'], run: () => Promise<T>): Promise<T> {
  if (!budget || !creditsOf) return run();
  await budget.reserveCredits(1);
  let spent = 0;
  try {
    const result = await run();
    spent = creditsOf(result as Record<string, unknown>);
    return result;
  } finally {
    await budget.settleCredits(spent - 1);
  }
}

/**
 * A provider: its base URL, headers and credentials, and `tool()`, which prefixes names, adds
 * the `account` input, resolves the account and binds an API client for every tool.
 */
export function defineConnector(spec: ConnectorSpec): Connector {
  const connector: Connector = {
    ...spec,
    api(account, secret, deps, signal, budget) {
      // An OAuth token is refreshed shortly before it expires, and once after a 401.
      const tokens = deps.tokens;
      let current = secret;
      return createApi({
        connector: spec.id,
        // An account's own base URL (GitHub Enterprise Server, a national cloud) pins its calls to that host.
        baseUrl: account.baseUrl ?? deps.baseUrls[spec.id] ?? spec.baseUrl,
        defaultHeaders: spec.defaultHeaders,
        defaultQuery: spec.defaultQuery?.(account),
        auth: async () => {
          if (tokens) current = await tokens.fresh(account, current, signal);
          return spec.auth(current, account);
        },
        onUnauthorized:
          tokens && secret.kind === 'oauth'
            ? async () => {
                const renewed = await tokens.renew(account, current, signal);
                if (!renewed) return false;
                current = renewed;
                return true;
              }
            : undefined,
        dispatcher: deps.dispatcher,
        retry: deps.retry,
        signal,
        cache: spec.conditionalGets ? deps.cache : undefined,
        cacheScope: account.id,
        beforeSend: budget && ((request) => budget.beforeRequest(request)),
      });
    },
    tool(def) {
      const view = recordsView(def);
      // The server's instructions say what "account" takes, once, instead of in each of 57 tools.
      const input = view.input.extend({ account: z.string().optional() }) as ObjectSchema;
      return {
        name: `${spec.id}_${def.name}`,
        title: def.title,
        description: def.description,
        input,
        output: spec.resultExtras ? (view.output.extend(spec.resultExtras.shape) as ObjectSchema) : view.output,
        effect: def.effect,
        idempotent: def.idempotent,
        connector: spec.id,
        async call(args, ctx) {
          const { account: ref, ...parsed } = parseInput(input, args) as { account?: string };
          const { rest, finish } = view.take(parsed);
          const { account, secret } = await ctx.deps.store.accounts.resolve(spec.id, ref);
          if (ctx.facts) ctx.facts.account = account.id;
          const budget = await ctx.deps.budgets?.forCall(ctx.deps, account, spec.sendsEmail);
          const api = connector.api(account, secret, ctx.deps, ctx.signal, budget);
          const answer = await spending(budget, spec.creditsOf, () => readingAnswers(api, () => def.run(rest as z.output<typeof def.input>, { ...ctx, account, api }))).finally(() => {
            if (ctx.facts && api.lastStatus !== undefined) ctx.facts.providerStatus = api.lastStatus;
          });
          // A provider may leave out a field the output schema holds: it comes as null, as the schema allows.
          const result = finish(fillMissing(def.output, answer) as Record<string, unknown>);
          await ctx.deps.store.accounts.touch(account.id);
          return spec.resultExtras ? { ...result, ...spec.resultExtras.from(api) } : result;
        },
      };
    },
  };
  return connector;
}
