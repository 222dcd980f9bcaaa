import { describe, expect, it } from 'vitest';
import { removeAccount } from '../../src/accounts/commands.js';
import { loadConfig } from '../../src/config.js';
import type { Store } from '../../src/store/index.js';
import { storeAdapter } from '../../src/team/adapter.js';
import { setUserDisabled } from '../../src/team/commands.js';
import { revokeToken } from '../../src/team/token-commands.js';
import { newPersonalToken } from '../../src/team/tokens.js';
import { postModern } from '../mcp/sse.js';
import { ADAPTERS, type Adapter } from '../store/adapters.js';
import { until } from '../support/wait.js';
import { startTeamServer } from '../team/team.js';
import { startReceiver, type Received } from './receiver.js';
import { newSecret, signedBy, startSubscriber } from './subscriber.js';
import { sandboxPerFile } from '../support/sandbox-per-file.js';

/**
 * Revocation ends subscriptions at once: disabling a person, revoking their token, or disconnecting the account a
 * subscription reads removes it and the trigger made for it, and its callback receives one signed `terminated`
 * (Forbidden, with the reason), then nothing more.
 */

const NAME = 'outlook.new_email';
const body = (r: Received) => JSON.parse(r.body) as Record<string, any>;
const terminated = (received: Received[]) => received.filter((r) => body(r).type === 'terminated');
const events = (received: Received[]) => received.filter((r) => body(r).eventId !== undefined);

const bed = sandboxPerFile();

async function receiver() {
  const r = await startReceiver((_path, raw) => {
    const { challenge } = JSON.parse(raw) as { challenge?: string };
    return challenge ? { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ challenge }) } : { status: 204 };
  });
  bed.closeAfterTest(() => r.close());
  return r;
}

async function person(store: Store, login: string) {
  const user = await store.team.users.signIn({ provider: 'github', subject: `id-${login}`, login, email: `${login}@contoso.example` });
  const { token, hash } = newPersonalToken();
  const record = await store.team.tokens.create({ owner: user.id, name: 'events', scope: 'switchboard', tokenHash: hash, expiresAt: new Date(Date.now() + 3600_000).toISOString() });
  for (const sample of bed.sandbox.accounts.filter((a) => a.provider === 'outlook')) await store.ownedBy(user.id).accounts.add({ ...sample, label: `${login}-outlook` });
  return { user, token, tokenId: record.id };
}

describe.each(ADAPTERS)('in team mode on %s', (adapter: Adapter) => {
  it("disabling a person, or revoking their token, ends their subscriptions with a signed terminated", { timeout: 60_000 }, async () => {
    const server = await startTeamServer({ sandbox: bed.sandbox, location: await adapter.location() });
    bed.closeAfterTest(() => server.close());
    const hooks = await receiver();
    const { store } = server.runtime.deps;
    const ada = await person(store, 'ada');
    const bob = await person(store, 'bob');
    const subscribe = async (who: { token: string }, path: string) => {
      const secret = newSecret();
      const request = { name: NAME, arguments: { filter: `subject:${path}` }, delivery: { mode: 'webhook', url: `${hooks.url}/${path}`, secret } };
      const { body: answer } = await postModern(`${server.url}/mcp`, 'events/subscribe', request, { authorization: `Bearer ${who.token}` });
      expect(answer.result?.id, JSON.stringify(answer.error)).toMatch(/^sub_/);
      return { id: answer.result.id as string, secret, path };
    };
    const at = (path: string) => hooks.received.filter((r) => r.path.startsWith(`/${path}`));

    const adaSub = await subscribe(ada, 'ada');
    const { triggerId } = (await store.subscriptions.get(adaSub.id))!;
    await store.ownedBy(ada.user.id).triggers.commit(triggerId, { events: [{ dedupeKey: 'before', occurredAt: new Date().toISOString(), summary: 'before', payload: { subject: 'before' } }] });
    await until(() => events(at('ada')).length === 1, 'the event before');

    await setUserDisabled(server.config, 'ada', true);
    const [end] = terminated(at('ada'));
    expect(end, 'sent before the command returned').toBeDefined();
    expect(end!.headers['webhook-id']).toMatch(/^msg_terminated_/);
    expect(end!.headers['x-mcp-subscription-id']).toBe(adaSub.id);
    expect(signedBy(end!, adaSub.secret)).toBe(true);
    expect(body(end!).error).toMatchObject({ code: -32012, data: { reason: 'person_disabled' } });
    expect(await store.subscriptions.get(adaSub.id)).toBeUndefined();
    expect(await store.triggers.get(triggerId)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 300));
    expect(events(at('ada'))).toHaveLength(1);

    const bobSub = await subscribe(bob, 'bob');
    await revokeToken(server.config, bob.tokenId);
    await until(() => terminated(at('bob')).length === 1, 'the terminated envelope');
    expect(body(terminated(at('bob'))[0]!).error).toMatchObject({ code: -32012, data: { reason: 'token_revoked' } });
    expect(await store.subscriptions.get(bobSub.id)).toBeUndefined();
  });
});

describe("revoking a client's grant", () => {
  it("tells the person whose grant the authorization server revoked, after the grant's records are gone", async () => {
    const s = await startSubscriber();
    bed.closeAfterTest(() => s.close());
    const records = s.h.store.team.records;
    const told: Array<{ owner: string; grantLeft: boolean }> = [];
    const Adapter = storeAdapter(records, async (owner) => void told.push({ owner, grantLeft: (await records.get('Grant', 'grant-1')) !== undefined }));
    await new Adapter('Grant').upsert('grant-1', { accountId: 'usr_ada', grantId: 'grant-1' }, 3600);
    await new Adapter('AccessToken').upsert('at-1', { accountId: 'usr_ada', grantId: 'grant-1' }, 3600);
    await new Adapter('AccessToken').revokeByGrantId('grant-1');
    expect(told).toEqual([{ owner: 'usr_ada', grantLeft: false }]);
    expect(await records.get('AccessToken', 'at-1')).toBeUndefined();
  });
});

describe('disconnecting an account', () => {
  it('ends the subscriptions on its triggers with a signed terminated, and removes the triggers made for them', { timeout: 30_000 }, async () => {
    const s = await startSubscriber();
    bed.closeAfterTest(() => s.close());
    const secret = newSecret();
    const url = s.hook('/gone');
    const { body: answer } = await s.call('events/subscribe', { name: NAME, arguments: { filter: 'subject:gone' }, delivery: { mode: 'webhook', url, secret } });
    const id = answer.result.id as string;
    const { triggerId } = (await s.h.store.subscriptions.get(id))!;
    const config = loadConfig({ SWITCHBOARD_DATA_DIR: s.h.dataDir, SWITCHBOARD_SECRET_KEY: 'test-secret-key' }, {});
    await removeAccount(config, 'sample', 'outlook');
    const [end] = s.receiver.received.filter((r) => r.path === '/gone' && body(r).type === 'terminated');
    expect(end).toBeDefined();
    expect(signedBy(end!, secret)).toBe(true);
    expect(body(end!).error).toMatchObject({ code: -32012, data: { reason: 'account_removed' } });
    expect(await s.h.store.subscriptions.get(id)).toBeUndefined();
    expect(await s.h.store.triggers.get(triggerId)).toBeUndefined();
  });
});
