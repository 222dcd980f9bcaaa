import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import * as z from 'zod/v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTools } from '../src/registry.js';
import { toMcpTool } from '../src/mcp/tools.js';
import { defineTool } from '../src/tool.js';
import { startHarness, type Harness } from './harness.js';

type Schema = Record<string, any>;
const tools = buildTools({ readOnly: false }).map(toMcpTool);

/** Keywords that constrain a value; a schema with none of them accepts anything. */
const CONSTRAINING = new Set(['type', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', 'not', 'properties', 'additionalProperties', 'items', 'required', 'format', 'pattern', 'minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', '$ref']);
const BOOLEAN_ALLOWED = new Set(['additionalProperties', 'unevaluatedProperties']);

/**
 * What a client mapping tool schemas onto a one-type dialect (Gemini's function declarations) cannot take, as MCP
 * Inspector's schema lint reports it: a list of types, a reference outside the document, a schema that constrains
 * nothing, and a bare true/false where a schema belongs.
 */
function portabilityIssues(node: unknown, path: string, keyword?: string): string[] {
  if (typeof node === 'boolean') return keyword && BOOLEAN_ALLOWED.has(keyword) ? [] : [`${path}: bare ${node}`];
  if (!node || typeof node !== 'object') return [];
  const schema = node as Schema;
  const issues: string[] = [];
  if (Array.isArray(schema.type)) issues.push(`${path}: type is a list (${schema.type.join(', ')})`);
  if (typeof schema.$ref === 'string' && !schema.$ref.startsWith('#')) issues.push(`${path}: remote $ref`);
  if (!Object.keys(schema).some((k) => CONSTRAINING.has(k))) issues.push(`${path}: constrains nothing`);
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties') for (const [name, sub] of Object.entries(value as Schema)) issues.push(...portabilityIssues(sub, `${path}/${name}`, key));
    else if (key === 'items' || key === 'additionalProperties' || key === 'not') issues.push(...portabilityIssues(value, `${path}/${key}`, key));
    else if (key === 'anyOf' || key === 'oneOf' || key === 'allOf') (value as unknown[]).forEach((sub, i) => issues.push(...portabilityIssues(sub, `${path}/${key}/${i}`, key)));
  }
  return issues;
}

describe('output schemas', () => {
  it('are full JSON Schemas that a strict 2020-12 validator compiles', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    for (const tool of tools) {
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(Object.keys(tool.outputSchema?.properties ?? {}).length, tool.name).toBeGreaterThan(0);
      expect(() => ajv.compile(tool.outputSchema!), tool.name).not.toThrow();
    }
  });

  it('carry, with the input schemas, nothing a mainstream client cannot take', () => {
    const issues = tools.flatMap((t) => [
      ...portabilityIssues(t.inputSchema, `${t.name} input `),
      ...portabilityIssues(t.outputSchema, `${t.name} output `),
    ]);
    expect(issues).toEqual([]);
  });

  describe('checked on every result the tests produce', () => {
    let h: Harness;
    const liar = defineTool({
      name: 'test_liar',
      title: 'Lies about its result',
      description: 'Returns a count that is not a number.',
      input: z.object({}).strict(),
      output: z.object({ count: z.number().int(), when: z.string().datetime() }),
      effect: 'read',
      run: async () => ({ count: 'three', when: 'yesterday' }) as never,
    });
    beforeAll(async () => {
      h = await startHarness({ extraTools: [liar] });
    });
    afterAll(() => h.close());

    it('a result that does not fit its schema fails the call in the test client', async () => {
      await expect(h.call('test_liar', {})).rejects.toThrow(/Structured content does not match the tool's output schema.*count.*when/s);
    });
  });
});

