import { GraphError } from './errors.js';

// ---- $filter: a small OData subset (eq ne gt ge lt le, and/or/not, parentheses,
// startswith/endswith/contains, any/all lambdas) that covers what Outlook clients send.

type Operand = { kind: 'lit'; value: unknown } | { kind: 'path'; path: string };
type Node =
  | { kind: 'cmp'; op: string; left: Operand; right: Operand }
  | { kind: 'fn'; name: string; args: Operand[] }
  | { kind: 'lambda'; path: string; quantifier: 'any' | 'all'; variable?: string; body?: Node }
  | { kind: 'and' | 'or'; left: Node; right: Node }
  | { kind: 'not'; inner: Node };

type Token = { t: 'punct' | 'str' | 'word'; v: string };

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) i++;
    else if ('(),:'.includes(c)) out.push({ t: 'punct', v: c }), i++;
    else if (c === "'") {
      let s = '';
      i++;
      for (;;) {
        if (i >= src.length) throw invalidFilter(src);
        if (src[i] === "'" && src[i + 1] === "'") (s += "'"), (i += 2);
        else if (src[i] === "'") break;
        else s += src[i++];
      }
      i++;
      out.push({ t: 'str', v: s });
    } else {
      const m = /^(\d[\w.:+-]*|[A-Za-z_@$][\w./@$-]*)/.exec(src.slice(i));
      if (!m) throw invalidFilter(src);
      out.push({ t: 'word', v: m[0] });
      i += m[0].length;
    }
  }
  return out;
}

function invalidFilter(src: string): GraphError {
  return new GraphError(400, 'BadRequest', `Invalid filter clause: syntax error in '${src}'.`);
}

const COMPARISONS = new Set(['eq', 'ne', 'gt', 'ge', 'lt', 'le']);
const FUNCTIONS = new Set(['startswith', 'endswith', 'contains']);

export function parseFilter(src: string): Node {
  const tokens = tokenize(src);
  let pos = 0;
  const peek = () => tokens[pos];
  const isWord = (v: string) => peek()?.t === 'word' && peek()!.v.toLowerCase() === v;
  const expect = (v: string) => {
    if (peek()?.v !== v) throw invalidFilter(src);
    pos++;
  };
  const operand = (): Operand => {
    const tok = tokens[pos++];
    if (!tok || tok.t === 'punct') throw invalidFilter(src);
    if (tok.t === 'str') return { kind: 'lit', value: tok.v };
    const v = tok.v;
    if (v === 'true' || v === 'false') return { kind: 'lit', value: v === 'true' };
    if (v === 'null') return { kind: 'lit', value: null };
    if (/^-?\d+(\.\d+)?$/.test(v)) return { kind: 'lit', value: Number(v) };
    if (/^\d{4}-\d{2}-\d{2}/.test(v)) return { kind: 'lit', value: v };
    return { kind: 'path', path: v };
  };
  const primary = (): Node => {
    const tok = peek();
    if (!tok) throw invalidFilter(src);
    if (tok.v === '(') {
      pos++;
      const inner = or();
      expect(')');
      return inner;
    }
    if (tok.t === 'word' && tokens[pos + 1]?.v === '(') {
      const lambda = /^(.+)\/(any|all)$/i.exec(tok.v);
      if (lambda) {
        pos += 2;
        if (peek()?.v === ')') {
          pos++;
          return { kind: 'lambda', path: lambda[1]!, quantifier: lambda[2]!.toLowerCase() as 'any' | 'all' };
        }
        const variable = tokens[pos++];
        if (variable?.t !== 'word') throw invalidFilter(src);
        expect(':');
        const body = or();
        expect(')');
        return { kind: 'lambda', path: lambda[1]!, quantifier: lambda[2]!.toLowerCase() as 'any' | 'all', variable: variable.v, body };
      }
      const name = tok.v.toLowerCase();
      if (!FUNCTIONS.has(name)) throw new GraphError(400, 'BadRequest', `Invalid filter clause: unknown function '${tok.v}'.`);
      pos += 2;
      const args = [operand()];
      expect(',');
      args.push(operand());
      expect(')');
      return { kind: 'fn', name, args };
    }
    const left = operand();
    const op = tokens[pos++];
    if (op?.t !== 'word' || !COMPARISONS.has(op.v.toLowerCase())) throw invalidFilter(src);
    return { kind: 'cmp', op: op.v.toLowerCase(), left, right: operand() };
  };
  const not = (): Node => {
    if (isWord('not')) {
      pos++;
      return { kind: 'not', inner: not() };
    }
    return primary();
  };
  // `and` binds tighter than `or`: each is a left-associative chain of the level below it.
  const chain =
    (kind: 'and' | 'or', operand: () => Node) =>
    (): Node => {
      let left = operand();
      while (isWord(kind)) {
        pos++;
        left = { kind, left, right: operand() };
      }
      return left;
    };
  const and = chain('and', not);
  const or = chain('or', and);
  const node = or();
  if (pos !== tokens.length) throw invalidFilter(src);
  return node;
}

export function resolve(path: string, item: unknown, env: Record<string, unknown>): unknown {
  const [head, ...rest] = path.split('/');
  let value: unknown = head! in env ? env[head!] : (item as Record<string, unknown>)?.[head!];
  for (const seg of rest) value = (value as Record<string, unknown> | undefined)?.[seg];
  return value;
}

const DATE = /^\d{4}-\d{2}-\d{2}/;

export function compare(a: unknown, b: unknown): number | undefined {
  if (a === null || a === undefined || b === null || b === undefined) return a == b ? 0 : undefined;
  if (typeof a === 'string' && typeof b === 'string') {
    if (DATE.test(a) && DATE.test(b)) return Date.parse(a.endsWith('Z') || a.includes('+') ? a : a + 'Z') - Date.parse(b.endsWith('Z') || b.includes('+') ? b : b + 'Z');
    return a.toLowerCase().localeCompare(b.toLowerCase());
  }
  if (typeof a === typeof b) return a === b ? 0 : (a as number) < (b as number) ? -1 : 1;
  return undefined;
}

export function evalFilter(node: Node, item: unknown, env: Record<string, unknown> = {}): boolean {
  const value = (o: Operand) => (o.kind === 'lit' ? o.value : resolve(o.path, item, env));
  switch (node.kind) {
    case 'and':
      return evalFilter(node.left, item, env) && evalFilter(node.right, item, env);
    case 'or':
      return evalFilter(node.left, item, env) || evalFilter(node.right, item, env);
    case 'not':
      return !evalFilter(node.inner, item, env);
    case 'cmp': {
      const c = compare(value(node.left), value(node.right));
      if (c === undefined) return node.op === 'ne';
      return { eq: c === 0, ne: c !== 0, gt: c > 0, ge: c >= 0, lt: c < 0, le: c <= 0 }[node.op] ?? false;
    }
    case 'fn': {
      const [a, b] = node.args.map((o) => String(value(o) ?? '').toLowerCase());
      if (node.name === 'startswith') return a!.startsWith(b!);
      if (node.name === 'endswith') return a!.endsWith(b!);
      return a!.includes(b!);
    }
    case 'lambda': {
      const list = resolve(node.path, item, env);
      if (!Array.isArray(list)) return false;
      if (!node.body) return list.length > 0;
      const test = (el: unknown) => evalFilter(node.body!, item, { ...env, [node.variable!]: el });
      return node.quantifier === 'any' ? list.some(test) : list.every(test);
    }
  }
}

/** Properties a filter names, in order of first appearance (lambda variables excluded). */
export function filterProperties(node: Node, vars: string[] = []): string[] {
  const out: string[] = [];
  const add = (o: Operand) => {
    if (o.kind === 'path' && !vars.includes(o.path.split('/')[0]!)) out.push(o.path);
  };
  const walk = (n: Node, scope: string[]) => {
    if (n.kind === 'cmp') [n.left, n.right].forEach(add);
    else if (n.kind === 'fn') n.args.forEach(add);
    else if (n.kind === 'lambda') {
      out.push(n.path);
      if (n.body) walk(n.body, [...scope, n.variable!]);
    } else if (n.kind === 'not') walk(n.inner, scope);
    else (walk(n.left, scope), walk(n.right, scope));
  };
  walk(node, vars);
  return [...new Set(out.map((p) => p.toLowerCase()))];
}
