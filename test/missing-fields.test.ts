import * as z from 'zod/v4';
import { describe, expect, it } from 'vitest';
import { fillMissing } from '../src/missing-fields.js';

const schema = z.object({
  name: z.string(),
  language: z.string().nullable(),
  note: z.string().optional(),
  owner: z.object({ login: z.string(), site: z.string().nullable() }).nullable(),
  items: z.array(z.object({ id: z.number(), label: z.string().nullable().describe('may be left out') })),
  byName: z.record(z.string(), z.object({ size: z.number().nullable() })),
});

describe('fillMissing', () => {
  it('makes a required nullable field the answer lacked null, at any depth, and leaves optional ones absent', () => {
    const answer = { name: 'x', owner: { login: 'o' }, items: [{ id: 1 }, { id: 2, label: 'b' }], byName: { a: {} } };
    const filled = fillMissing(schema, answer);
    expect(filled).toEqual({ name: 'x', language: null, owner: { login: 'o', site: null }, items: [{ id: 1, label: null }, { id: 2, label: 'b' }], byName: { a: { size: null } } });
    expect(filled).not.toHaveProperty('note');
    expect(schema.safeParse(filled).success).toBe(true);
    // The answer itself is not changed.
    expect(answer).not.toHaveProperty('language');
  });

  it('leaves a required field that may not be null missing, so the result still shows where it breaks its schema', () => {
    const filled = fillMissing(schema, { language: 'ts', owner: null, items: [], byName: {} });
    expect(filled).not.toHaveProperty('name');
    expect(schema.safeParse(filled).success).toBe(false);
  });

  it('returns the same object when nothing is missing', () => {
    const whole = { name: 'x', language: null, owner: null, items: [{ id: 1, label: null }], byName: {} };
    expect(fillMissing(schema, whole)).toBe(whole);
  });
});
