import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decideApproval } from '../../src/governance/approvals.js';
import type { Store } from '../../src/store/index.js';
import { newPersonalToken } from '../../src/team/tokens.js';
import { ADAPTERS, type Adapter } from '../store/adapters.js';
import { startTeamServer } from '../team/team.js';
import { modernRpc } from './tasks-rpc.js';
import { sandboxPerFile } from '../support/sandbox-per-file.js';

/**
 * A task is its person's alone: on a team server, Bob can neither read, cancel nor run the task of Ada's agent, even
 * with its id, and the call it waits on is kept encrypted in the store.
 */

const POLICY = {
  teamDomains: ['contoso.example'],
  approvals: [{ name: 'Outside email', tools: ['outlook_send_email'], when: { recipientOutside: true }, approver: 'admin' }],
};
const email = { to: ['jordan.lee@fabrikam.example'], subject: 'Team task', body: 'Quarterly numbers attached.' };

const bed = sandboxPerFile();

async function tokenFor(store: Store, login: string) {
  const user = await store.team.users.signIn({ provider: 'github', subject: `id-${login}`, login, email: `${login}@contoso.example` });
  const { token, hash } = newPersonalToken();
  await store.team.tokens.create({ owner: user.id, name: 'tasks', scope: 'switchboard', tokenHash: hash, expiresAt: new Date(Date.now() + 3600_000).toISOString() });
  return { user, token };
}

describe.each(ADAPTERS)('tasks of two people on $name', (adapter: Adapter) => {
  it("keeps Ada's task from Bob: unknown to his tasks/get, untouched by his tasks/cancel, never run by him", async () => {
    const location = await adapter.location();
    const policyFile = join(location.dataDir, 'policy.json');
    writeFileSync(policyFile, JSON.stringify(POLICY));
    const server = await startTeamServer({ sandbox: bed.sandbox, location, env: { SWITCHBOARD_POLICY: policyFile } });
    bed.closeAfterTest(() => server.close());
    const { store, audit } = server.runtime.deps;
    const ada = await tokenFor(store, 'ada');
    const bob = await tokenFor(store, 'bob');
    await store.ownedBy(ada.user.id).accounts.add({ ...bed.sandbox.accounts.find((a) => a.provider === 'outlook')!, label: 'ada-mail' });
    const endpoint = `${server.url}/mcp`;
    const sent = () => bed.sandbox.servers.outlook.requests.filter((r) => r.path.endsWith('/sendMail')).length;
    const before = sent();

    const created = await modernRpc(endpoint, 'tools/call', { name: 'outlook_send_email', arguments: email }, { token: ada.token });
    const task = created.body.result;
    expect(task, JSON.stringify(created.body)).toMatchObject({ resultType: 'task', status: 'working' });
    const kept = await adapter.raw(location, 'SELECT call_enc FROM approval_calls WHERE approval_id = ?', task.taskId);
    expect(kept).toHaveLength(1);
    expect(kept[0]!.call_enc).not.toMatch(/Quarterly|jordan|outlook_send_email/);

    const unknown = { code: -32602, message: `"taskId": no task "${task.taskId}" for you; a task id comes from the tools/call that created it.` };
    expect((await modernRpc(endpoint, 'tasks/get', { taskId: task.taskId }, { token: bob.token })).body.error).toMatchObject(unknown);
    await modernRpc(endpoint, 'tasks/cancel', { taskId: task.taskId }, { token: bob.token });
    expect((await store.approvals.get(task.taskId))?.status).toBe('pending');

    await decideApproval(store, audit, { person: 'cli', actor: { owner: 'cli', auth: 'cli' } }, task.taskId, { approve: true });
    expect((await modernRpc(endpoint, 'tasks/get', { taskId: task.taskId }, { token: bob.token })).body.error).toMatchObject(unknown);
    expect(sent()).toBe(before);
    expect((await store.approvals.get(task.taskId))?.status).toBe('approved');

    const done = await modernRpc(endpoint, 'tasks/get', { taskId: task.taskId }, { token: ada.token });
    expect(done.body.result, JSON.stringify(done.body)).toMatchObject({ status: 'completed', result: { structuredContent: { status: 'accepted' } } });
    expect(done.body.result.result.isError).toBeFalsy();
    expect(sent()).toBe(before + 1);
    expect((await modernRpc(endpoint, 'tasks/get', { taskId: task.taskId }, { token: bob.token })).body.error).toMatchObject(unknown);
  });
});
