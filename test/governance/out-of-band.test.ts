import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedPolicy } from '../../src/governance/policy-source.js';
import { APPROVAL_META_KEY } from '../../src/mcp/approval.js';
import { runCli } from '../e2e/cli.js';
import { startHarness, type Harness } from '../harness.js';
import { freshDatabase, type TestDatabase } from '../pg.js';

/**
 * A client that cannot be asked, and a rule an admin approves: the call answers at once with a pending approval, the
 * operator decides with `switchboard approvals`, and the same call then runs once (or learns it was denied).
 */

const POLICY = {
  teamDomains: ['contoso.example'],
  approvals: [
    { name: 'Outside email', tools: ['outlook_send_email'], when: { recipientOutside: true } },
    { name: 'Protected branch', tools: ['github_*'], when: { branch: ['main', 'release/*'] }, approver: 'admin' },
  ],
};
const email = { to: ['jordan.lee@fabrikam.example'], subject: 'Out of band', body: 'Hello.' };
const file = (branch: string, message: string) => ({ account: 'sample', owner: 'sbx-octocat', repo: 'hello-world', path: `notes/${message}.md`, message, branch, content: 'note' });

describe.each(['SQLite', 'PostgreSQL'])('out-of-band approval on %s', (adapter) => {
  let h: Harness;
  let database: TestDatabase | undefined;
  let env: Record<string, string>;
  beforeAll(async () => {
    database = adapter === 'PostgreSQL' ? await freshDatabase() : undefined;
    h = await startHarness({ databaseUrl: database?.url });
    env = { SWITCHBOARD_SECRET_KEY: 'test-secret-key', SWITCHBOARD_DATA_DIR: h.dataDir, ...(database ? { SWITCHBOARD_DATABASE_URL: database.url } : {}) };
    await h.store.policy.set(JSON.stringify(POLICY), 'cli', new Date().toISOString());
    h.deps.policy = storedPolicy(h.store, { refreshMs: 0 });
  });
  afterAll(async () => {
    await h.close();
    await database?.drop();
  });

  const cli = async (...args: string[]) => {
    const r = await runCli(args, { env });
    return { ...r, out: r.stdout + r.stderr };
  };
  const sentMail = () => h.sandbox.servers.outlook.requests.filter((r) => r.path.endsWith('/sendMail')).length;
  const commits = () => h.sandbox.servers.github.requests.filter((r) => r.method === 'PUT' && r.path.includes('/contents/')).length;
  const pendingOf = (r: CallToolResult) => (r._meta as Record<string, any>)?.[APPROVAL_META_KEY];

  it('answers at once with a pending approval: its id, who decides, that nothing was sent, how to go on', async () => {
    const r = await h.client.callTool({ name: 'outlook_send_email', arguments: email }) as CallToolResult;
    expect(r.isError).toBe(true);
    const pending = pendingOf(r);
    expect(pending).toMatchObject({ status: 'approval_pending', approval_id: expect.stringMatching(/^apr_[0-9a-f]{24}$/), rule: 'Outside email', waiting_for: 'the person who made the call', sent: false });
    expect((r.content[0] as { text: string }).text).toContain(`switchboard approvals approve ${pending.approval_id}`);
    // The same call again is the same wait, not a second request.
    const again = await h.client.callTool({ name: 'outlook_send_email', arguments: email }) as CallToolResult;
    expect(pendingOf(again).approval_id).toBe(pending.approval_id);
    expect(sentMail()).toBe(0);

    const listed = await cli('approvals', '--json');
    expect(listed.code, listed.out).toBe(0);
    expect(JSON.parse(listed.stdout).map((a: { id: string }) => a.id)).toEqual([pending.approval_id]);

    const approved = await cli('approvals', 'approve', pending.approval_id);
    expect(approved.code, approved.out).toBe(0);
    expect(approved.stdout).toMatch(/Approved apr_/);
    const ran = await h.client.callTool({ name: 'outlook_send_email', arguments: email }) as CallToolResult;
    expect(ran.isError, JSON.stringify(ran)).toBeFalsy();
    expect(sentMail()).toBe(1);
    // Once: the next identical call waits for a new approval.
    const next = await h.client.callTool({ name: 'outlook_send_email', arguments: email }) as CallToolResult;
    expect(pendingOf(next).approval_id).not.toBe(pending.approval_id);
    expect(sentMail()).toBe(1);
  });

  it('an admin rule on a protected branch: denied with a reason, the next call learns it; another branch runs', async () => {
    const r = await h.client.callTool({ name: 'github_create_or_update_file', arguments: file('main', 'deny-me') }) as CallToolResult;
    const pending = pendingOf(r);
    expect(pending).toMatchObject({ rule: 'Protected branch', waiting_for: 'an admin' });
    expect(Date.parse(pending.expires_at) - Date.now()).toBeGreaterThan(23 * 3600_000);
    const denied = await cli('approvals', 'deny', pending.approval_id, '--reason', 'main is frozen');
    expect(denied.code, denied.out).toBe(0);
    const told = await h.client.callTool({ name: 'github_create_or_update_file', arguments: file('main', 'deny-me') }) as CallToolResult;
    expect(told.isError).toBe(true);
    expect((told.content[0] as { text: string }).text).toMatch(/was not run: an admin on the command line denied approval apr_\w+ \(rule "Protected branch"\): main is frozen\. Nothing was sent/);
    const twice = await cli('approvals', 'approve', pending.approval_id);
    expect(twice.code).not.toBe(0);
    expect(twice.stderr).toMatch(/is used, no longer pending/);

    const feature = await h.client.callTool({ name: 'github_create_or_update_file', arguments: file('feature/greeting', 'free') }) as CallToolResult;
    expect(feature.isError, JSON.stringify(feature)).toBeFalsy();
    expect(commits()).toBe(1);
  });

  it('a pending approval expires: it can no longer be approved, and the call asks anew', async () => {
    const r = await h.client.callTool({ name: 'github_create_or_update_file', arguments: file('release/1.0', 'late') }) as CallToolResult;
    const id = pendingOf(r).approval_id;
    // Two days on, past the admin's 24 hours: the sweep every listing and call runs expires it.
    const expired = await h.store.approvals.expire(new Date(Date.now() + 2 * 86_400_000).toISOString());
    expect(expired.map((a) => a.id)).toContain(id);
    const late = await cli('approvals', 'approve', id);
    expect(late.code).not.toBe(0);
    expect(late.stderr).toMatch(/is expired, no longer pending: the agent asks anew/);
    const anew = await h.client.callTool({ name: 'github_create_or_update_file', arguments: file('release/1.0', 'late') }) as CallToolResult;
    expect(pendingOf(anew).approval_id).not.toBe(id);
    expect(commits()).toBe(1);
  });
});
