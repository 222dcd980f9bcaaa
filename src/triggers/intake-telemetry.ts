import type { IncomingMessage } from 'node:http';
import { instruments } from '../telemetry/metrics.js';
import { contextFrom, failSpan, inSpan, recordGetter, SpanKind, tracingOn } from '../telemetry/trace.js';

/** How a provider's delivery ended: accepted, or the reason it was refused. */
export type IntakeOutcome = 'accepted' | 'ping' | 'unknown_addressee' | 'unread' | 'bad_signature' | 'malformed' | 'not_stored';

const STATUS: Record<IntakeOutcome, number> = { accepted: 200, ping: 200, unknown_addressee: 404, unread: 413, bad_signature: 401, malformed: 400, not_stored: 503 };

/**
 * One provider webhook delivery: a server span `webhook {provider}` (continuing the sender's trace when its headers
 * carry one), its verify and commit steps as children, and the delivery counted by provider and outcome.
 */
export async function observeIntake(provider: string, req: IncomingMessage, take: () => Promise<IntakeOutcome>): Promise<void> {
  const metrics = instruments();
  if (!tracingOn() && !metrics) return void (await take());
  let outcome: IntakeOutcome | undefined;
  try {
    outcome = await inSpan(
      `webhook ${provider}`,
      { kind: SpanKind.SERVER, parent: contextFrom(req.headers as Record<string, unknown>, recordGetter), attributes: { 'switchboard.provider': provider, 'http.request.method': 'POST' } },
      async (span) => {
        const ended = await take();
        span?.setAttributes({ 'switchboard.webhook.outcome': ended, 'http.response.status_code': STATUS[ended] });
        if (STATUS[ended] >= 400) failSpan(span, ended);
        return ended;
      },
    );
  } finally {
    metrics?.webhookDeliveries.add(1, { 'switchboard.provider': provider, outcome: outcome ?? 'failed' });
  }
}

/** A step of the intake (verify, commit) as a child span; just runs it when tracing is off. */
export function intakeStep<T>(name: 'verify' | 'commit', run: () => Promise<T>): Promise<T> {
  return tracingOn() ? inSpan(`webhook ${name}`, {}, run) : run();
}
