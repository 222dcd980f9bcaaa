import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Provider, Store } from '../../src/store/index.js';
import { newPersonalToken } from '../../src/team/tokens.js';
import { postModern } from '../mcp/sse.js';
import { ADAPTERS, type Adapter } from '../store/adapters.js';
import { startTeamServer } from '../team/team.js';
import { startReceiver } from './receiver.js';
import { sandboxPerFile } from '../support/sandbox-per-file.js';

/**
 * In team mode a subscription is its person's alone: the same name, arguments and URL from two people are two
 * subscriptions on two triggers, one person's unsubscribe leaves the other's, and a read-only token or a person
 * without an account of the provider is refused.
 */

const bed = sandboxPerFile();

async function person(store: Store, login: string, scope: string, providers: Provider[]) {
  const user = await store.team.users.signIn({ provider: 'github', subject: `id-${login}`, login, email: `${login}@contoso.example` });
  const { token, hash } = newPersonalToken();
  await store.team.tokens.create({ owner: user.id, name: 'events', scope, tokenHash: hash, expiresAt: new Date(Date.now() + 3600_000).toISOString() });
  for (const sample of bed.sandbox.accounts.filter((a) => providers.includes(a.provider))) {
    await store.ownedBy(user.id).accounts.add({ ...sample, label: `${login}-${sample.provider}` });
  }
  return { user, token };
}

describe.each(ADAPTERS)('webhook subscriptions per person in team mode on %s', (adapter: Adapter) => {
  it("keeps each person's subscriptions and triggers their own", { timeout: 60_000 }, async () => {
    const server = await startTeamServer({ sandbox: bed.sandbox, location: await adapter.location() });
    bed.closeAfterTest(() => server.close());
    const receiver = await startReceiver((_path, body) => {
      const { challenge } = JSON.parse(body) as { challenge?: string };
      return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ challenge }) };
    });
    bed.closeAfterTest(() => receiver.close());
    const { store } = server.runtime.deps;
    const ada = await person(store, 'ada', 'switchboard', ['outlook']);
    const bob = await person(store, 'bob', 'switchboard', ['outlook']);
    const carol = await person(store, 'carol', 'switchboard:read', ['outlook']);
    const dan = await person(store, 'dan', 'switchboard', []);

    const request = { name: 'outlook.new_email', arguments: { filter: 'subject:team' }, delivery: { mode: 'webhook', url: `${receiver.url}/hook` } };
    const subscribe = (token: string) =>
      postModern(`${server.url}/mcp`, 'events/subscribe', { ...request, delivery: { ...request.delivery, secret: 'whsec_' + randomBytes(32).toString('base64') } }, { authorization: `Bearer ${token}` });
    const forAda = await subscribe(ada.token);
    const forBob = await subscribe(bob.token);
    expect(forAda.body.result?.id, JSON.stringify(forAda.body.error)).toMatch(/^sub_/);
    expect(forBob.body.result.id).not.toBe(forAda.body.result.id);

    const adaSub = (await store.ownedBy(ada.user.id).subscriptions.get(forAda.body.result.id))!;
    const bobSub = (await store.ownedBy(bob.user.id).subscriptions.get(forBob.body.result.id))!;
    expect(adaSub.triggerId).not.toBe(bobSub.triggerId);
    expect(await store.ownedBy(bob.user.id).triggers.get(adaSub.triggerId)).toBeUndefined();
    expect(await store.ownedBy(bob.user.id).subscriptions.get(adaSub.id)).toBeUndefined();

    const gone = await postModern(`${server.url}/mcp`, 'events/unsubscribe', request, { authorization: `Bearer ${bob.token}` });
    expect(gone.body.result.resultType).toBe('complete');
    expect(await store.subscriptions.get(bobSub.id)).toBeUndefined();
    expect(await store.triggers.get(bobSub.triggerId)).toBeUndefined();
    expect(await store.subscriptions.get(adaSub.id)).toBeDefined();
    expect(await store.triggers.get(adaSub.triggerId)).toBeDefined();

    expect((await subscribe(carol.token)).body.error).toMatchObject({ code: -32012, data: { reason: 'read_only' } });
    expect((await subscribe(dan.token)).body.error).toMatchObject({ code: -32012, data: { reason: 'no_account' } });
  });
});
