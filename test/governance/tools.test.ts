import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/contracts/governance.js';
import { discoveryTools } from '../../src/mcp/discovery.js';
import { fixedPolicy, parsePolicy, PolicySchema } from '../../src/policy.js';
import { buildTools } from '../../src/registry.js';
import { startHarness, type Harness } from '../harness.js';

/**
 * The policy's tools rules on a personal server (its one owner), through a real MCP client: tools/list, tools/call and
 * the discovery tools all see the same narrowed set, and a refused call is recorded in the audit trail.
 */

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const text = (r: { content: unknown }) => (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n');

describe('tools per person', () => {
  it('hides and refuses denied tools in tools/list, tools/call, tools_search, tools_describe and tools_call, and audits the refusal', async () => {
    h = await startHarness({ extraTools: discoveryTools(buildTools({ readOnly: false })) });
    const audited: AuditEntry[] = [];
    h.deps.audit = { record: async (entry) => void audited.push(entry) };
    h.deps.policy = fixedPolicy(PolicySchema.parse({ tools: [{ for: ['*'], deny: ['github_create_*'] }, { for: ['role:admin'], allow: ['github_*', 'tools_*'] }] }));

    const listed = (await h.client.listTools()).tools.map((t) => t.name);
    expect(listed).toContain('github_get_repository');
    expect(listed).toContain('tools_call');
    expect(listed).not.toContain('github_create_issue');
    // Two rules apply: the allow list narrows to GitHub, and the deny takes the create tools out of it.
    expect(listed.filter((n) => !n.startsWith('github_') && !n.startsWith('tools_'))).toEqual([]);

    const before = h.sandbox.servers.github.requests.length;
    const direct = await h.call('github_create_issue', { owner: 'sbx-octocat', repo: 'hello-world', title: 'x' });
    expect(direct.isError).toBe(true);
    expect(text(direct)).toBe(
      'You may not use github_create_issue: policy tools.0 (for *) denies "github_create_*". tools/list shows the tools you may use; an admin can change the policy.',
    );
    expect(text(await h.call('outlook_find_email', {}))).toMatch(/^You may not use outlook_find_email: policy tools\.1 \(for role:admin\) allows only "github_\*", "tools_\*"/);
    expect(audited).toEqual([
      expect.objectContaining({ action: 'tool.call', tool: 'github_create_issue', effect: 'write', outcome: 'refused', errorClass: 'ToolRefusedError' }),
      expect.objectContaining({ action: 'tool.call', tool: 'outlook_find_email', outcome: 'refused' }),
    ]);

    const found = (await h.ok('tools_search', { query: 'create issue', limit: 60 })).tools.map((t: { name: string }) => t.name);
    expect(found.length).toBeGreaterThan(0);
    expect(found.filter((n: string) => n.startsWith('github_create_') || !n.startsWith('github_'))).toEqual([]);
    expect(await h.fails('tools_describe', { name: 'github_create_issue' })).toMatch(/No tool "github_create_issue"/);
    expect(await h.fails('tools_call', { name: 'github_create_issue', arguments: { owner: 'sbx-octocat', repo: 'hello-world', title: 'x' } })).toMatch(
      /^You may not use github_create_issue: policy tools\.0/,
    );
    expect(h.sandbox.servers.github.requests.length, 'nothing reached the provider').toBe(before);
    const described = await h.ok('tools_describe', { name: 'github_get_repository' });
    expect(described.tool.name).toBe('github_get_repository');

    // Without a policy every tool is back.
    h.deps.policy = undefined;
    expect((await h.client.listTools()).tools.map((t) => t.name)).toContain('github_create_issue');
  });

  it('refuses a tools rule with an effect that does not exist, naming the field', () => {
    expect(() => parsePolicy(JSON.stringify({ tools: [{ for: ['*'], effect: ['look'] }] }), 'policy.json')).toThrow(/^policy\.json is not a valid policy:\n- tools\.0\.effect\.0: /);
  });
});
