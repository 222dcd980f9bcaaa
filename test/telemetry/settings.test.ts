import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { telemetrySettings, telemetryWanted } from '../../src/telemetry/settings.js';

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };

describe('telemetry settings from the standard OpenTelemetry environment', () => {
  it('are all off without any of it, so the SDK is never loaded', () => {
    const settings = telemetrySettings({});
    expect(settings).toEqual({ traces: undefined, otlpMetrics: false, metricsIntervalMs: 60_000, prometheus: false, metricsPort: undefined, serviceName: 'switchboard' });
    expect(telemetryWanted(settings)).toBe(false);
    expect(loadConfig({}, {}).telemetry).toEqual(settings);
  });

  it('send traces and metrics to an endpoint, http/protobuf unless told http/json; none switches either off', () => {
    expect(telemetrySettings(ENDPOINT)).toMatchObject({ traces: 'http/protobuf', otlpMetrics: true });
    expect(telemetrySettings({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'edge-1' })).toMatchObject({ traces: 'http/json', serviceName: 'edge-1' });
    expect(telemetrySettings({ ...ENDPOINT, OTEL_METRICS_EXPORTER: 'none' })).toMatchObject({ traces: 'http/protobuf', otlpMetrics: false });
    expect(telemetrySettings({ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'none' })).toMatchObject({ traces: undefined, otlpMetrics: true });
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' })).toMatchObject({ traces: 'http/protobuf', otlpMetrics: false });
  });

  it('serve /metrics with SWITCHBOARD_METRICS=on or on its own port', () => {
    expect(telemetrySettings({ SWITCHBOARD_METRICS: 'on' })).toMatchObject({ prometheus: true, metricsPort: undefined });
    expect(telemetrySettings({ SWITCHBOARD_METRICS_PORT: '9464' })).toMatchObject({ prometheus: true, metricsPort: 9464 });
  });

  it('refuse what this build cannot honour, naming the variable and the fix', () => {
    expect(() => telemetrySettings({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL="grpc" is not supported\. gRPC is not built in: point it at the collector's OTLP\/HTTP port \(4318\) with http\/protobuf or http\/json\./,
    );
    expect(() => telemetrySettings({ ...ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'thrift' })).toThrow(/OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="thrift" is not supported\. Set it to http\/protobuf or http\/json\./);
    expect(() => telemetrySettings({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER="zipkin" is not supported: set it to otlp .* or none\./);
    expect(() => telemetrySettings({ SWITCHBOARD_METRICS: 'yes please' })).toThrow(/SWITCHBOARD_METRICS="yes please" must be on or off\./);
    expect(() => telemetrySettings({ SWITCHBOARD_METRICS_PORT: '99999' })).toThrow(/SWITCHBOARD_METRICS_PORT="99999" must be a port number/);
  });
});
