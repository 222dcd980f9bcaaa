import type { SandboxRequest, SandboxResponse } from '../server.js';
import { buildQuery, header, intParam, originOf, queryParam } from '../util.js';
import { compare, evalFilter, filterProperties, parseFilter, resolve } from './filter.js';
import { GraphError } from './errors.js';

export { GraphError, graphError } from './errors.js';

export type Person = { name: string; address: string };
export type Recipient = { emailAddress: Person };

/** Graph-looking opaque ids (base64url, path-safe), unique within one sandbox state. */
export function nextGraphId(state: { seq: number }, prefix: string): string {
  state.seq += 1;
  return prefix + Buffer.from(`sbx-${String(state.seq).padStart(6, '0')}`).toString('base64url');
}

// ---- $search: KQL-style terms over messages. Every term must match.

const SEARCH_FIELDS: Record<string, (m: any) => string> = {
  from: (m) => `${m.from?.emailAddress?.name ?? ''} ${m.from?.emailAddress?.address ?? ''}`,
  to: (m) => recipients(m.toRecipients),
  cc: (m) => recipients(m.ccRecipients),
  bcc: (m) => recipients(m.bccRecipients),
  participants: (m) => [m.from, ...(m.toRecipients ?? []), ...(m.ccRecipients ?? [])].map((r) => recipients([r])).join(' '),
  subject: (m) => m.subject ?? '',
  body: (m) => stripHtml(m.body?.content ?? ''),
  category: (m) => (m.categories ?? []).join(' '),
  importance: (m) => m.importance ?? '',
};

function recipients(list: any[] | undefined): string {
  return (list ?? []).map((r) => `${r?.emailAddress?.name ?? ''} ${r?.emailAddress?.address ?? ''}`).join(' ');
}

export function stripHtml(html: string): string {
  return html.replace(/<[^>]*>/g, ' ').replace(/&nbsp;/g, ' ').replace(/\s+/g, ' ').trim();
}

function textMatcher(value: string): (text: string) => boolean {
  const pattern = value.toLowerCase().replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  const re = new RegExp(pattern);
  return (text) => re.test(text.toLowerCase());
}

/** `"from:bob subject:invoice"`, `"pizza"`: the value must be double-quoted, as Graph requires. */
export function parseSearch(raw: string, extraText: Array<(item: any) => string> = []): (item: any) => boolean {
  const m = /^"(.*)"$/s.exec(raw.trim());
  if (!m) {
    throw new GraphError(400, 'BadRequest', `Syntax error: the $search value must be enclosed in double quotes, for example $search="${raw.replace(/"/g, '')}".`);
  }
  // A phrase is quoted inside the value: subject:\"quarterly report\" (or with single quotes).
  const inner = m[1]!.replace(/\\"/g, '"');
  const terms = (inner.match(/(?:[^\s'"]+|'[^']*'|"[^"]*")+/g) ?? []).filter((t) => !/^(and)$/i.test(t));
  const tests = terms.map((term) => {
    const fm = /^([A-Za-z]+):(.*)$/.exec(term);
    const field = fm?.[1]!.toLowerCase();
    const value = (fm ? fm[2]! : term).replace(/^(['"])(.*)\1$/, '$2');
    if (field === 'hasattachment' || field === 'hasattachments') return (item: any) => String(!!item.hasAttachments) === value.toLowerCase();
    if (field === 'isread') return (item: any) => String(!!item.isRead) === value.toLowerCase();
    if (field === 'received' || field === 'sent') {
      const day = parseDay(value);
      const key = field === 'received' ? 'receivedDateTime' : 'sentDateTime';
      return (item: any) => typeof item[key] === 'string' && item[key].slice(0, 10) === day;
    }
    const match = textMatcher(value);
    if (field && SEARCH_FIELDS[field]) return (item: any) => match(SEARCH_FIELDS[field]!(item));
    const whole = textMatcher(term.replace(/^(['"])(.*)\1$/, '$2'));
    return (item: any) =>
      [SEARCH_FIELDS.subject!, SEARCH_FIELDS.body!, SEARCH_FIELDS.from!, ...extraText].some((f) => whole(f(item)));
  });
  return (item) => tests.every((t) => t(item));
}

function parseDay(value: string): string {
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(value);
  if (us) return `${us[3]}-${us[1]!.padStart(2, '0')}-${us[2]!.padStart(2, '0')}`;
  return value.slice(0, 10);
}

// ---- $orderby, $select, paging: one pipeline for every Graph collection.

export interface ListOptions<T> {
  /** Path after /v1.0 used in @odata.context, e.g. "users('id')/messages". */
  context: string;
  defaultOrder?: string;
  /** Text searched by plain `$search` terms besides subject/body/from. */
  searchable?: boolean;
  /** Turns a stored item into its wire form (etag, body content type...). */
  render?: (item: T) => Record<string, unknown>;
  defaultTop?: number;
  /** Navigation properties `$expand` may name (e.g. a message's attachments), each read from a rendered row. */
  expand?: Expanders;
}

export type Expanders = Record<string, (row: Record<string, unknown>) => Array<Record<string, unknown>>>;

/** `$expand=attachments($select=id,name)` → [{ name: 'attachments', select: ['id', 'name'] }]. */
export function parseExpand(req: SandboxRequest, expanders: Expanders = {}): Array<{ name: string; select?: string[] }> {
  const raw = queryParam(req, '$expand');
  if (!raw) return [];
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const c of raw) {
    if (c === ',' && depth === 0) (parts.push(current), (current = ''));
    else {
      depth += c === '(' ? 1 : c === ')' ? -1 : 0;
      current += c;
    }
  }
  parts.push(current);
  return parts.map((part) => {
    const m = /^\s*([A-Za-z]+)\s*(?:\((.*)\))?\s*$/.exec(part);
    if (!m || !expanders[m[1]!]) {
      throw new GraphError(400, 'BadRequest', `Parsing OData Select and Expand failed: Could not find a property named '${(m?.[1] ?? part).trim()}' on type 'microsoft.graph.entity'.`);
    }
    const select = /\$select=([^;)]*)/i.exec(m[2] ?? '')?.[1]?.split(',').map((f) => f.trim()).filter(Boolean);
    return { name: m[1]!, select };
  });
}

/** Adds expanded navigation properties to an output row; Graph includes them whatever `$select` says. */
export function applyExpand(out: Record<string, unknown>, row: Record<string, unknown>, expand: Array<{ name: string; select?: string[] }>, expanders: Expanders = {}): Record<string, unknown> {
  for (const e of expand) {
    out[e.name] = expanders[e.name]!(row).map((item) => {
      if (!e.select) return item;
      const picked: Record<string, unknown> = {};
      for (const k of ['@odata.type', 'id', ...e.select]) if (k in item) picked[k] = item[k];
      return picked;
    });
  }
  return out;
}

export function parseOrderBy(value: string): Array<{ path: string; desc: boolean }> {
  return value.split(',').map((part) => {
    const [path, dir] = part.trim().split(/\s+/);
    if (!path || (dir && !/^(asc|desc)$/i.test(dir))) throw new GraphError(400, 'BadRequest', `Invalid $orderby clause '${value}'.`);
    return { path, desc: dir?.toLowerCase() === 'desc' };
  });
}

export function listResponse<T>(req: SandboxRequest, items: T[], options: ListOptions<T>): SandboxResponse {
  const search = queryParam(req, '$search');
  const filter = queryParam(req, '$filter');
  const orderby = queryParam(req, '$orderby');
  if (search !== undefined && orderby !== undefined) {
    throw new GraphError(400, 'SearchWithOrderBy', "The query parameter '$orderBy' is not supported with '$search'.");
  }
  if (search !== undefined && filter !== undefined) {
    throw new GraphError(400, 'ErrorInvalidUrlQuery', "The query parameter '$filter' is not supported with '$search'.");
  }
  const render = options.render ?? ((x: T) => x as Record<string, unknown>);
  let rows = items.map(render);
  if (filter !== undefined) {
    const node = parseFilter(filter);
    if (orderby !== undefined) {
      const props = filterProperties(node);
      const order = parseOrderBy(orderby).map((o) => o.path.toLowerCase());
      if (!order.every((p, i) => props[i] === p)) {
        throw new GraphError(400, 'InefficientFilter', 'The restriction or sort order is too complex for this operation.');
      }
    }
    rows = rows.filter((row) => evalFilter(node, row));
  }
  if (search !== undefined) rows = rows.filter(parseSearch(search));
  const order = orderby ?? options.defaultOrder;
  if (order) {
    const keys = parseOrderBy(order);
    // Ties keep insertion order, reversed for a descending sort (newer items were added later).
    const indexed = rows.map((row, i) => ({ row, i }));
    indexed.sort((a, b) => {
      for (const k of keys) {
        const c = compare(resolve(k.path, a.row, {}), resolve(k.path, b.row, {})) ?? 0;
        if (c !== 0) return k.desc ? -c : c;
      }
      return keys[0]!.desc ? b.i - a.i : a.i - b.i;
    });
    rows = indexed.map((x) => x.row);
  }
  const topRaw = queryParam(req, '$top');
  if (topRaw !== undefined && Number(topRaw) > 1000) {
    throw new GraphError(400, 'BadRequest', `The limit of '1000' for Top query has been exceeded. The value from the incoming request is '${topRaw}'.`);
  }
  const top = intParam(topRaw, options.defaultTop ?? 10, 1, 1000);
  const skip = intParam(queryParam(req, '$skip'), 0, 0, Number.MAX_SAFE_INTEGER);
  const page = rows.slice(skip, skip + top);
  const select = parseSelect(req, rows);
  const body: Record<string, unknown> = {
    '@odata.context': `${originOf(req)}/v1.0/$metadata#${options.context}${select ? `(${select.join(',')})` : ''}`,
  };
  if (/^true$/i.test(queryParam(req, '$count') ?? '')) body['@odata.count'] = rows.length;
  const expand = parseExpand(req, options.expand);
  body.value = page.map((row) => applyExpand(applySelect(row, select), row, expand, options.expand));
  if (skip + top < rows.length) {
    const params = [...req.query].filter(([k]) => !/^\$(skip|top)$/i.test(k));
    params.push(['$top', String(top)], ['$skip', String(skip + top)]);
    body['@odata.nextLink'] = `${originOf(req)}${req.path}?${buildQuery(params)}`;
  }
  return { status: 200, body };
}

export function parseSelect(req: SandboxRequest, known: Array<Record<string, unknown>>): string[] | undefined {
  const raw = queryParam(req, '$select');
  if (!raw) return undefined;
  const fields = raw.split(',').map((f) => f.trim()).filter(Boolean);
  if (known.length) {
    for (const f of fields) {
      if (!known.some((row) => f in row)) {
        throw new GraphError(400, 'RequestBroker--ParseUri', `Could not find a property named '${f}' on type 'microsoft.graph.entity'.`);
      }
    }
  }
  return fields;
}

/** Graph always returns `id` and `@odata.etag` besides the selected fields. */
export function applySelect(row: Record<string, unknown>, select: string[] | undefined): Record<string, unknown> {
  if (!select) return row;
  const out: Record<string, unknown> = {};
  for (const k of ['@odata.etag', 'id', ...select]) if (k in row) out[k] = row[k];
  return out;
}

/** `Prefer: outlook.body-content-type="text"` turns HTML bodies into text. */
export function wantsTextBody(req: SandboxRequest): boolean {
  return /outlook\.body-content-type\s*=\s*"?text"?/i.test(header(req, 'prefer') ?? '');
}
