import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type TextMapGetter } from '@opentelemetry/api';

export { ROOT_CONTEXT, SpanKind, type Attributes, type Context, type Span };

/** Set once the SDK is started with a span exporter; until then no span is made and nothing is asked of the API. */
let tracing = false;

export function enableTracing(): void {
  tracing = true;
}

export function tracingOn(): boolean {
  return tracing;
}

const tracer = () => trace.getTracer('switchboard');

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The context the span continues (a client's trace); the active one when absent. */
  parent?: Context;
}

/**
 * Runs `run` inside a new active span, ended when it settles; a throw marks the span failed with the error's class as
 * error.type (never its message, which may quote a provider's answer or a person's data). Without tracing, just runs it.
 */
export async function inSpan<T>(name: string, options: SpanOptions, run: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!tracing) return run(undefined);
  const span = tracer().startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, options.parent ?? context.active());
  try {
    return await context.with(trace.setSpan(options.parent ?? context.active(), span), () => run(span));
  } catch (error) {
    failSpan(span, errorType(error));
    throw error;
  } finally {
    span.end();
  }
}

/** Marks a span failed, with the kind of failure only. */
export function failSpan(span: Span | undefined, type: string): void {
  if (!span) return;
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

export function errorType(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'number') return String(code);
  return (error as Error)?.name && (error as Error).name !== 'Error' ? (error as Error).name : '_OTHER';
}

/** The trace context a carrier holds (`traceparent`, `tracestate`), over the active one; the active one when it holds none. */
export function contextFrom<C>(carrier: C | undefined, getter: TextMapGetter<C>): Context {
  if (!tracing || !carrier) return context.active();
  return propagation.extract(context.active(), carrier, getter);
}

export const recordGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key] ?? carrier[key.toLowerCase()];
    return typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined;
  },
};

/** The ids of the active span, for log lines. */
export function activeSpanIds(): { trace_id: string; span_id: string } | undefined {
  if (!tracing) return undefined;
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/**
 * A span for work that turned out slow, made once it is over (so fast work costs one clock read): a child of the
 * active span, from `startedAt` (performance.now()) to now.
 */
export function recordSlow(name: string, startedAt: number, attributes: Attributes, failed?: string): void {
  const span = tracer().startSpan(name, { kind: SpanKind.CLIENT, attributes, startTime: performance.timeOrigin + startedAt }, context.active());
  if (failed) failSpan(span, failed);
  span.end();
}
