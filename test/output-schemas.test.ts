import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import * as z from 'zod/v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTools } from '../src/registry.js';
import { toMcpTool } from '../src/mcp/tools.js';
import { defineTool } from '../src/tool.js';
import { startHarness, type Harness } from './harness.js';
import { portabilityIssues } from './support/schema-lint.js';

const tools = buildTools({ readOnly: false }).map(toMcpTool);

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

