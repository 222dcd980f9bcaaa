import * as z from 'zod/v4';

/** What every tool input and output, and every trigger config, is: a zod object. */
export type ObjectSchema = z.ZodObject<z.ZodRawShape>;

type JsonSchema = Record<string, unknown>;

/** What a model sees of a tool's input: the JSON Schema, closed, with required fields, enums, bounds and formats. */
export function inputJsonSchema(schema: z.ZodType): JsonSchema {
  return { ...prune(toJson(schema, 'input')), additionalProperties: false };
}

/**
 * What a model sees of a tool's result: one line that names every field, in few tokens:
 * `{id, subject?, status: matched|no_match, files: [{filename, patch?}], topics[]}`, with `?` for a field
 * that may be absent or null and each field's note in brackets. The full typed schema would cost the
 * model about three times as many tokens for the same names.
 */
export function outputJsonSchema(schema: z.ZodType): JsonSchema {
  return { type: 'object', description: outline(toJson(schema, 'output')) };
}

function toJson(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline' }) as JsonSchema;
  delete out.$schema;
  return out;
}

/**
 * Keywords that tell a model little for their tokens: JSON object keys are always strings, safe-integer bounds
 * are no bounds, and an empty string or an unknown nested field is refused by name when called anyway.
 */
function prune(node: JsonSchema): JsonSchema {
  const walk = (n: unknown): unknown => {
    if (Array.isArray(n)) return n.map(walk);
    if (!n || typeof n !== 'object') return n;
    const out: JsonSchema = {};
    for (const [k, v] of Object.entries(n)) {
      if (k === 'propertyNames' && JSON.stringify(v) === '{"type":"string"}') continue;
      if ((k === 'minimum' && v === Number.MIN_SAFE_INTEGER) || (k === 'maximum' && v === Number.MAX_SAFE_INTEGER)) continue;
      if ((k === 'minLength' && v === 1) || (k === 'additionalProperties' && v === false)) continue;
      out[k] = walk(v);
    }
    return out;
  };
  return walk(node) as JsonSchema;
}

function outline(record: JsonSchema): string {
  const required = new Set((record.required as string[] | undefined) ?? []);
  const fields = Object.entries((record.properties ?? {}) as Record<string, JsonSchema>).map(([name, given]) => {
    const field = nonNull(given);
    const nullable = field !== given || (Array.isArray(field.type) && field.type.includes('null'));
    const label = name + (required.has(name) && !nullable ? '' : '?');
    const shape = shapeOf(field);
    return label + (shape ? `: ${shape}` : '') + (field.description ? ` (${field.description})` : '');
  });
  return `{${fields.join(', ')}}`;
}

/** A nullable object or list comes as anyOf [it, null]: the field is then shown as optional, with its shape. */
function nonNull(field: JsonSchema): JsonSchema {
  const options = field.anyOf as JsonSchema[] | undefined;
  if (options?.length !== 2) return field;
  const rest = options.filter((o) => o.type !== 'null');
  return rest.length === 1 ? { ...rest[0], ...(field.description ? { description: field.description } : {}) } : field;
}

/** Only what a name does not tell: nested records, lists and enums; a plain value shows nothing. */
function shapeOf(field: JsonSchema): string {
  if (field.properties) return outline(field);
  if (Array.isArray(field.enum)) return field.enum.join('|');
  const items = field.items as JsonSchema | undefined;
  if (items?.properties) return `[${outline(items)}]`;
  if (items) return `[${shapeOf(items) || (items.type as string) || 'any'}]`;
  return '';
}
