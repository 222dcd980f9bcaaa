import type { SandboxExchange } from '../../src/sandbox/index.js';

/** One documented operation of a provider: what it says about a request and each answer. */
export interface Operation {
  /** Method and path template as the definition names them, e.g. 'GET /repos/{owner}/{repo}'. */
  id: string;
  /** What is wrong with the request's query and body, by the definition. */
  checkRequest(exchange: SandboxExchange): string[];
  /** What is wrong with the answer's status and body, by the definition. */
  checkResponse(exchange: SandboxExchange): string[];
}

/** A provider's published definition, as a lookup of operations by method and concrete path. */
export interface Definition {
  find(method: string, path: string): Operation | undefined;
  /** Loads what checking these exchanges needs, when that cannot be done on demand. */
  prepare?(exchanges: SandboxExchange[]): Promise<void>;
}

export interface ContractReport {
  /** Operation id → the statuses whose answers were checked. */
  operations: Map<string, Set<number>>;
  /** Sandbox route keys whose exchanges were checked. */
  routes: Set<string>;
  problems: string[];
}

/** Checks every exchange the sandbox answered with its own routes (not a test's injected answers), but for exempt routes. */
export async function checkExchanges(definition: Definition, all: SandboxExchange[], exempt: Record<string, string> = {}): Promise<ContractReport> {
  const exchanges = all.filter((e) => e.route && !e.injected && !(e.route in exempt));
  await definition.prepare?.(exchanges);
  const report: ContractReport = { operations: new Map(), routes: new Set(), problems: [] };
  for (const exchange of exchanges) {
    if (!exchange.route) continue;
    const { method, path } = exchange.request;
    const where = `${method} ${path} → ${exchange.status}`;
    const operation = definition.find(method, path);
    if (!operation) {
      report.problems.push(`${where}: no such operation in the definition (sandbox route '${exchange.route}')`);
      continue;
    }
    report.routes.add(exchange.route);
    const statuses = report.operations.get(operation.id) ?? new Set<number>();
    statuses.add(exchange.status);
    report.operations.set(operation.id, statuses);
    for (const problem of [...operation.checkRequest(exchange), ...operation.checkResponse(exchange)]) report.problems.push(`${where} (${operation.id}): ${problem}`);
  }
  report.problems = [...new Set(report.problems)];
  return report;
}

/** Several definitions of one provider, asked in turn (GitHub's REST and GraphQL). */
export function combined(...definitions: Definition[]): Definition {
  return {
    find: (method, path) => definitions.map((d) => d.find(method, path)).find((o) => o !== undefined),
    prepare: async (exchanges) => {
      for (const d of definitions) await d.prepare?.(exchanges);
    },
  };
}

/** A regular expression for a path template whose parameters are written {name}; a parameter spans one segment unless `greedy`. */
export function templatePattern(template: string, greedy: string[] = []): RegExp {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const name = /^\{([^}]+)\}$/.exec(part)?.[1];
      if (name) return greedy.includes(name) ? '(.*)' : '([^/]+)';
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${source}/?$`);
}

/** How specific a template is: literal segments outweigh parameters, so '/messages/delta' wins over '/messages/{id}'. */
export function specificity(template: string): number {
  return template.split('/').reduce((n, s) => n + (s.includes('{') ? 1 : 3), 0);
}

/** The answer's body: parsed JSON, the text, or undefined when empty. */
export function answerBody(exchange: SandboxExchange): { json?: unknown; empty: boolean; isJson: boolean } {
  const text = exchange.payload === undefined ? '' : String(exchange.payload);
  if (!text) return { empty: true, isJson: false };
  const type = mediaType(exchange.headers['content-type']);
  if (!type.includes('json')) return { empty: false, isJson: false };
  return { json: JSON.parse(text), empty: false, isJson: true };
}

export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Route keys of a route table that a contract test has to cover, less the ones it explains away. */
export function uncovered(all: string[], covered: Set<string>, exempt: Record<string, string>): string[] {
  return all.filter((key) => !covered.has(key) && !(key in exempt));
}

/** One line per operation, for the test's output. */
export function summary(provider: string, report: ContractReport, routeCount: number): string {
  const lines = [...report.operations].map(([id, statuses]) => `  ${id} [${[...statuses].sort().join(', ')}]`);
  return `${provider}: ${report.operations.size} operations, ${report.routes.size} of ${routeCount} sandbox routes checked\n${lines.sort().join('\n')}`;
}
