import { createHash, createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { request, type Dispatcher } from 'undici';
import { ForwardRefused } from '../http/forward-guard.js';
import { VERSION } from '../version.js';
import { callbackRefusal } from './delivery-checks.js';

export const SUBSCRIPTION_ID_HEADER = 'X-MCP-Subscription-Id';
export const DELIVERY_TIMEOUT_MS = 10_000;
const MAX_CHALLENGE_ANSWER_BYTES = 4_096;

export type TransportCategory = 'connection_refused' | 'timeout' | 'tls_error' | 'http_4xx' | 'http_5xx';

export interface SendOptions {
  /** forwardDispatcher(policy): every address connected to is checked, and redirects are never followed. */
  dispatcher: Dispatcher;
  /** Private networks (and plain http beyond loopback) may be reached (SWITCHBOARD_FORWARD_ALLOW_PRIVATE). */
  allowPrivate?: boolean;
  timeoutMs?: number;
  now?: () => Date;
}

export interface SignedPost {
  url: string;
  subscriptionId: string;
  webhookId: string;
  /** The exact bytes sent and signed; a Buffer when many subscriptions are sent the same body, encoded once. */
  body: string | Buffer;
  /** The current secret first, then the previous one while its grace period lasts: each signs. */
  secrets: string[];
}

/** How one POST ended; `reason` is ours (never the receiver's body, never a secret). */
export interface SendOutcome {
  ok: boolean;
  status?: number;
  category?: TransportCategory;
  retry: boolean;
  durationMs: number;
  reason?: string;
}

export interface VerifyOutcome {
  ok: boolean;
  status?: number;
  category?: TransportCategory | 'challenge_failed';
  durationMs: number;
  reason?: string;
}

/**
 * The Standard Webhooks signature header: one `v1,<base64>` per secret, space-separated, each the HMAC-SHA256 of
 * `id.timestamp.body` under the secret's bytes. Node's own HMAC signs: the `standardwebhooks` package (which the tests
 * verify every signature with) hashes in JavaScript, 12 times slower on an 11 KB event, and each event is signed once
 * per subscription and attempt.
 */
export function signatures(webhookId: string, at: Date, body: string | Buffer, secrets: string[]): string {
  if (secrets.length === 0) throw new Error('a webhook delivery needs at least one secret to sign with');
  const signed = `${webhookId}.${Math.floor(at.getTime() / 1000)}.`;
  return secrets.map((secret) => `v1,${createHmac('sha256', signingKey(secret)).update(signed).update(body).digest('base64')}`).join(' ');
}

// Each secret signs every event its subscription is sent: its key is decoded once (a few thousand at most are kept).
const signingKeys = new Map<string, KeyObject>();
const MAX_SIGNING_KEYS = 4_096;

function signingKey(secret: string): KeyObject {
  let key = signingKeys.get(secret);
  if (key) return key;
  const encoded = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret)?.[1];
  if (!encoded) throw new Error('a stored webhook secret is not whsec_ and base64, so it cannot sign; subscribing again replaces it');
  if (signingKeys.size >= MAX_SIGNING_KEYS) signingKeys.clear();
  signingKeys.set(secret, (key = createSecretKey(Buffer.from(encoded, 'base64'))));
  return key;
}

function signedHeaders(post: SignedPost, now: Date): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': `switchboard-events/${VERSION}`,
    'webhook-id': post.webhookId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signatures(post.webhookId, now, post.body, post.secrets),
    [SUBSCRIPTION_ID_HEADER]: post.subscriptionId,
  };
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT', 'TimeoutError', 'AbortError', 'UND_ERR_ABORTED']);
const TLS_CODE = /^(ERR_TLS|ERR_SSL|ERR_OSSL|EPROTO|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH)/;

/** The error and the causes it wraps (undici wraps the socket's error). */
function causeChain(error: unknown): { code?: unknown; name?: unknown }[] {
  const chain: { code?: unknown; name?: unknown; cause?: unknown }[] = [];
  for (let e = error as (typeof chain)[number] | undefined; e && typeof e === 'object' && chain.length < 4; e = e.cause as typeof e) chain.push(e);
  return chain;
}

/** A transport failure as a category; only a refused address is not worth trying again. */
function transportFailure(error: unknown): Omit<SendOutcome, 'durationMs'> {
  const chain = causeChain(error);
  const refused = chain.find((e): e is ForwardRefused => e instanceof ForwardRefused);
  if (refused) return { ok: false, category: 'connection_refused', retry: false, reason: `refused, not retried: ${refused.message}`.slice(0, 300) };
  const codes = chain.flatMap((e) => [e.code, e.name]).filter((c): c is string => typeof c === 'string');
  const code = codes[0] ?? 'network error';
  if (codes.some((c) => TIMEOUT_CODES.has(c))) return { ok: false, category: 'timeout', retry: true, reason: `no answer in time (${code})` };
  if (codes.some((c) => TLS_CODE.test(c))) return { ok: false, category: 'tls_error', retry: true, reason: `TLS failed (${code})` };
  return { ok: false, category: 'connection_refused', retry: true, reason: `could not connect (${code})` };
}

function statusOutcome(status: number): Omit<SendOutcome, 'durationMs'> {
  if (status >= 200 && status < 300) return { ok: true, status, retry: false };
  if (status >= 500) return { ok: false, status, category: 'http_5xx', retry: true, reason: `receiver answered ${status}` };
  if (status === 410 || status === 413) return { ok: false, status, category: 'http_4xx', retry: false, reason: `receiver answered ${status}, not retried` };
  const reason = status < 400 ? `receiver answered ${status}; redirects are not followed` : `receiver answered ${status}`;
  return { ok: false, status, category: 'http_4xx', retry: true, reason };
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_CHALLENGE_ANSWER_BYTES) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

type Answer = { status: number; text?: string } | { failure: Omit<SendOutcome, 'durationMs'> };

async function postOnce(post: SignedPost, options: SendOptions, readAnswer: boolean): Promise<Answer> {
  let target: URL;
  try {
    target = new URL(post.url);
  } catch {
    return { failure: { ok: false, category: 'connection_refused', retry: false, reason: 'refused, not retried: the URL does not parse' } };
  }
  const refusal = callbackRefusal(target, options.allowPrivate ?? false);
  if (refusal) return { failure: { ok: false, category: 'connection_refused', retry: false, reason: `refused, not retried: ${refusal}` } };
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const headers = signedHeaders(post, options.now?.() ?? new Date());
  // The whole exchange is bounded: the waits by undici's timeouts, the answer's body by a timer that ends it. (An
  // AbortSignal per request was a tenth of the sender's CPU in the benchmark.)
  let res: Dispatcher.ResponseData | undefined;
  const timer = setTimeout(() => res?.body.destroy(Object.assign(new Error('the answer took too long'), { code: 'UND_ERR_BODY_TIMEOUT' })), timeoutMs);
  try {
    res = await request(post.url, {
      method: 'POST',
      headers,
      body: post.body,
      dispatcher: options.dispatcher,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    if (!readAnswer || res.statusCode < 200 || res.statusCode >= 300) {
      await res.body.dump().catch(() => undefined);
      return { status: res.statusCode };
    }
    return { status: res.statusCode, text: await readCapped(res.body) };
  } catch (error) {
    return { failure: transportFailure(error) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One signed POST of an MCP event delivery (or control envelope) to a subscription's callback: signed afresh with
 * every secret given, through the address guard, no redirects, within the timeout. 410 and 413 are not retried.
 */
export async function sendSigned(post: SignedPost, options: SendOptions): Promise<SendOutcome> {
  const started = performance.now();
  const answer = await postOnce(post, options, false);
  const outcome = 'failure' in answer ? answer.failure : statusOutcome(answer.status);
  return { ...outcome, durationMs: performance.now() - started };
}

const digest = (text: string) => createHash('sha256').update(text).digest();

function echoed(text: string | undefined, challenge: string): boolean {
  if (text === undefined) return false;
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return false;
  }
  const echo = (answer as { challenge?: unknown } | null)?.challenge;
  return typeof echo === 'string' && timingSafeEqual(digest(echo), digest(challenge));
}

/**
 * The callback challenge, before a subscription is answered: a signed `verification` body with a fresh nonce, which
 * the receiver must echo from a 2xx answer as `{"challenge": <nonce>}`.
 */
export async function verifyCallback(
  target: { url: string; subscriptionId: string; secret: string },
  options: SendOptions,
): Promise<VerifyOutcome> {
  const started = performance.now();
  const challenge = randomBytes(32).toString('base64url');
  const post: SignedPost = {
    url: target.url,
    subscriptionId: target.subscriptionId,
    webhookId: `msg_verification_${randomBytes(12).toString('hex')}`,
    body: JSON.stringify({ type: 'verification', challenge }),
    secrets: [target.secret],
  };
  const answer = await postOnce(post, options, true);
  const durationMs = () => performance.now() - started;
  if ('failure' in answer) {
    const { ok, status, category, reason } = answer.failure;
    return { ok, status, category, reason, durationMs: durationMs() };
  }
  const transport = statusOutcome(answer.status);
  if (!transport.ok) return { ok: false, status: answer.status, category: transport.category, reason: transport.reason, durationMs: durationMs() };
  if (!echoed(answer.text, challenge)) {
    return { ok: false, status: answer.status, category: 'challenge_failed', reason: 'the answer did not echo the challenge as {"challenge": "<nonce>"}', durationMs: durationMs() };
  }
  return { ok: true, status: answer.status, durationMs: durationMs() };
}
