import type { Dispatcher } from 'undici';
import { TokenRefresher } from './accounts/refresh.js';
import { createSignIn } from './accounts/sign-in.js';
import type { Config } from './config.js';
import { eventsLimits } from './events/limits.js';
import { budgetGate } from './governance/budgets.js';
import { policySource } from './governance/policy-source.js';
import { StoreAuditTrail } from './governance/audit-trail.js';
import { ResponseCache } from './http/client.js';
import type { Logger } from './log.js';
import type { ServerDeps } from './mcp/server.js';
import type { Redactor } from './redact.js';
import { serverTools } from './registry.js';
import { ResultBudget } from './result-budget.js';
import type { Store } from './store/types.js';
import type { EventLog } from './triggers/event-log.js';
import { TRIGGER_KINDS } from './triggers/kinds.js';

/** The settings the tools' dependencies are built from: a Config, or any object with these fields. */
export type DepsSettings = Pick<
  Config,
  'readOnly' | 'toolsets' | 'tools' | 'excludeTools' | 'toolMode' | 'salesCacheDays' | 'maxResultTokens' | 'forwardAllowPrivate' | 'oauth'
> & Partial<Pick<Config, 'policyFile' | 'approvalTtlMinutes'>> & { http: Pick<Config['http'], 'publicUrl' | 'token'> } & Partial<Pick<Config, 'audit' | 'eventsErrorCodes' | 'eventsMaxSubscriptions' | 'eventsMaxPerMinute' | 'eventsMaxPollsPerMinute' | 'eventsMinTtlSeconds'>>;

/** What has to be started before the tools can run: the store, the event log, and where the providers answer. */
export interface DepsParts {
  store: Store;
  log: EventLog;
  baseUrls: ServerDeps['baseUrls'];
  redactor: Redactor;
  logger: Logger;
  version: string;
  dispatcher?: Dispatcher;
  /** Asks the trigger runner to poll a trigger soon (the runner is built from these deps, so it comes later). */
  pollSoon?: (triggerId: string) => void;
}

/**
 * The one assembly of the tools' dependencies, used by serve and by the tests' servers. A test passes in `overrides`
 * only what it needs otherwise (a shorter retry policy, a smaller result budget).
 */
export function composeDeps(settings: DepsSettings, parts: DepsParts, overrides: Partial<ServerDeps> = {}): ServerDeps {
  const { store, log, baseUrls, redactor, logger, dispatcher, pollSoon } = parts;
  const oauth = settings.oauth;
  return {
    forwardPolicy: { allowPrivate: settings.forwardAllowPrivate },
    store,
    triggers: { kinds: TRIGGER_KINDS, log, publicUrl: settings.http.publicUrl, pollSoon },
    baseUrls,
    redactor,
    readOnly: settings.readOnly,
    dispatcher,
    cache: new ResponseCache(),
    salesCacheDays: settings.salesCacheDays,
    results: new ResultBudget({ maxTokens: settings.maxResultTokens, store: store.continuations }),
    signIn: createSignIn({ store, baseUrls, oauth, dispatcher, redactor }),
    tokens: new TokenRefresher({ store, oauth, redactor, logger }),
    logger,
    version: parts.version,
    tools: serverTools(settings),
    policy: policySource(store, settings.policyFile),
    approvalTtlMinutes: settings.approvalTtlMinutes,
    eventsErrorCodes: settings.eventsErrorCodes,
    eventsMaxSubscriptions: settings.eventsMaxSubscriptions,
    eventsLimits: eventsLimits({ eventsPerMinute: settings.eventsMaxPerMinute, pollsPerMinute: settings.eventsMaxPollsPerMinute }),
    budgets: budgetGate(() => store.budgets),
    // A person's calls over HTTP without team sign-in are authenticated by SWITCHBOARD_HTTP_TOKEN, or by nothing on loopback.
    httpAuth: settings.http.token ? 'static-token' : 'none',
    ...(settings.audit !== false && { audit: new StoreAuditTrail(store, { logger, redactor }) }),
    ...(settings.eventsMinTtlSeconds ? { eventsTiming: { minTtlMs: settings.eventsMinTtlSeconds * 1000 } } : {}),
    ...overrides,
  };
}
