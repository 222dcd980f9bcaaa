import { InputError } from '../errors.js';

export type OtlpProtocol = 'http/json' | 'http/protobuf';

/** What the standard OpenTelemetry environment and SWITCHBOARD_METRICS ask for; everything off unless set. */
export interface TelemetrySettings {
  /** Spans go over OTLP in this encoding; absent: no span is ever made. */
  traces?: OtlpProtocol;
  /** Metrics go over OTLP (http/json: the OTLP/HTTP receivers of collectors take both encodings). */
  otlpMetrics: boolean;
  /** OTEL_METRIC_EXPORT_INTERVAL: milliseconds between OTLP metric exports. */
  metricsIntervalMs: number;
  /** SWITCHBOARD_METRICS=on: the listener serves Prometheus text at /metrics. */
  prometheus: boolean;
  /** SWITCHBOARD_METRICS_PORT: /metrics on its own listener on 127.0.0.1 instead. */
  metricsPort?: number;
  serviceName: string;
}

type Env = Record<string, string | undefined>;

const PROTOCOLS: readonly OtlpProtocol[] = ['http/json', 'http/protobuf'];

/** Reads the settings, refusing a value this build cannot honour with the variable's name and the fix. */
export function telemetrySettings(env: Env): TelemetrySettings {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const traces = exporterOn(env, 'OTEL_TRACES_EXPORTER', endpoint || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
  const otlpMetrics = exporterOn(env, 'OTEL_METRICS_EXPORTER', endpoint || env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT?.trim());
  const metricsPort = portOf(env.SWITCHBOARD_METRICS_PORT);
  const protocol = traces || otlpMetrics ? protocolOf(env) : undefined;
  return {
    traces: traces ? protocol : undefined,
    otlpMetrics,
    metricsIntervalMs: intervalOf(env.OTEL_METRIC_EXPORT_INTERVAL),
    prometheus: switchOf(env.SWITCHBOARD_METRICS) || metricsPort !== undefined,
    metricsPort,
    serviceName: env.OTEL_SERVICE_NAME?.trim() || 'switchboard',
  };
}

/** Whether anything is recorded at all: when not, the SDK is never loaded. */
export function telemetryWanted(settings: TelemetrySettings): boolean {
  return !!settings.traces || settings.otlpMetrics || settings.prometheus;
}

function exporterOn(env: Env, name: string, endpoint: string | undefined): boolean {
  const value = env[name]?.trim().toLowerCase();
  if (!value) return !!endpoint;
  if (value === 'none') return false;
  if (value === 'otlp') return true;
  throw new InputError(`${name}="${env[name]}" is not supported: set it to otlp (to an OTLP/HTTP receiver, OTEL_EXPORTER_OTLP_ENDPOINT) or none.`, name);
}

function protocolOf(env: Env): OtlpProtocol {
  const name = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const value = env[name]?.trim() || 'http/protobuf';
  if ((PROTOCOLS as readonly string[]).includes(value)) return value as OtlpProtocol;
  const fix = value === 'grpc' ? ' gRPC is not built in: point it at the collector\'s OTLP/HTTP port (4318) with' : ' Set it to';
  throw new InputError(`${name}="${env[name]}" is not supported.${fix} http/protobuf or http/json.`, name);
}

function switchOf(value: string | undefined): boolean {
  const v = value?.trim().toLowerCase();
  if (!v || v === 'off' || v === '0' || v === 'false') return false;
  if (v === 'on' || v === '1' || v === 'true') return true;
  throw new InputError(`SWITCHBOARD_METRICS="${value}" must be on or off.`, 'SWITCHBOARD_METRICS');
}

function portOf(value: string | undefined): number | undefined {
  if (!value?.trim()) return undefined;
  const port = Number(value);
  if (Number.isInteger(port) && port > 0 && port < 65536) return port;
  throw new InputError(`SWITCHBOARD_METRICS_PORT="${value}" must be a port number (1-65535); /metrics is then served on 127.0.0.1 at that port.`, 'SWITCHBOARD_METRICS_PORT');
}

function intervalOf(value: string | undefined): number {
  if (!value?.trim()) return 60_000;
  const ms = Number(value);
  if (Number.isInteger(ms) && ms >= 100) return ms;
  throw new InputError(`OTEL_METRIC_EXPORT_INTERVAL="${value}" must be a whole number of milliseconds, 100 or more (60000 unless set).`, 'OTEL_METRIC_EXPORT_INTERVAL');
}
