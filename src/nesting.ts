import { InputError } from './errors.js';

/** How many levels of objects and arrays a tool's arguments may nest: `body.a.b` is three levels. */
export const MAX_INPUT_DEPTH = 64;

/**
 * How many levels a whole protocol message may nest (it wraps a tool's arguments in `params.arguments`). Deeper
 * messages are refused before the protocol layer sees them: its JSON handling recurses, and overflows the stack
 * somewhere past 2,000 levels.
 */
export const MAX_MESSAGE_DEPTH = 256;

type Key = string | number;

interface Frame {
  value: unknown;
  key?: Key;
  parent?: Frame;
  depth: number;
}

export interface NestingProblem {
  kind: 'too_deep' | 'lone_surrogate_text' | 'lone_surrogate_key';
  path: Key[];
}

export interface WalkOptions {
  /** Levels allowed below the value. */
  limit: number;
  /** Look for lone UTF-16 surrogates in texts and field names too. */
  wellFormed?: boolean;
  /** A top-level field that holds another tool's arguments: its levels count from it. */
  carries?: string;
  /** Names the value is found under (it then counts as that many levels down). */
  prefix?: Key[];
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function pathOf(frame: Frame | undefined, prefix: Key[]): Key[] {
  const keys: Key[] = [];
  for (let f = frame; f && f.key !== undefined; f = f.parent) keys.push(f.key);
  return [...prefix, ...keys.reverse()];
}

/**
 * The first problem in a JSON value, in document order: a level deeper than the limit, or (with `wellFormed`) a text
 * that is not valid Unicode. Iterative, so no nesting can overflow the stack that checks it.
 */
export function findNestingProblem(value: unknown, options: WalkOptions): NestingProblem | undefined {
  const prefix = options.prefix ?? [];
  const stack: Frame[] = [{ value, depth: prefix.length }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const item = frame.value;
    if (typeof item === 'string') {
      if (options.wellFormed && LONE_SURROGATE.test(item)) return { kind: 'lone_surrogate_text', path: pathOf(frame, prefix) };
      continue;
    }
    if (!item || typeof item !== 'object') continue;
    const entries: Array<[Key, unknown]> = Array.isArray(item) ? item.map((v, i) => [i, v]) : Object.entries(item);
    if (entries.length === 0) continue;
    if (options.wellFormed && !Array.isArray(item) && entries.some(([key]) => LONE_SURROGATE.test(key as string))) {
      return { kind: 'lone_surrogate_key', path: pathOf(frame, prefix) };
    }
    const resets = frame.depth === prefix.length && frame.parent === undefined;
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      const depth = resets && key === options.carries ? 0 : frame.depth + 1;
      const next: Frame = { value: child, key, parent: frame, depth };
      if (depth > options.limit) return { kind: 'too_deep', path: pathOf(next, prefix) };
      stack.push(next);
    }
  }
  return undefined;
}

const SEGMENT_CHARS = 24;
const HEAD = 4;
const TAIL = 2;

/** A path as an error shows it: `body.a.b`, long ones cut in the middle (`body.a.b.c.….y.z`), long names cut short. */
export function describePath(path: Key[]): string {
  const names = path.map((key) => {
    const text = String(key);
    return text.length > SEGMENT_CHARS ? `${text.slice(0, SEGMENT_CHARS - 1)}…` : text;
  });
  if (names.length <= HEAD + TAIL + 1) return names.join('.') || '(arguments)';
  return [...names.slice(0, HEAD), `…(${names.length - HEAD - TAIL} more)`, ...names.slice(-TAIL)].join('.');
}

/**
 * Refuses arguments a tool cannot take, before anything else is done with them: nesting deeper than MAX_INPUT_DEPTH,
 * or text that is not valid Unicode (a lone UTF-16 surrogate), which no provider can take and no URL can carry.
 */
export function checkArguments(args: unknown, options: { prefix?: string; carries?: string } = {}): void {
  const problem = findNestingProblem(args, { limit: MAX_INPUT_DEPTH, wellFormed: true, carries: options.carries, prefix: options.prefix ? [options.prefix] : [] });
  if (!problem) return;
  const name = describePath(problem.path);
  switch (problem.kind) {
    case 'too_deep':
      throw new InputError(
        `"${name}" is nested more than ${MAX_INPUT_DEPTH} levels deep: arguments may nest objects and arrays ` +
          `at most ${MAX_INPUT_DEPTH} levels, so send that part flatter.`,
        name,
      );
    case 'lone_surrogate_text':
      throw new InputError(`"${name}" contains a lone UTF-16 surrogate (half of an emoji or other character); send whole characters.`, name);
    case 'lone_surrogate_key':
      throw new InputError(`"${name}" has a field name with a lone UTF-16 surrogate; send whole characters.`, name);
  }
}

/** Why a protocol message nests too deep to be taken (naming where), or undefined when it does not. */
export function messageTooDeep(message: unknown): string | undefined {
  const problem = findNestingProblem(message, { limit: MAX_MESSAGE_DEPTH });
  if (!problem) return undefined;
  return (
    `Invalid Request: "${describePath(problem.path)}" is nested more than ${MAX_MESSAGE_DEPTH} levels deep; a message may nest at most ` +
    `${MAX_MESSAGE_DEPTH} levels, and a tool's arguments at most ${MAX_INPUT_DEPTH}: send it flatter.`
  );
}
