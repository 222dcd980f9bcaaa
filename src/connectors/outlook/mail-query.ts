import { InputError } from '../../errors.js';

/**
 * Graph's rules for message queries (provider facts A2), applied before anything is sent:
 * - `$search` takes no `$filter` and no `$orderby` (400 SearchWithOrderBy / ErrorInvalidUrlQuery): with search,
 *   filter and orderby are dropped and the note says so (search results come newest first).
 * - `$filter` + `$orderby`: every ordered property must lead the filter, in order (400 InefficientFilter).
 *   For date-time properties we prepend an always-true `<property> ge 1900-01-01T00:00:00Z`; for any
 *   other property the orderby is dropped and the note says how to write the filter instead.
 */

export interface MessageQueryInput {
  search?: string;
  filter?: string;
  orderby?: string;
}

export interface MessageQueryPlan {
  params: { $search?: string; $filter?: string; $orderby?: string };
  notes: string[];
}

const ORDERBY = /^\s*[A-Za-z][\w/]*(\s+(asc|desc))?\s*(,\s*[A-Za-z][\w/]*(\s+(asc|desc))?\s*)*$/i;
const DATE_PROPERTIES = new Set(['receiveddatetime', 'sentdatetime', 'createddatetime', 'lastmodifieddatetime']);
const KEYWORDS = new Set(['and', 'or', 'not', 'eq', 'ne', 'gt', 'ge', 'lt', 'le', 'has', 'in', 'true', 'false', 'null']);
export const ALWAYS_SINCE = '1900-01-01T00:00:00Z';

export function planMessageQuery(input: MessageQueryInput): MessageQueryPlan {
  const notes: string[] = [];
  if (input.orderby !== undefined && !ORDERBY.test(input.orderby)) {
    throw new InputError(`"orderby" must be property names, each optionally followed by asc or desc, such as "receivedDateTime desc"; got ${JSON.stringify(input.orderby)}.`, 'orderby');
  }
  if (input.search !== undefined) {
    const dropped = (['filter', 'orderby'] as const).filter((k) => input[k] !== undefined);
    if (dropped.length) {
      notes.push(`${dropped.join(' and ')} ${dropped.length > 1 ? 'were' : 'was'} not sent: Graph does not allow ${dropped.length > 1 ? 'them' : 'it'} with search; search results come newest first.`);
    }
    return { params: { $search: quoteSearch(input.search) }, notes };
  }
  if (input.filter === undefined || input.orderby === undefined) return { params: { $filter: input.filter, $orderby: input.orderby }, notes };

  const order = input.orderby.split(',').map((part) => part.trim().split(/\s+/)[0]!);
  const leading = filterProperties(input.filter);
  if (order.every((p, i) => leading[i] === p.toLowerCase())) return { params: { $filter: input.filter, $orderby: input.orderby }, notes };
  if (order.every((p) => DATE_PROPERTIES.has(p.toLowerCase()))) {
    const prefix = order.map((p) => `${p} ge ${ALWAYS_SINCE}`).join(' and ');
    notes.push(`filter was sent as "${prefix} and (...)": Graph needs each orderby property to lead the filter.`);
    return { params: { $filter: `${prefix} and (${input.filter})`, $orderby: input.orderby }, notes };
  }
  notes.push(
    `orderby was not sent: with a filter, Graph sorts only by properties that lead the filter in the same order (InefficientFilter); start the filter with ${order.join(', ')} to sort by ${order.length > 1 ? 'them' : 'it'}.`,
  );
  return { params: { $filter: input.filter }, notes };
}

/** Graph wants the whole KQL value in double quotes; quotes inside it are escaped with a backslash. */
function quoteSearch(value: string): string {
  const v = value.trim();
  if (v.length > 1 && v.startsWith('"') && v.endsWith('"')) return v;
  return `"${v.replace(/\\?"/g, '\\"')}"`;
}

/** The properties a filter names, in order of first appearance (lambda variables left out), lower-cased. */
export function filterProperties(filter: string): string[] {
  const tokens = filter.match(/'(?:[^']|'')*'|[A-Za-z_][\w/.]*|\d[\w:.+-]*|\S/g) ?? [];
  const vars = new Set<string>();
  const out: string[] = [];
  tokens.forEach((t, i) => {
    if (!/^[A-Za-z_]/.test(t) || KEYWORDS.has(t.toLowerCase())) return;
    if (tokens[i + 1] === ':') return void vars.add(t);
    if (tokens[i + 1] === '(') {
      const lambda = /^(.+)\/(any|all)$/i.exec(t);
      if (lambda) out.push(lambda[1]!.toLowerCase());
      return;
    }
    if (vars.has(t.split('/')[0]!)) return;
    out.push(t.toLowerCase());
  });
  return [...new Set(out)];
}
