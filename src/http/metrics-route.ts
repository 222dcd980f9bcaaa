import type { IncomingMessage, ServerResponse } from 'node:http';
import { InputError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Route } from './incoming.js';
import { isLoopback, startListener, type Listener } from './listener.js';

export type MetricsHandler = (req: IncomingMessage, res: ServerResponse) => void;

export const METRICS_PATH = '/metrics';

/** GET /metrics: Prometheus text, behind the listener's bearer token like every route that is not public. */
export function metricsRoute(handler: MetricsHandler): Route {
  return { method: 'GET', path: METRICS_PATH, usesStore: false, handle: (req, res) => handler(req, res) };
}

/**
 * Where /metrics is served: on the main listener, or on its own loopback port (SWITCHBOARD_METRICS_PORT). A listener
 * reachable from elsewhere without a token (team mode signs people in per route) would show the figures to anyone.
 */
export function metricsOnMainListener(options: { host: string; token?: string; metricsPort?: number }): boolean {
  if (options.metricsPort !== undefined) return false;
  if (isLoopback(options.host) || options.token) return true;
  throw new InputError(
    `SWITCHBOARD_METRICS=on would serve /metrics on ${options.host} to anyone who reaches it: set SWITCHBOARD_HTTP_TOKEN (scrapers then send it as a bearer token), ` +
      'or SWITCHBOARD_METRICS_PORT to serve /metrics on 127.0.0.1 at that port.',
    'SWITCHBOARD_METRICS_PORT',
  );
}

/** /metrics alone on 127.0.0.1; over stdio several processes may try the port: the first one serves it. */
export async function startMetricsListener(handler: MetricsHandler, port: number, logger: Logger, version: string): Promise<Listener | undefined> {
  return startListener({ host: '127.0.0.1', port, routes: [metricsRoute(handler)], logger, version }).catch((error: Error) => {
    logger.warn('metrics listener not started', { port, message: error.message });
    return undefined;
  });
}
