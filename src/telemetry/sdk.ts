import type { IncomingMessage, ServerResponse } from 'node:http';
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type MetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, NodeTracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import { enableMetrics } from './metrics.js';
import type { TelemetrySettings } from './settings.js';
import type { Telemetry } from './start.js';
import { enableTracing } from './trace.js';

/**
 * The OpenTelemetry SDK, set up from the standard environment: the exporters read OTEL_EXPORTER_OTLP_* themselves
 * and the tracer provider OTEL_TRACES_SAMPLER(_ARG). Loaded only when something is switched on.
 */
export async function startSdk(settings: TelemetrySettings, version: string): Promise<Telemetry> {
  const resource = resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': version });
  const stops: Array<() => Promise<void>> = [];

  if (settings.traces) {
    const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(await spanExporter(settings.traces))] });
    provider.register();
    enableTracing();
    stops.push(() => provider.shutdown());
  }

  const readers: MetricReader[] = [];
  const prometheus = settings.prometheus ? new PrometheusExporter({ preventServerStart: true }) : undefined;
  // The exporter brings its own copy of sdk-metrics (2.12.0 beside 2.12.1): the same reader, typed twice.
  if (prometheus) readers.push(prometheus as unknown as MetricReader);
  if (settings.otlpMetrics) readers.push(new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter(), exportIntervalMillis: settings.metricsIntervalMs }));
  if (readers.length) {
    const provider = new MeterProvider({ resource, readers });
    metrics.setGlobalMeterProvider(provider);
    enableMetrics();
    stops.push(() => provider.shutdown());
  }

  return {
    metricsHandler: prometheus && ((req: IncomingMessage, res: ServerResponse) => prometheus.getMetricsRequestHandler(req, res)),
    // Flushes what is still buffered; a receiver that is gone must not hold up the shutdown.
    shutdown: async () => {
      await Promise.race([Promise.allSettled(stops.map((stop) => stop())), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    },
  };
}

async function spanExporter(protocol: NonNullable<TelemetrySettings['traces']>): Promise<SpanExporter> {
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
}
