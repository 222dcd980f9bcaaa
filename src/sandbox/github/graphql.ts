import { isObject } from '../util.js';

/**
 * GitHub GraphQL stand-in: a small parser and executor (fields, aliases, arguments, variables,
 * inline fragments), answering like api.github.com/graphql: HTTP 200 with `data` and/or `errors[]`.
 * Schema objects are plain objects; a function-valued property is a field with arguments.
 */

type Value = { var: string } | { lit: unknown } | { list: Value[] } | { obj: Record<string, Value> };
interface FieldNode {
  kind: 'field';
  alias?: string;
  name: string;
  args: Record<string, Value>;
  selections?: Selection[];
  loc: { line: number; column: number };
}
type Selection = FieldNode | { kind: 'inline'; on?: string; selections: Selection[] };
interface Operation {
  type: 'query' | 'mutation';
  name?: string;
  variables: Array<{ name: string; type: string; default?: Value }>;
  selections: Selection[];
}

/** A field error: the field becomes null and the error is listed with its path (GitHub adds `type`). */
export class GqlError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** A document error (parse, unknown field, bad variables): no data at all. */
class GqlRequestError extends Error {
  constructor(
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export type GqlObject = { __typename: string; __implements?: string[] } & Record<string, unknown>;

const TOKEN = /\s+|#[^\n]*|,|(\.\.\.|[!$():=@[\]{}|&])|([_A-Za-z][_0-9A-Za-z]*)|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|("(?:[^"\\\n]|\\.)*")/y;

interface Token {
  kind: 'punct' | 'name' | 'number' | 'string' | 'eof';
  text: string;
  line: number;
  column: number;
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  const where = (at: number) => {
    const before = source.slice(0, at).split('\n');
    return { line: before.length, column: before.at(-1)!.length + 1 };
  };
  while (pos < source.length) {
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(source);
    if (!m) {
      const { line, column } = where(pos);
      throw new GqlRequestError(`Parse error on "${source[pos]}" at [${line}, ${column}]`);
    }
    const at = where(pos);
    if (m[1]) tokens.push({ kind: 'punct', text: m[1], ...at });
    else if (m[2]) tokens.push({ kind: 'name', text: m[2], ...at });
    else if (m[3]) tokens.push({ kind: 'number', text: m[3], ...at });
    else if (m[4]) tokens.push({ kind: 'string', text: m[4], ...at });
    pos = TOKEN.lastIndex;
  }
  tokens.push({ kind: 'eof', text: '', ...where(source.length) });
  return tokens;
}

export function parse(source: string): Operation[] {
  const t = tokenize(source);
  let i = 0;
  const peek = () => t[i]!;
  const fail = (tok = peek()): never => {
    throw new GqlRequestError(`Parse error on "${tok.text || 'end of input'}" (${tok.kind.toUpperCase()}) at [${tok.line}, ${tok.column}]`);
  };
  const take = (text?: string) => {
    const tok = peek();
    if (tok.kind === 'eof' || (text !== undefined && tok.text !== text)) fail(tok);
    i++;
    return tok;
  };
  const name = () => (peek().kind === 'name' ? take().text : fail());
  const is = (text: string) => peek().kind === 'punct' && peek().text === text;

  const value = (): Value => {
    const tok = peek();
    if (is('$')) {
      take('$');
      return { var: name() };
    }
    if (is('[')) {
      take('[');
      const list: Value[] = [];
      while (!is(']')) list.push(value());
      take(']');
      return { list };
    }
    if (is('{')) {
      take('{');
      const obj: Record<string, Value> = {};
      while (!is('}')) {
        const key = name();
        take(':');
        obj[key] = value();
      }
      take('}');
      return { obj };
    }
    i++;
    if (tok.kind === 'string') return { lit: JSON.parse(tok.text) };
    if (tok.kind === 'number') return { lit: Number(tok.text) };
    if (tok.kind === 'name') return { lit: tok.text === 'true' ? true : tok.text === 'false' ? false : tok.text === 'null' ? null : tok.text };
    return fail(tok);
  };
  const type = (): string => {
    let out: string;
    if (is('[')) {
      take('[');
      out = `[${type()}]`;
      take(']');
    } else out = name();
    if (is('!')) {
      take('!');
      out += '!';
    }
    return out;
  };
  const selectionSet = (): Selection[] => {
    take('{');
    const out: Selection[] = [];
    while (!is('}')) {
      if (is('...')) {
        take('...');
        if (peek().text !== 'on' && !is('{')) throw new GqlRequestError('Fragment spreads are not supported by this sandbox; use inline fragments');
        let on: string | undefined;
        if (peek().text === 'on') {
          take('on');
          on = name();
        }
        out.push({ kind: 'inline', on, selections: selectionSet() });
        continue;
      }
      const first = peek();
      let fieldName = name();
      let alias: string | undefined;
      if (is(':')) {
        take(':');
        alias = fieldName;
        fieldName = name();
      }
      const args: Record<string, Value> = {};
      if (is('(')) {
        take('(');
        while (!is(')')) {
          const key = name();
          take(':');
          args[key] = value();
        }
        take(')');
      }
      if (is('@')) throw new GqlRequestError('Directives are not supported by this sandbox');
      out.push({ kind: 'field', alias, name: fieldName, args, selections: is('{') ? selectionSet() : undefined, loc: { line: first.line, column: first.column } });
    }
    take('}');
    return out;
  };

  const ops: Operation[] = [];
  while (peek().kind !== 'eof') {
    if (is('{')) {
      ops.push({ type: 'query', variables: [], selections: selectionSet() });
      continue;
    }
    const kind = name();
    if (kind !== 'query' && kind !== 'mutation') fail(t[i - 1]);
    const op: Operation = { type: kind as Operation['type'], variables: [], selections: [] };
    if (peek().kind === 'name') op.name = name();
    if (is('(')) {
      take('(');
      while (!is(')')) {
        take('$');
        const v = { name: name(), type: '' } as Operation['variables'][number];
        take(':');
        v.type = type();
        if (is('=')) {
          take('=');
          v.default = value();
        }
        op.variables.push(v);
      }
      take(')');
    }
    op.selections = selectionSet();
    ops.push(op);
  }
  if (!ops.length) fail();
  return ops;
}

function evaluate(v: Value, vars: Record<string, unknown>): unknown {
  if ('var' in v) return vars[v.var] ?? null;
  if ('lit' in v) return v.lit;
  if ('list' in v) return v.list.map((x) => evaluate(x, vars));
  return Object.fromEntries(Object.entries(v.obj).map(([k, x]) => [k, evaluate(x, vars)]));
}

interface FieldErrorOut {
  type: string;
  path: Array<string | number>;
  locations: Array<{ line: number; column: number }>;
  message: string;
}

function execute(obj: GqlObject, selections: Selection[], vars: Record<string, unknown>, path: Array<string | number>, errors: FieldErrorOut[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const sel of selections) {
    if (sel.kind === 'inline') {
      if (!sel.on || sel.on === obj.__typename || obj.__implements?.includes(sel.on)) Object.assign(out, execute(obj, sel.selections, vars, path, errors));
      continue;
    }
    const key = sel.alias ?? sel.name;
    if (sel.name === '__typename') {
      out[key] = obj.__typename;
      continue;
    }
    if (!(sel.name in obj)) {
      throw new GqlRequestError(`Field '${sel.name}' doesn't exist on type '${obj.__typename}'`, {
        path: [...path, key],
        locations: [sel.loc],
        extensions: { code: 'undefinedField', typeName: obj.__typename, fieldName: sel.name },
      });
    }
    const prop = obj[sel.name];
    let value: unknown;
    try {
      const args = Object.fromEntries(Object.entries(sel.args).map(([k, v]) => [k, evaluate(v, vars)]));
      value = typeof prop === 'function' ? prop(args) : prop;
    } catch (error) {
      if (!(error instanceof GqlError)) throw error;
      errors.push({ type: error.type, path: [...path, key], locations: [sel.loc], message: error.message });
      out[key] = null;
      continue;
    }
    out[key] = complete(value, sel, vars, [...path, key], errors);
  }
  return out;
}

function complete(value: unknown, sel: FieldNode, vars: Record<string, unknown>, path: Array<string | number>, errors: FieldErrorOut[]): unknown {
  if (value === undefined || value === null) return null;
  if (Array.isArray(value)) return value.map((v, n) => complete(v, sel, vars, [...path, n], errors));
  if (isObject(value) && '__typename' in value) {
    if (!sel.selections) throw new GqlRequestError(`Field must have selections (field '${sel.name}' returns ${String(value.__typename)} but has no selections.)`, { locations: [sel.loc] });
    return execute(value as GqlObject, sel.selections, vars, path, errors);
  }
  return value;
}

/** Runs one GraphQL request body against root objects for queries and mutations. */
export function runGraphql(roots: { query: () => GqlObject; mutation: () => GqlObject }, body: unknown): Record<string, unknown> {
  if (!isObject(body) || typeof body.query !== 'string') return { errors: [{ message: 'A query attribute must be specified and must be a string.' }] };
  try {
    const ops = parse(body.query);
    const named = typeof body.operationName === 'string' ? ops.find((o) => o.name === body.operationName) : ops.length === 1 ? ops[0] : undefined;
    if (!named) throw new GqlRequestError(typeof body.operationName === 'string' ? `No operation named "${body.operationName}"` : 'An operation name is required');
    const given = isObject(body.variables) ? body.variables : {};
    const vars: Record<string, unknown> = {};
    for (const v of named.variables) {
      const provided = given[v.name] ?? (v.default ? evaluate(v.default, {}) : undefined);
      if ((provided === undefined || provided === null) && v.type.endsWith('!')) {
        throw new GqlRequestError(`Variable $${v.name} of type ${v.type} was provided invalid value`, {
          extensions: { value: provided ?? null, problems: [{ path: [], explanation: 'Expected value to not be null' }] },
        });
      }
      if (v.type.replace('!', '') === 'Int' && provided !== undefined && provided !== null && !Number.isInteger(provided)) {
        throw new GqlRequestError(`Variable $${v.name} of type ${v.type} was provided invalid value`, {
          extensions: { value: provided, problems: [{ path: [], explanation: `Could not coerce value ${JSON.stringify(provided)} to Int` }] },
        });
      }
      vars[v.name] = provided;
    }
    const root = named.type === 'query' ? roots.query() : roots.mutation();
    const errors: FieldErrorOut[] = [];
    const data = execute(root, named.selections, vars, [], errors);
    return errors.length ? { data, errors } : { data };
  } catch (error) {
    if (!(error instanceof GqlRequestError)) throw error;
    return { errors: [{ message: error.message, ...error.extra }] };
  }
}
