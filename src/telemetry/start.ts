import type { IncomingMessage, ServerResponse } from 'node:http';
import { telemetryWanted, type TelemetrySettings } from './settings.js';

/** What serve holds of telemetry: the Prometheus handler when /metrics is served, and the flush at shutdown. */
export interface Telemetry {
  metricsHandler?: (req: IncomingMessage, res: ServerResponse) => void;
  shutdown(): Promise<void>;
}

const OFF: Telemetry = { shutdown: async () => undefined };

/** Starts the OpenTelemetry SDK when the environment asks for anything; otherwise does not even load it. */
export async function startTelemetry(settings: TelemetrySettings, version: string): Promise<Telemetry> {
  if (!telemetryWanted(settings)) return OFF;
  const { startSdk } = await import('./sdk.js');
  return startSdk(settings, version);
}
