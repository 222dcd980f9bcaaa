import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { newPersonalToken } from '../../src/team/tokens.js';
import { postModern } from '../mcp/sse.js';
import { ADAPTERS, type Adapter } from '../store/adapters.js';
import { startTeamServer } from '../team/team.js';
import { sandboxPerFile } from '../support/sandbox-per-file.js';

/**
 * In team mode a poll is its person's: the same name and arguments from two people ride on two triggers, and an event of
 * one person's trigger is polled by them alone; a read-only token may not poll, since polling makes a trigger.
 */

const bed = sandboxPerFile();

async function person(store: Store, login: string, scope = 'switchboard') {
  const user = await store.team.users.signIn({ provider: 'github', subject: `id-${login}`, login, email: `${login}@contoso.example` });
  const { token, hash } = newPersonalToken();
  await store.team.tokens.create({ owner: user.id, name: 'poll', scope, tokenHash: hash, expiresAt: new Date(Date.now() + 3600_000).toISOString() });
  for (const sample of bed.sandbox.accounts.filter((a) => a.provider === 'outlook')) await store.ownedBy(user.id).accounts.add({ ...sample, label: `${login}-outlook` });
  return { user, token };
}

describe.each(ADAPTERS)('events/poll per person in team mode on %s', (adapter: Adapter) => {
  it("keeps each person's polls, triggers and events their own", { timeout: 60_000 }, async () => {
    const server = await startTeamServer({ sandbox: bed.sandbox, location: await adapter.location() });
    bed.closeAfterTest(() => server.close());
    const { store } = server.runtime.deps;
    const ada = await person(store, 'ada');
    const bob = await person(store, 'bob');
    const carol = await person(store, 'carol', 'switchboard:read');
    const poll = (who: { token: string }, cursor: string | null) =>
      postModern(`${server.url}/mcp`, 'events/poll', { name: 'outlook.new_email', arguments: { filter: 'subject:team' }, cursor }, { authorization: `Bearer ${who.token}` });

    const adaStart = (await poll(ada, null)).body.result;
    const bobStart = (await poll(bob, null)).body.result;
    expect(adaStart?.cursor, 'ada polled').toBeDefined();
    const [adaRow] = await store.ownedBy(ada.user.id).subscriptions.list();
    const [bobRow] = await store.ownedBy(bob.user.id).subscriptions.list();
    expect(adaRow!.mode).toBe('poll');
    expect(adaRow!.triggerId).not.toBe(bobRow!.triggerId);
    expect(adaRow!.id).not.toBe(bobRow!.id);

    await store.ownedBy(ada.user.id).triggers.commit(adaRow!.triggerId, { events: [{ dedupeKey: 'ada-1', occurredAt: new Date().toISOString(), summary: 'for ada', payload: { subject: 'for ada' } }] });
    expect((await poll(ada, adaStart.cursor)).body.result.events.map((e: { data: { subject: string } }) => e.data.subject)).toEqual(['for ada']);
    expect((await poll(bob, bobStart.cursor)).body.result.events).toEqual([]);
    expect((await poll(carol, null)).body.error).toMatchObject({ code: -32012, data: { reason: 'read_only' } });
  });
});
