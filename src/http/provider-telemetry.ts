import { instruments } from '../telemetry/metrics.js';
import { errorType, failSpan, inSpan, SpanKind, tracingOn } from '../telemetry/trace.js';

/** Segments after these name an owner, a repository, a person or a team: a template keeps the collection, never the name. */
const NAMED_AFTER: Record<string, number> = { repos: 2, users: 1, orgs: 1, owners: 1, teams: 1, members: 1, collaborators: 1, projects: 1, gists: 1, enterprises: 1 };

/**
 * The route of a provider path with every id, number, address and name replaced: `/repos/{name}/{name}/issues/{id}`.
 * What identifies a person or a record never reaches a span or a metric label.
 */
export function routeTemplate(path: string): string {
  const segments = path.split('/');
  let named = 0;
  return segments
    .map((segment, i) => {
      if (i === 0) return segment;
      if (named > 0) {
        named--;
        return segment ? '{name}' : segment;
      }
      named = NAMED_AFTER[segment] ?? 0;
      return /^[A-Za-z$_][A-Za-z_.$-]{0,39}$/.test(segment) && !/[A-Z].*[A-Z].*[A-Z]/.test(segment.slice(1)) ? segment : '{id}';
    })
    .join('/')
    .replace(/\('[^']*'\)|\([^)]*\)/g, '({id})');
}

export interface AttemptAnswer {
  status: number;
}

/**
 * One attempt of a provider request: a client span `{METHOD} {route}` (a child of the tool call's span) and the
 * request counted by provider, status and whether it was a retry.
 */
export async function observeAttempt<T extends AttemptAnswer>(provider: string, method: string, url: URL, resends: number, send: () => Promise<T>): Promise<T> {
  const metrics = instruments();
  if (!tracingOn() && !metrics) return send();
  const started = performance.now();
  const route = routeTemplate(url.pathname);
  let status: number | undefined;
  let failure: string | undefined;
  try {
    return await inSpan(
      `${method} ${route}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'http.request.method': method,
          'server.address': url.hostname,
          'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
          'url.template': route,
          'switchboard.provider': provider,
          ...(resends > 0 && { 'http.request.resend_count': resends }),
        },
      },
      async (span) => {
        const answer = await send();
        status = answer.status;
        span?.setAttribute('http.response.status_code', status);
        if (status >= 400) failSpan(span, (failure = String(status)));
        return answer;
      },
    );
  } catch (error) {
    failure = errorType(error);
    throw error;
  } finally {
    const labels = { 'switchboard.provider': provider, 'http.request.method': method, 'http.response.status_code': status ?? 0, retry: resends > 0, ...(failure && { 'error.type': failure }) };
    metrics?.providerRequests.add(1, labels);
    metrics?.providerDuration.record((performance.now() - started) / 1000, labels);
  }
}
