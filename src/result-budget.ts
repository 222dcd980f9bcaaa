import { randomBytes } from 'node:crypto';
import { InputError } from './errors.js';
import { ownedConsumer, PERSONAL_OWNER } from './store/index.js';
import type { ContinuationStore } from './store/types.js';
import { estimateTokens } from './tokens.js';
import type { CallContext, ResultFitter, Tool } from './tool.js';

type Data = Record<string, unknown>;
type Path = [string] | [string, string];

/** Tokens kept free for the cursor and the note a cut result carries. */
const RESERVE = 120;
const CUT_PREFIX = 'cut_';

interface Part {
  path: Path;
  /** The records (or the text) not sent yet, and how many came before them. */
  rest: unknown[] | string;
  offset: number;
  total: number;
}

interface Entry extends Part {
  template: Data;
}

export interface ResultBudgetOptions {
  /** Tokens (o200k_base) one tool result may take; default about 25,000. */
  maxTokens: number;
  /** Where the rest of a cut result waits for its cursor: the store, so whichever instance gets the cursor serves it. */
  store: ContinuationStore;
  /** How long the rest of a cut result waits for its cursor. */
  ttlMs?: number;
  /** How many cut results wait at once, of every session and instance together; the oldest make room. */
  maxEntries?: number;
  /** Expiry on this clock instead of the store's (tests). */
  clock?: () => number;
}

/**
 * Keeps every tool result within a token budget, counted by an estimate that errs high (src/tokens.ts).
 * A larger result is cut at a record boundary (or, for one long text, at a line) and carries
 * `next_cursor`; calling the same tool with that cursor returns the rest.
 */
export class ResultBudget implements ResultFitter {
  readonly maxTokens: number;
  private readonly store: ContinuationStore;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly clock?: () => number;

  constructor(options: ResultBudgetOptions) {
    this.maxTokens = options.maxTokens;
    this.store = options.store;
    this.ttlMs = options.ttlMs ?? 15 * 60_000;
    this.maxEntries = options.maxEntries ?? 64;
    this.clock = options.clock;
  }

  /** Runs a tool, or serves the rest of an earlier cut when the arguments carry its cursor. */
  async call(tool: Tool, args: unknown, ctx: CallContext): Promise<Data> {
    const cursor = (args as { cursor?: unknown } | null | undefined)?.cursor;
    const owner = ctx.deps.owner ?? PERSONAL_OWNER;
    if (typeof cursor === 'string' && cursor.startsWith(CUT_PREFIX)) return this.resume(tool.name, cursor, owner);
    return this.fit(tool.name, await tool.call(args, ctx), 0, owner);
  }

  /** `owner`'s cut results are theirs alone: another's cursor is unknown to them. */
  async fit(tool: string, data: Data, offset = 0, owner = PERSONAL_OWNER): Promise<Data> {
    const json = JSON.stringify(data);
    if (Buffer.byteLength(json) <= this.maxTokens) return data;
    if (estimateTokens(json) <= this.maxTokens) return data;
    const path = largestPart(data);
    if (!path) return data;
    const value = get(data, path) as unknown[] | string;
    const template = set(data, path, Array.isArray(value) ? [] : '');
    const room = this.maxTokens - RESERVE - estimateTokens(JSON.stringify(template));
    const keep = Array.isArray(value) ? recordsWithin(value, room) : textWithin(value, room, isBase64(data));
    if (keep >= value.length) return Array.isArray(value) && value.length === 1 ? set(data, path, [shrinkRecord(value[0], room)]) : data;
    const part: Part = { path, rest: value.slice(keep), offset: offset + keep, total: offset + value.length };
    const cursor = await this.remember(tool, template, part, owner);
    const kept = value.slice(0, keep);
    const shown = set(data, path, Array.isArray(kept) && keep === 1 ? [shrinkRecord(kept[0], room)] : kept);
    const unit = Array.isArray(value) ? `records ${offset + 1}-${offset + keep} of ${part.total}` : `characters ${offset + 1}-${offset + keep} of ${part.total}`;
    const note = `Cut to stay within ${this.maxTokens} tokens: ${unit} of "${path.join('.')}". Call this tool again with {"cursor":"${cursor}"} for the rest, or ask for fewer fields or a smaller limit.`;
    return { ...shown, next_cursor: cursor, note: typeof data.note === 'string' ? `${data.note} ${note}` : note };
  }

  async resume(tool: string, cursor: string, owner = PERSONAL_OWNER): Promise<Data> {
    const kept = await this.store.take(cursor, ownedConsumer(owner, tool), this.clock?.());
    if (kept === undefined) {
      throw new InputError(
        `"cursor": ${JSON.stringify(cursor.slice(0, 40))} is not a cursor of ${tool}'s cut results, or it expired (they are kept ${Math.round(this.ttlMs / 60_000)} minutes); call ${tool} again without it.`,
        'cursor',
      );
    }
    const entry = JSON.parse(kept) as Entry;
    return this.fit(tool, set(entry.template, entry.path, entry.rest), entry.offset, owner);
  }

  /** Kept encrypted in the store: a tool result may hold mail or other personal data. */
  private async remember(tool: string, template: Data, part: Part, owner: string): Promise<string> {
    const cursor = CUT_PREFIX + randomBytes(12).toString('base64url');
    const entry: Entry = { ...part, template };
    await this.store.put(cursor, ownedConsumer(owner, tool), JSON.stringify(entry), { ttlMs: this.ttlMs, max: this.maxEntries, now: this.clock?.() });
    return cursor;
  }
}

/** The biggest list or text in a result, at its top level or one level down (an API body's `value`, say). */
function largestPart(data: Data): Path | undefined {
  let best: { path: Path; size: number } | undefined;
  const consider = (path: Path, value: unknown) => {
    if (!(Array.isArray(value) && value.length > 0) && typeof value !== 'string') return;
    const size = typeof value === 'string' ? value.length : JSON.stringify(value).length;
    if (!best || size > best.size) best = { path, size };
  };
  for (const [k, v] of Object.entries(data)) {
    consider([k], v);
    if (v && typeof v === 'object' && !Array.isArray(v)) for (const [k2, v2] of Object.entries(v)) consider([k, k2], v2);
  }
  return best?.path;
}

/** How many leading records fit in `room` tokens; at least one, so every call moves on. */
function recordsWithin(records: unknown[], room: number): number {
  let used = 0;
  for (let i = 0; i < records.length; i++) {
    used += estimateTokens(JSON.stringify(records[i])) + 1;
    if (used > room) return Math.max(1, i);
  }
  return records.length;
}

/** A single record larger than the whole budget keeps every field, its longest text cut short. */
function shrinkRecord(record: unknown, room: number): unknown {
  if (!record || typeof record !== 'object' || Array.isArray(record)) return record;
  const fields = Object.entries(record as Data).filter((e): e is [string, string] => typeof e[1] === 'string');
  const longest = fields.sort((a, b) => b[1].length - a[1].length)[0];
  if (!longest || estimateTokens(JSON.stringify(record)) <= room) return record;
  const others = estimateTokens(JSON.stringify({ ...(record as Data), [longest[0]]: '' })) + 10;
  const end = textWithin(longest[1], room - others, false);
  return { ...(record as Data), [longest[0]]: `${longest[1].slice(0, end).trimEnd()} [cut]` };
}

/** How many leading characters of a text fit in `room` tokens, ending at a line break (else a space) when one is near. */
function textWithin(text: string, room: number, base64: boolean): number {
  // Start from four characters a token (English), then shrink by what the tokenizer says of the piece.
  let end = Math.min(text.length, Math.max(room, 1) * 4);
  for (let used = estimateTokens(JSON.stringify(text.slice(0, end))); end > 1 && used > room; used = estimateTokens(JSON.stringify(text.slice(0, end)))) {
    end = Math.floor((end * room * 0.97) / used);
  }
  if (base64) return Math.max(4, end - (end % 4));
  for (const boundary of ['\n', ' ']) {
    const at = text.lastIndexOf(boundary, end - 1);
    if (at > end * 0.8) return at + 1;
  }
  return Math.max(1, end);
}

function isBase64(data: Data): boolean {
  return data.encoding === 'base64' || data.body_encoding === 'base64';
}

function get(data: Data, path: Path): unknown {
  return path.length === 1 ? data[path[0]] : (data[path[0]] as Data)[path[1]];
}

function set(data: Data, path: Path, value: unknown): Data {
  if (path.length === 1) return { ...data, [path[0]]: value };
  return { ...data, [path[0]]: { ...(data[path[0]] as Data), [path[1]]: value } };
}
