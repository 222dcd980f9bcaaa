import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedPolicy } from '../../src/governance/policy-source.js';
import { flushAudit } from '../../src/governance/audit-trail.js';
import { APPROVAL_META_KEY } from '../../src/mcp/approval.js';
import { runCli } from '../e2e/cli.js';
import { startHttpHarness, type Harness } from '../harness.js';
import { freshDatabase, type TestDatabase } from '../pg.js';
import { modernRpc, TASKS } from './tasks-rpc.js';

/**
 * The tasks extension (2026-07-28) for calls that wait for an admin's yes, over raw JSON-RPC on real HTTP: a client
 * that declares it gets a task, tasks/get runs the call once when the operator approves with `switchboard approvals`,
 * or completes it with the denial; a client that does not declare it gets the pending approval as before.
 */

const POLICY = {
  teamDomains: ['contoso.example'],
  approvals: [{ name: 'Outside email', tools: ['outlook_send_email'], when: { recipientOutside: true }, approver: 'admin' }],
};
const email = (subject: string) => ({ to: ['jordan.lee@fabrikam.example'], subject, body: 'Quarterly numbers attached.' });
/** An empty acknowledgement: resultType and nothing else but the envelope's _meta. */
const ack = (result: Record<string, unknown>) => Object.fromEntries(Object.entries(result).filter(([key]) => key !== '_meta'));
const textOf = (result: { content?: Array<{ text?: string }> }) => (result.content ?? []).map((c) => c.text ?? '').join('\n');

describe.each(['SQLite', 'PostgreSQL'])('calls waiting for an approver as tasks on %s', (adapter) => {
  let h: Harness;
  let endpoint: string;
  let close: () => Promise<void>;
  let database: TestDatabase | undefined;
  let env: Record<string, string>;
  beforeAll(async () => {
    database = adapter === 'PostgreSQL' ? await freshDatabase() : undefined;
    ({ h, endpoint, close } = await startHttpHarness({ databaseUrl: database?.url }));
    env = { SWITCHBOARD_SECRET_KEY: 'test-secret-key', SWITCHBOARD_DATA_DIR: h.dataDir, ...(database ? { SWITCHBOARD_DATABASE_URL: database.url } : {}) };
    await h.store.policy.set(JSON.stringify(POLICY), 'cli', new Date().toISOString());
    h.deps.policy = storedPolicy(h.store, { refreshMs: 0 });
  });
  afterAll(async () => {
    await close();
    await database?.drop();
  });

  const rpc = (method: string, params: Record<string, unknown>, tasks = true) => modernRpc(endpoint, method, params, { tasks });
  const sentMail = () => h.sandbox.servers.outlook.requests.filter((r) => r.path.endsWith('/sendMail')).length;
  const cli = (...args: string[]) => runCli(args, { env });
  const createTask = async (subject: string) => {
    const { body } = await rpc('tools/call', { name: 'outlook_send_email', arguments: email(subject) });
    expect(body.error).toBeUndefined();
    return body.result;
  };

  it('is advertised in server/discover', async () => {
    const { body } = await rpc('server/discover', {});
    expect(body.result.capabilities.extensions).toMatchObject({ [TASKS]: {} });
  });

  it('answers a task, runs the call once when approved, and answers the same result again without sending again', async () => {
    const task = await createTask('Approved by the operator');
    expect(task).toMatchObject({ resultType: 'task', taskId: expect.stringMatching(/^apr_[0-9a-f]{24}$/), status: 'working', ttlSeconds: expect.any(Number), pollIntervalMilliseconds: 5000 });
    expect(Date.parse(task.createdAt)).not.toBeNaN();
    expect(Date.parse(task.lastUpdatedAt)).not.toBeNaN();
    expect(task).not.toHaveProperty('result');
    expect(task.statusMessage).toContain(`an admin to approve ${task.taskId}`);
    // The arguments (an email body) travel sealed: nothing of them is readable in the state.
    expect(Buffer.from(task.requestState.replaceAll('.', ''), 'base64url').toString('latin1')).not.toContain('Quarterly');
    expect(task.requestState).not.toContain('Quarterly');

    const working = await rpc('tasks/get', { taskId: task.taskId });
    expect(working.body.result).toMatchObject({ resultType: 'complete', taskId: task.taskId, status: 'working' });
    expect(working.body.result.statusMessage).toMatch(/Nothing was sent/);
    expect(sentMail()).toBe(0);

    const approved = await cli('approvals', 'approve', task.taskId);
    expect(approved.code, approved.stderr).toBe(0);
    const done = await rpc('tasks/get', { taskId: task.taskId, requestState: task.requestState });
    expect(done.body.result).toMatchObject({ resultType: 'complete', taskId: task.taskId, status: 'completed' });
    expect(done.body.result.result.isError, JSON.stringify(done.body.result)).toBeFalsy();
    expect(done.body.result.result.structuredContent).toBeDefined();
    expect(sentMail()).toBe(1);
    await flushAudit(h.deps.audit);
    const calls = await h.store.audit.list({ tool: 'outlook_send_email' });
    expect(calls.filter((r) => r.action === 'tool.call' && r.approvalId === task.taskId).map((r) => r.outcome)).toEqual(['ok']);

    // The state it answered with carries the result: the same answer again, nothing sent again.
    const again = await rpc('tasks/get', { taskId: task.taskId, requestState: done.body.result.requestState });
    expect(again.body.result.status).toBe('completed');
    expect(again.body.result.result).toEqual(done.body.result.result);
    // The first state ran its call already: it is told so, and nothing is sent again.
    const stale = await rpc('tasks/get', { taskId: task.taskId, requestState: task.requestState });
    expect(stale.body.result.status).toBe('completed');
    expect(stale.body.result.result.isError).toBe(true);
    expect(textOf(stale.body.result.result)).toMatch(/delivered earlier; this server does not keep results/);
    expect(sentMail()).toBe(1);
  });

  it('completes a denied call with the denial as an isError result, sending nothing', async () => {
    const task = await createTask('Denied by the operator');
    const denied = await cli('approvals', 'deny', task.taskId, '--reason', 'not to customers yet');
    expect(denied.code, denied.stderr).toBe(0);
    const { body } = await rpc('tasks/get', { taskId: task.taskId, requestState: task.requestState });
    expect(body.result).toMatchObject({ status: 'completed', result: { isError: true } });
    expect(textOf(body.result.result)).toMatch(/was not run: an admin on the command line denied approval apr_\w+ \(rule "Outside email"\): not to customers yet\. Nothing was sent/);
    expect(body.result.result._meta[APPROVAL_META_KEY].approval_id).toBe(task.taskId);
    expect(sentMail()).toBe(1);
  });

  it('completes an expired one with an isError result; cancels a pending one, which can then no longer be approved', async () => {
    const late = await createTask('Never decided');
    await h.store.approvals.expire(new Date(Date.now() + 2 * 86_400_000).toISOString());
    const expired = await rpc('tasks/get', { taskId: late.taskId });
    expect(expired.body.result).toMatchObject({ status: 'completed', result: { isError: true } });
    expect(textOf(expired.body.result.result)).toMatch(/was not run: approval apr_\w+ expired at .* before anyone decided\. Nothing was sent/);

    const task = await createTask('Withdrawn by the client');
    const cancelled = await rpc('tasks/cancel', { taskId: task.taskId });
    expect(ack(cancelled.body.result)).toEqual({ resultType: 'complete' });
    const read = await rpc('tasks/get', { taskId: task.taskId, requestState: task.requestState });
    expect(read.body.result).toMatchObject({ status: 'cancelled' });
    expect(read.body.result).not.toHaveProperty('result');
    const approve = await cli('approvals', 'approve', task.taskId);
    expect(approve.code).not.toBe(0);
    expect(approve.stderr).toMatch(/is used, no longer pending/);
    await flushAudit(h.deps.audit);
    expect((await h.store.audit.list({ tool: 'outlook_send_email' })).some((r) => r.action === 'approval.cancelled' && r.approvalId === task.taskId)).toBe(true);
    // Update and cancel acknowledge whatever they name.
    expect(ack((await rpc('tasks/update', { taskId: task.taskId, inputResponses: {} })).body.result)).toEqual({ resultType: 'complete' });
    expect(ack((await rpc('tasks/cancel', { taskId: 'apr_000000000000000000000000' })).body.result)).toEqual({ resultType: 'complete' });
    expect(sentMail()).toBe(1);
  });

  it('refuses a tampered requestState, or one of another task, and an unknown task id, naming the field', async () => {
    const first = await createTask('Tamper one');
    const second = await createTask('Tamper two');
    expect(second.taskId).not.toBe(first.taskId);
    expect((await cli('approvals', 'approve', second.taskId)).code).toBe(0);
    const last = second.requestState.at(-2) === 'A' ? 'B' : 'A';
    const tampered = `${second.requestState.slice(0, -2)}${last}${second.requestState.at(-1)}`;
    for (const requestState of [tampered, first.requestState]) {
      const { body } = await rpc('tasks/get', { taskId: second.taskId, requestState });
      expect(body.error?.code).toBe(-32602);
      expect(body.error?.message).toMatch(/^"requestState" was not given by this server for this task/);
    }
    const missing = await rpc('tasks/get', { taskId: second.taskId });
    expect(missing.body.error?.message).toMatch(/^"requestState" is missing/);
    const unknown = await rpc('tasks/get', { taskId: 'apr_000000000000000000000000' });
    expect(unknown.body.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^"taskId": no task "apr_0+" for you/) });
    expect(sentMail()).toBe(1);
    // The approval was not used up by the refusals: the right state still runs it, once.
    const done = await rpc('tasks/get', { taskId: second.taskId, requestState: second.requestState });
    expect(done.body.result.status).toBe('completed');
    expect(sentMail()).toBe(2);
  });

  it('still answers a client that did not declare the extension with the pending approval', async () => {
    const { body } = await rpc('tools/call', { name: 'outlook_send_email', arguments: email('No tasks here') }, false);
    expect(body.result.resultType).toBe('complete');
    expect(body.result.isError).toBe(true);
    expect(body.result._meta[APPROVAL_META_KEY]).toMatchObject({ status: 'approval_pending', waiting_for: 'an admin', sent: false });
    expect(body.result).not.toHaveProperty('taskId');
  });
});
