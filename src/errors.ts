import type { Redactor } from './redact.js';
import { findProviderRecord } from './providers.js';

/** A caller mistake: the message names the field and how to fix it. Nothing was sent or written. */
export class InputError extends Error {
  override name = 'InputError';
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** Which part of a store's health failed: it answers at all, its data is intact, its schema is this version's. */
export type StorePart = 'reachable' | 'intact' | 'schema';

/**
 * The store cannot serve: damaged, unreachable, or of another schema version. `message` names the file or database
 * and the fix (for the operator, the CLI and MCP callers); `summary` says the same without naming where the store
 * is, for answers anyone reaching the listener may read (readiness, refused pages and webhooks).
 */
export class StoreUnavailableError extends InputError {
  override name = 'StoreUnavailableError';
  constructor(
    message: string,
    readonly part: StorePart,
    readonly summary: string,
    field: 'data-dir' | 'database-url',
  ) {
    super(message, field);
  }
}

/** The account cannot be used as it is: missing, ambiguous, lacking a permission group, or needing a reconnect. */
export class AccountError extends Error {
  override name = 'AccountError';
  constructor(
    message: string,
    /** Set when signing in again would fix it: which account, so a sign-in link can be offered. */
    readonly reconnect?: { provider: string; label: string },
  ) {
    super(message);
  }
}

/** How an account of this provider is connected: the way it was signed in before (meta.signIn), else a token or key. */
export function connectCommand(provider: string, label?: string, signIn?: string, baseUrl?: string | null): string {
  const labelFlag = label === undefined ? '' : ` --label "${label}"`;
  if (signIn === 'device' || signIn === 'browser') return `switchboard accounts add ${provider} --${signIn}${labelFlag}`;
  const baseFlag = baseUrl ? ` --base-url ${baseUrl}` : '';
  return `switchboard accounts add ${provider}${labelFlag}${baseFlag} ${findProviderRecord(provider)?.credential === 'api_key' ? '--api-key-stdin' : '--token-stdin'}`;
}

/** What a tool answers for an account whose credential was refused or could not be refreshed: the exact way back. */
export function reconnectMessage(account: { id: string; provider: string; label: string; meta: Record<string, string>; baseUrl?: string | null }): string {
  const signIn = account.meta.signIn;
  const head = `The ${account.provider} account "${account.label}" needs to be reconnected`;
  if (signIn === 'device' || signIn === 'browser') {
    return (
      `${head}: its sign-in has expired or was revoked (status needs_reconnect). ` +
      `Sign in again with: ${connectCommand(account.provider, account.label, signIn)} ` +
      `(or Sign in under Add Integration on the Integrations page); the account keeps its id, triggers and settings.`
    );
  }
  return (
    `${head}: its credential was refused or has expired. ` +
    `Remove it (switchboard accounts remove ${account.id}) and connect it again: ${connectCommand(account.provider, account.label, undefined, account.baseUrl)}.`
  );
}

/** A budget of the policy is used up for this window: nothing was sent to the provider. */
export class BudgetError extends Error {
  override name = 'BudgetError';
  constructor(
    /** What is counted, as the policy names it (providerRequestsPerHour, salesCreditsPerDay, emailsPerDay). */
    readonly budget: string,
    readonly used: number,
    readonly limit: number,
    readonly resetsAt: Date,
    /** Where the budget applies: the account, and the rule of the policy that sets the limit. */
    where: { account: string; rule: string },
    now: number = Date.now(),
  ) {
    const minutes = Math.max(1, Math.ceil((resetsAt.getTime() - now) / 60_000));
    super(
      `Budget reached: ${budget} is ${limit} for you on ${where.account} (policy ${where.rule}), and ${used} ${used === 1 ? 'is' : 'are'} used in this window. ` +
        `It resets at ${resetsAt.toISOString()} (in ${minutes} min). Nothing was sent to the provider: call again after the reset, or ask an admin to raise the budget.`,
    );
  }
}

/** The policy's tools rules do not let this person use the tool. */
export class ToolRefusedError extends InputError {
  override name = 'ToolRefusedError';
}

/** The server is shutting down: it takes no new tool calls. */
export class ShutdownError extends Error {
  override name = 'ShutdownError';
  constructor() {
    super('Switchboard is shutting down and takes no new tool calls: call again once it is back.');
  }
}

export interface RateLimit {
  limit?: number;
  remaining?: number;
  /** UTC epoch seconds. */
  reset?: number;
  resource?: string;
}

export interface ProviderErrorInit {
  connector: string;
  status: number;
  method: string;
  path: string;
  code?: string;
  providerMessage?: string;
  retryAfterSeconds?: number;
  rateLimit?: RateLimit;
  body?: unknown;
}

/** The provider answered with an error status, or could not be reached (status 0). */
export class ProviderError extends Error {
  override name = 'ProviderError';
  readonly connector: string;
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly code?: string;
  readonly providerMessage?: string;
  readonly retryAfterSeconds?: number;
  readonly rateLimit?: RateLimit;
  readonly body?: unknown;

  constructor(init: ProviderErrorInit) {
    super(describeProviderFailure(init));
    this.connector = init.connector;
    this.status = init.status;
    this.method = init.method;
    this.path = init.path;
    this.code = init.code;
    this.providerMessage = init.providerMessage;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.rateLimit = init.rateLimit;
    this.body = init.body;
  }
}

/** A provider answered with success, but not in the shape the tool reads: a field it needs was missing or of another type. */
export class UnexpectedAnswerError extends Error {
  override name = 'UnexpectedAnswerError';
  constructor(
    readonly connector: string,
    readonly method: string,
    readonly path: string,
    cause: TypeError,
  ) {
    const who = findProviderRecord(connector)?.apiTitle ?? connector;
    const reading = /\(reading '([^']*)'\)/.exec(cause.message)?.[1];
    const lacked = reading !== undefined ? `the object holding "${reading}"` : `what the tool reads (${cause.message})`;
    super(
      `${who}'s answer to ${method} ${path} lacked ${lacked}. The answer had an unexpected shape: check the ids, retry, or use ${connector}_api_call to see the raw answer.`,
      { cause },
    );
  }
}


function describeProviderFailure(e: ProviderErrorInit): string {
  const who = findProviderRecord(e.connector)?.apiTitle ?? e.connector;
  const what = `${e.method} ${e.path}`;
  if (e.status === 0) return `${who} could not be reached for ${what}: ${e.providerMessage ?? 'network error'}.`;
  const detail = [e.code, e.providerMessage].filter(Boolean).join(': ');
  return `${who} answered ${e.status} to ${what}${detail ? ` (${detail})` : ''}. ${hintFor(e)}`.trim();
}

function hintFor(e: ProviderErrorInit): string {
  if (e.status === 401) return 'The credential was refused: reconnect the account (switchboard accounts add).';
  if (e.status === 429 || e.retryAfterSeconds !== undefined || e.rateLimit?.remaining === 0) {
    const wait = e.retryAfterSeconds ?? secondsUntil(e.rateLimit?.reset);
    return wait !== undefined ? `Rate limited: retry after ${wait} s.` : 'Rate limited: retry later.';
  }
  if (e.status === 403) return 'The account lacks permission for this: check its scopes or access to the resource.';
  if (e.status === 404) return 'Not found: check the ids and path (list tools give valid ids).';
  if (e.status >= 500) return 'The provider failed; retry later.';
  return '';
}

function secondsUntil(resetEpochSeconds: number | undefined): number | undefined {
  if (resetEpochSeconds === undefined) return undefined;
  return Math.max(0, Math.ceil(resetEpochSeconds - Date.now() / 1000));
}

export interface ErrorMessageOptions {
  /** Removes every secret the process knows of from the text. */
  redactor?: Redactor;
  /** A sign-in link was sent to the user with this error (URL elicitation). */
  signInOffered?: boolean;
}

/** The one place an error becomes the text a model (or the page) is shown: what failed and what to do. */
export function errorMessage(error: unknown, options: ErrorMessageOptions = {}): string {
  let text = error instanceof Error ? messageOf(error) : `Unexpected failure: ${String(error)}`;
  if (options.signInOffered) text += ' A sign-in link was offered to the user; once they have signed in, call the tool again.';
  return options.redactor ? options.redactor.redact(text) : text;
}

function messageOf(error: Error): string {
  if (
    error instanceof InputError ||
    error instanceof AccountError ||
    error instanceof ProviderError ||
    error instanceof UnexpectedAnswerError ||
    error instanceof ShutdownError ||
    error instanceof BudgetError
  ) {
    return error.message;
  }
  return `Internal error: ${error.message}`;
}
