import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/contracts/governance.js';
import { approvalNeeded, branchesWritten, candidateRules, effectOf, outsideRecipients } from '../../src/governance/approval-rules.js';
import { approvalsFor, decideApproval, gateCall } from '../../src/governance/approvals.js';
import { personOf } from '../../src/governance/person.js';
import { policySource, storedPolicy } from '../../src/governance/policy-source.js';
import { runCli } from '../e2e/cli.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createServer } from '../../src/mcp/server.js';
import { serverTools } from '../../src/registry.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixedPolicy, parsePolicy } from '../../src/policy.js';
import { forOwner } from '../../src/owner.js';
import type { Tool } from '../../src/tool.js';
import { startHarness, type Harness } from '../harness.js';

const policy = parsePolicy(
  JSON.stringify({
    teamDomains: ['contoso.example'],
    roles: { interns: ['sam'] },
    approvals: [
      { name: 'Any delete', effect: ['delete'], approver: 'admin' },
      { name: 'Protected branch', tools: ['github_*'], when: { branch: ['main', 'release/*'] } },
      { name: 'Interns write', for: ['role:interns'], effect: ['write'], accounts: ['sample'] },
    ],
  }),
  'test',
);
const member = { id: 'u1', login: 'ada', role: 'member' as const };
const intern = { id: 'u2', login: 'sam', role: 'member' as const };
const needOf = (person: typeof member, tool: string, effect: 'read' | 'write' | 'delete', args: Record<string, unknown>, account?: { id: string; label: string }) =>
  approvalNeeded(policy, candidateRules(policy, person, tool, effect), { tool, effect, args, account });

describe('approval rules, checked without a provider', () => {
  it('a generic call takes its effect from its method', () => {
    const apiCall = { name: 'github_api_call', effect: 'delete' as const };
    expect(effectOf(apiCall, { method: 'GET' })).toBe('read');
    expect(effectOf(apiCall, { method: 'PATCH' })).toBe('write');
    expect(effectOf(apiCall, { method: 'DELETE' })).toBe('delete');
    expect(needOf(member, 'github_api_call', 'delete', { method: 'DELETE', endpoint: '/repos/o/r/issues/1/labels/x' })?.approver).toBe('admin');
  });

  it('finds the branch a write names, in a tool argument or a generic call’s path and body', () => {
    expect(branchesWritten({ branch: 'refs/heads/main' })).toEqual(['main']);
    expect(branchesWritten({ method: 'PATCH', endpoint: '/repos/o/r/git/refs/heads/release/2.0' })).toEqual(['release/2.0']);
    expect(branchesWritten({ method: 'POST', endpoint: '/repos/o/r/git/refs', body: { ref: 'refs/heads/main', sha: 'abc' } })).toEqual(['main']);
    expect(branchesWritten({ method: 'PUT', endpoint: '/repos/o/r/contents/a.md', body: { message: 'm', content: 'eA==' } })).toEqual(['(default branch)']);
    expect(branchesWritten({ method: 'POST', endpoint: '/repos/o/r/merges', body: { base: 'main', head: 'x' } })).toEqual(['main']);
    expect(needOf(member, 'github_create_or_update_file', 'write', { branch: 'feature/x' })).toBeUndefined();
    expect(needOf(member, 'github_api_call', 'write', { method: 'PATCH', endpoint: '/repos/o/r/git/refs/heads/main' })?.rules[0]!.name).toBe('Protected branch');
    expect(needOf(member, 'github_api_call', 'read', { method: 'GET', endpoint: '/repos/o/r/git/refs/heads/main' })).toBeUndefined();
  });

  it('finds recipients outside the team’s domains, subdomains counting as inside', () => {
    expect(outsideRecipients({ to: ['A <a@contoso.example>', 'b@eu.contoso.example'], cc: ['c@fabrikam.example'] }, ['contoso.example'])).toEqual(['c@fabrikam.example']);
    expect(outsideRecipients({ method: 'POST', body: { message: { toRecipients: [{ emailAddress: { address: 'd@evil.example' } }] } } }, ['contoso.example'])).toEqual(['d@evil.example']);
  });

  it('a rule for a role or an account applies to its people and account only', () => {
    const sample = { id: 'acc_1', label: 'sample' };
    expect(needOf(intern, 'outlook_create_event', 'write', {}, sample)?.rules[0]!.name).toBe('Interns write');
    expect(needOf(member, 'outlook_create_event', 'write', {}, sample)).toBeUndefined();
    expect(needOf(intern, 'outlook_create_event', 'write', {}, { id: 'acc_2', label: 'work' })).toBeUndefined();
  });
});

describe('the stored policy', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('is read again at most every few seconds, so a change reaches every instance that soon', async () => {
    let now = 0;
    const source = storedPolicy(h.store, { refreshMs: 3000, now: () => now });
    expect((await source.current()).approvals).toEqual([]);
    await h.store.policy.set(JSON.stringify({ approvals: [{ name: 'All writes', effect: ['write'] }] }), 'cli', new Date().toISOString());
    now = 2999;
    expect((await source.current()).approvals).toEqual([]);
    now = 3000;
    expect((await source.current()).approvals.map((r) => r.name)).toEqual(['All writes']);
    await h.store.policy.clear();
  });

  it('asks per person; a member sees and decides only their own caller approvals, an admin every one; each step is recorded', async () => {
    const ada = await h.store.team.users.signIn({ provider: 'github', subject: '1', login: 'ada', email: null, role: 'member' });
    const lead = await h.store.team.users.signIn({ provider: 'github', subject: '2', login: 'lead', email: null, role: 'admin' });
    const trail: AuditEntry[] = [];
    const rules = { approvals: [{ name: 'Ada sends', for: ['ada'], tools: ['outlook_send_email'] }, { name: 'Deletes', effect: ['delete'], approver: 'admin' }] };
    const deps = { ...forOwner(h.deps, ada.id), policy: fixedPolicy(parsePolicy(JSON.stringify(rules), 'test')), audit: { record: async (e: AuditEntry) => void trail.push(e) } };
    const tool = (name: string) => h.deps.tools.find((t) => t.name === name) as Tool;
    const mail = await gateCall(deps, tool('outlook_send_email'), { to: ['x@y.example'], subject: 's', body: 'b' }, { canAsk: false });
    const remove = await gateCall(deps, tool('outlook_delete_event'), { id: 'e1' }, { canAsk: true });
    expect([mail.kind, remove.kind]).toEqual(['pending', 'pending']);
    const leadsMail = await gateCall({ ...deps, ...forOwner(h.deps, lead.id) }, tool('outlook_send_email'), { to: ['x@y.example'], subject: 's', body: 'b' }, { canAsk: false });
    expect(leadsMail.kind).toBe('run');

    const adaSees = await approvalsFor(h.store, await personOf(h.store, ada.id));
    expect(adaSees.map((a) => a.rule)).toEqual(['Ada sends']);
    expect((await approvalsFor(h.store, await personOf(h.store, lead.id))).map((a) => a.rule).sort()).toEqual(['Ada sends', 'Deletes']);
    const adminOnly = (remove as { approval: { id: string } }).approval.id;
    await expect(decideApproval(h.store, deps.audit, { person: await personOf(h.store, ada.id), actor: { owner: ada.id, auth: 'page' } }, adminOnly, { approve: true })).rejects.toThrow(/No approval .* waits for you/);
    await decideApproval(h.store, deps.audit, { person: await personOf(h.store, lead.id), actor: { owner: lead.id, auth: 'page' } }, adminOnly, { approve: false, reason: 'no' });
    expect(trail.map((e) => [e.action, e.outcome, e.actor.owner])).toEqual([
      ['approval.requested', 'pending', ada.id],
      ['approval.requested', 'pending', ada.id],
      ['approval.denied', 'denied', lead.id],
    ]);
    expect(trail.every((e) => e.approvalId && e.target === e.approvalId)).toBe(true);
  });

  it('SWITCHBOARD_POLICY: the file is the policy, and the command line refuses to change it, naming the variable', { timeout: 60_000 }, async () => {
    const file = join(h.dataDir, 'policy.json');
    writeFileSync(file, JSON.stringify({ approvals: [{ name: 'From the file', effect: ['delete'] }] }));
    await h.store.policy.set('{}', 'cli', new Date().toISOString());
    expect((await policySource(h.store, file).current()).approvals.map((r) => r.name)).toEqual(['From the file']);
    const env = { SWITCHBOARD_DATA_DIR: h.dataDir, SWITCHBOARD_SECRET_KEY: 'test-secret-key', SWITCHBOARD_POLICY: file };
    const set = await runCli(['policy', 'set', file], { env });
    expect(set.code).not.toBe(0);
    expect(set.stderr).toMatch(/is the file SWITCHBOARD_POLICY names .* unset SWITCHBOARD_POLICY/);
    const shown = await runCli(['policy', 'show', '--json'], { env });
    expect(JSON.parse(shown.stdout)).toMatchObject({ source: `SWITCHBOARD_POLICY (${file})`, policy: { approvals: [{ name: 'From the file' }] } });
  });

  it('tools_call (discovery mode) is held as the tool it runs is, once', async () => {
    const rules = { teamDomains: ['contoso.example'], approvals: [{ name: 'Outside email', tools: ['outlook_send_email'], when: { recipientOutside: true } }, { name: 'Deletes', effect: ['delete'] }] };
    const tools = serverTools({ readOnly: false, toolMode: 'discover' });
    const server = createServer({ ...h.deps, tools, policy: fixedPolicy(parsePolicy(JSON.stringify(rules), 'test')) });
    const client = new Client({ name: 'discover', version: '1' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    await client.connect(a);
    const held = (await client.callTool({ name: 'tools_call', arguments: { name: 'outlook_send_email', arguments: { to: ['x@fabrikam.example'], subject: 's', body: 'b' } } })) as CallToolResult;
    expect(held.isError).toBe(true);
    expect((held.content[0] as { text: string }).text).toMatch(/^Waiting for approval apr_\w+: Nothing was sent/);
    const inside = (await client.callTool({ name: 'tools_call', arguments: { name: 'outlook_send_email', arguments: { to: ['x@contoso.example'], subject: 's', body: 'b' } } })) as CallToolResult;
    expect(inside.isError, JSON.stringify(inside)).toBeFalsy();
    await client.close();
  });
});
