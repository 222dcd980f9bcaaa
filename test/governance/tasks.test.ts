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
    // The task's state is the server's: no requestState on the tasks wire.
    expect(task).not.toHaveProperty('requestState');

    const working = await rpc('tasks/get', { taskId: task.taskId });
    expect(working.body.result).toMatchObject({ resultType: 'complete', taskId: task.taskId, status: 'working' });
    expect(working.body.result.statusMessage).toMatch(/Nothing was sent/);
    expect(sentMail()).toBe(0);

    const approved = await cli('approvals', 'approve', task.taskId);
    expect(approved.code, approved.stderr).toBe(0);
    const done = await rpc('tasks/get', { taskId: task.taskId });
    expect(done.body.result).toMatchObject({ resultType: 'complete', taskId: task.taskId, status: 'completed' });
    expect(done.body.result.result.isError, JSON.stringify(done.body.result)).toBeFalsy();
    expect(done.body.result.result.structuredContent).toMatchObject({ status: 'accepted' });
    expect(sentMail()).toBe(1);
    await flushAudit(h.deps.audit);
    const calls = await h.store.audit.list({ tool: 'outlook_send_email' });
    expect(calls.filter((r) => r.action === 'tool.call' && r.approvalId === task.taskId).map((r) => r.outcome)).toEqual(['ok']);

    expect(done.body.result).not.toHaveProperty('requestState');
    // The result is kept: the same answer again, nothing sent again.
    const again = await rpc('tasks/get', { taskId: task.taskId });
    expect(again.body.result.status).toBe('completed');
    expect(again.body.result.result).toEqual(done.body.result.result);
    expect(sentMail()).toBe(1);
  });

  it('completes a denied call with the denial as an isError result, sending nothing', async () => {
    const task = await createTask('Denied by the operator');
    const denied = await cli('approvals', 'deny', task.taskId, '--reason', 'not to customers yet');
    expect(denied.code, denied.stderr).toBe(0);
    const { body } = await rpc('tasks/get', { taskId: task.taskId });
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
    const read = await rpc('tasks/get', { taskId: task.taskId });
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

  it('answers an unknown task id, or the id of an approval that is no task, as unknown, naming taskId', async () => {
    const plain = await rpc('tools/call', { name: 'outlook_send_email', arguments: email('Not a task') }, false);
    const approvalId = plain.body.result._meta[APPROVAL_META_KEY].approval_id;
    expect((await cli('approvals', 'approve', approvalId)).code).toBe(0);
    for (const taskId of ['apr_000000000000000000000000', approvalId]) {
      const { body } = await rpc('tasks/get', { taskId });
      expect(body.error).toMatchObject({ code: -32602, message: `"taskId": no task "${taskId}" for you; a task id comes from the tools/call that created it.` });
    }
    const empty = await rpc('tasks/get', {});
    expect(empty.body.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^"taskId" must be a non-empty string/) });
    expect(sentMail()).toBe(1);
  });

  it('refuses the tasks methods, with -32021 and HTTP 400, to a request that did not declare the extension', async () => {
    const task = await createTask('Undeclared reader');
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const { status, body } = await rpc(method, { taskId: task.taskId, inputResponses: {} }, false);
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } });
    }
    expect((await rpc('tasks/get', { taskId: task.taskId })).body.result.status).toBe('working');
  });

  it('a plain call with the same arguments takes the approval a task waits on: the task then says so and sends nothing', async () => {
    const task = await createTask('Taken by a plain call');
    expect((await cli('approvals', 'approve', task.taskId)).code).toBe(0);
    const before = sentMail();
    const plain = await rpc('tools/call', { name: 'outlook_send_email', arguments: email('Taken by a plain call') }, false);
    expect(plain.body.result.isError, JSON.stringify(plain.body)).toBeFalsy();
    expect(sentMail()).toBe(before + 1);
    const { body } = await rpc('tasks/get', { taskId: task.taskId });
    expect(body.result).toMatchObject({ status: 'completed', result: { isError: true } });
    expect(textOf(body.result.result)).toMatch(/^outlook_send_email ran once, or learnt its denial, under approval apr_\w+ on another request, whose answer this task does not hold/);
    expect(sentMail()).toBe(before + 1);
  });

  it('still answers a client that did not declare the extension with the pending approval', async () => {
    const { body } = await rpc('tools/call', { name: 'outlook_send_email', arguments: email('No tasks here') }, false);
    expect(body.result.resultType).toBe('complete');
    expect(body.result.isError).toBe(true);
    expect(body.result._meta[APPROVAL_META_KEY]).toMatchObject({ status: 'approval_pending', waiting_for: 'an admin', sent: false });
    expect(body.result).not.toHaveProperty('taskId');
  });
});
