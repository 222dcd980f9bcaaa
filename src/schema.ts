import * as z from 'zod/v4';

/** What every tool input and output, and every trigger config, is: a zod object. */
export type ObjectSchema = z.ZodObject<z.ZodRawShape>;

type JsonSchema = Record<string, unknown>;

/** What a model sees of a tool's input: the JSON Schema, closed, with required fields, enums, bounds and formats. */
export function inputJsonSchema(schema: z.ZodType): JsonSchema {
  return { ...portable(prune(toJson(schema, 'input'), { dropEchoes: true })), additionalProperties: false };
}

/**
 * A tool's result as JSON Schema 2020-12: types, required fields, enums and nested items, for clients that check
 * structuredContent or generate code from it. Objects stay open (no additionalProperties: false), so a field added
 * later breaks no client.
 */
export function outputJsonSchema(schema: z.ZodType): JsonSchema {
  return portable(prune(toJson(schema, 'output')));
}

/**
 * An event's payload as JSON Schema 2020-12: typed and portable as an output schema is, but closed at every object
 * level (additionalProperties: false), so a payload that validates carries no field the schema does not name.
 */
export function payloadJsonSchema(schema: ObjectSchema): JsonSchema {
  return closed(portable(prune(toJson(schema, 'output')))) as JsonSchema;
}

function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed);
  if (!node || typeof node !== 'object') return node;
  const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === 'properties' ? Object.fromEntries(Object.entries(v as JsonSchema).map(([name, sub]) => [name, closed(sub)])) : closed(v)]));
  return out.type === 'object' ? { ...out, additionalProperties: false } : out;
}

function toJson(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline' }) as JsonSchema;
  delete out.$schema;
  return out;
}

/**
 * Keywords that tell a model little for their tokens: JSON object keys are always strings, safe-integer bounds
 * are no bounds, and an empty string or an unknown nested field is refused by name when called anyway. With
 * dropEchoes, so is a field's description that only repeats its name ("jobTitle": "Job title"). A date-time's format
 * says what zod's long pattern for it spells out.
 */
function prune(node: JsonSchema, options: { dropEchoes?: boolean } = {}): JsonSchema {
  const walk = (n: unknown): unknown => {
    if (Array.isArray(n)) return n.map(walk);
    if (!n || typeof n !== 'object') return n;
    const out: JsonSchema = {};
    for (const [k, v] of Object.entries(n)) {
      if (k === 'propertyNames' && JSON.stringify(v) === '{"type":"string"}') continue;
      if ((k === 'minimum' && v === Number.MIN_SAFE_INTEGER) || (k === 'maximum' && v === Number.MAX_SAFE_INTEGER)) continue;
      if ((k === 'minLength' && v === 1) || (k === 'additionalProperties' && v === false)) continue;
      if (k === 'properties' && options.dropEchoes) {
        out[k] = Object.fromEntries(Object.entries(v as Record<string, JsonSchema>).map(([name, field]) => [name, withoutEcho(name, walk(field) as JsonSchema)]));
      } else out[k] = walk(v);
    }
    if (out.format === 'date-time') delete out.pattern;
    return out;
  };
  return walk(node) as JsonSchema;
}

const wordsOf = (text: string) => text.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);

function withoutEcho(name: string, field: JsonSchema): JsonSchema {
  if (typeof field.description !== 'string') return field;
  const named = new Set(wordsOf(name));
  if (!wordsOf(field.description).every((w) => named.has(w) || named.has(`${w}s`) || named.has(w.replace(/s$/, '')))) return field;
  const { description: _echo, ...rest } = field;
  return rest;
}

/** Any JSON value, spelled so that a client mapping schemas onto a one-type dialect (Gemini's) can take it. */
const ANY_JSON: JsonSchema[] = ['object', 'array', 'string', 'number', 'boolean', 'null'].map((type) =>
  type === 'object' ? { type, additionalProperties: true } : { type },
);

/** Keywords that belong to one type's branch when a list of types is split. */
const KEYWORDS_OF: Record<string, string[]> = {
  string: ['format', 'pattern', 'minLength', 'maxLength'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['items', 'minItems', 'maxItems', 'uniqueItems'],
  object: ['properties', 'required', 'additionalProperties', 'propertyNames'],
};

/**
 * What every mainstream client takes: one type per schema (a list such as ["string","null"] becomes anyOf
 * branches), a free-form object says additionalProperties: true, and a value of any type names the JSON types.
 */
function portable(node: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'properties') out[k] = Object.fromEntries(Object.entries(v as Record<string, JsonSchema>).map(([name, sub]) => [name, portable(sub)]));
    else if (k === 'items') out[k] = portable(v as JsonSchema);
    else if (k === 'additionalProperties' && v && typeof v === 'object') out[k] = Object.keys(v).length === 0 ? true : portable(v as JsonSchema);
    else if (k === 'anyOf' || k === 'oneOf' || k === 'allOf') out[k] = (v as JsonSchema[]).map(portable);
    else out[k] = v;
  }
  if (Array.isArray(out.type)) {
    const types = out.type as string[];
    const { type: _type, ...rest } = out;
    const shared = Object.fromEntries(Object.entries(rest).filter(([k]) => !types.some((t) => KEYWORDS_OF[t]?.includes(k))));
    const branch = (t: string) => ({ type: t, ...Object.fromEntries(Object.entries(rest).filter(([k]) => KEYWORDS_OF[t]?.includes(k))) });
    return { ...shared, anyOf: types.map(branch) };
  }
  const constrains = Object.keys(out).some((k) => k !== 'description' && k !== 'title' && k !== 'default');
  return constrains ? out : { ...out, anyOf: ANY_JSON };
}
