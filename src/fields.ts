import * as z from 'zod/v4';
import { InputError } from './errors.js';
import type { ObjectSchema } from './schema.js';

type Data = Record<string, unknown>;

/** `fields` on a list tool: which fields of each record to return; the record's first field, its id, always comes. */
export const fieldsInput = z.array(z.string()).optional();

/** A list tool's records in its output schema: the record object, and the optional/nullable wrappers of the list. */
function recordList(output: ObjectSchema, records: string) {
  const wrappers: Array<'optional' | 'nullable'> = [];
  let list = output.shape[records] as z.ZodType | undefined;
  while (list instanceof z.ZodOptional || list instanceof z.ZodNullable) {
    wrappers.push(list instanceof z.ZodOptional ? 'optional' : 'nullable');
    list = list.unwrap() as z.ZodType;
  }
  const element = list instanceof z.ZodArray ? list.element : undefined;
  if (!(element instanceof z.ZodObject)) throw new Error(`"${records}" is not a list of records in the output schema`);
  return { list: list as z.ZodArray<ObjectSchema>, element: element as ObjectSchema, wrappers };
}

/** The field names of a list tool's records, read from its output schema. */
export function recordFieldNames(output: ObjectSchema, records: string): string[] {
  return Object.keys(recordList(output, records).element.shape);
}

/** With `fields`, a record may hold only some of its fields: the output schema then requires only its id. */
export function selectableOutput(output: ObjectSchema, records: string): ObjectSchema {
  const { list, element, wrappers } = recordList(output, records);
  const id = Object.keys(element.shape)[0]!;
  let selectable: z.ZodType = z.array(element.partial().required({ [id]: true } as Record<string, true>));
  if (list.description) selectable = selectable.describe(list.description);
  for (const wrap of wrappers.reverse()) selectable = wrap === 'optional' ? selectable.optional() : selectable.nullable();
  return output.extend({ [records]: selectable }) as ObjectSchema;
}

/** Refuses unknown names before anything is sent, so a typo costs no provider call. */
export function checkFields(fields: string[] | undefined, names: string[]): void {
  const unknown = (fields ?? []).filter((f) => !names.includes(f));
  if (unknown.length) {
    throw new InputError(`"fields": ${unknown.map((f) => JSON.stringify(f)).join(', ')} ${unknown.length > 1 ? 'are not fields' : 'is not a field'} of these records; choose from ${names.join(', ')}.`, 'fields');
  }
}

export function pickFields(result: Data, records: string, fields: string[] | undefined, names: string[]): Data {
  if (!fields?.length || !Array.isArray(result[records])) return result;
  const keep = new Set([names[0], ...fields]);
  const pick = (record: unknown) =>
    record && typeof record === 'object' ? Object.fromEntries(Object.entries(record as Data).filter(([k]) => keep.has(k))) : record;
  return { ...result, [records]: (result[records] as unknown[]).map(pick) };
}
