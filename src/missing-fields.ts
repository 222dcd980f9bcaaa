import * as z from 'zod/v4';

type NullableKeys<T> = { [K in keyof T]-?: null extends T[K] ? K : never }[keyof T];
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];
type MayLack<T> = NullableKeys<T> | OptionalKeys<T>;

/**
 * What a tool's `run` may return for its output schema: a field the schema allows to be null may also be left out
 * (undefined), as a provider's answer leaves it out; fillMissing then makes it null.
 */
export type Lenient<T> = T extends readonly (infer E)[]
  ? Lenient<E>[]
  : T extends object
    ? { [K in Exclude<keyof T, MayLack<T>>]: Lenient<T[K]> } & { [K in MayLack<T>]?: Lenient<T[K]> }
    : T;

/** Wrappers that hold one schema and say nothing of a present value's shape. */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch']);

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const def = current._zod.def as { type: string; innerType?: z.ZodType; out?: z.ZodType; getter?: () => z.ZodType };
    if (WRAPPERS.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === 'pipe' && def.out) current = def.out;
    else if (def.type === 'lazy' && def.getter) current = def.getter();
    else return current;
  }
}

const takes = (schema: z.ZodType, value: unknown) => schema.safeParse(value).success;

/**
 * A result as its output schema promises it, where a provider left fields out: a field the schema requires and allows
 * to be null is null when the answer had none; an optional one stays absent. Every other value is left as it is, so a
 * result that breaks its schema otherwise still shows where. Objects are copied where something is filled in.
 */
export function fillMissing(schema: z.ZodType, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  const inner = unwrap(schema);
  const def = inner._zod.def as { type: string; shape?: Record<string, z.ZodType>; element?: z.ZodType; valueType?: z.ZodType };
  if (def.type === 'array' && def.element && Array.isArray(value)) {
    const element = def.element;
    let changed = false;
    const items = value.map((item) => {
      const filled = fillMissing(element, item);
      changed ||= filled !== item;
      return filled;
    });
    return changed ? items : value;
  }
  if (typeof value !== 'object' || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  if (def.type === 'record' && def.valueType) {
    const valueType = def.valueType;
    let changed = false;
    const entries = Object.entries(record).map(([key, item]) => {
      const filled = fillMissing(valueType, item);
      changed ||= filled !== item;
      return [key, filled] as const;
    });
    return changed ? Object.fromEntries(entries) : value;
  }
  if (def.type !== 'object' || !def.shape) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, field] of Object.entries(def.shape)) {
    const current = record[key];
    let next = current;
    if (current === undefined) {
      if (!takes(field, undefined) && takes(field, null)) next = null;
    } else {
      next = fillMissing(field, current);
    }
    if (next !== current) (copy ??= { ...record })[key] = next;
  }
  return copy ?? value;
}
