import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as z from 'zod/v4';
import { describe, expect, it } from 'vitest';
import type { Provider, Store } from '../../src/store/index.js';
import { newPersonalToken } from '../../src/team/tokens.js';
import { TRIGGER_KINDS } from '../../src/triggers/kinds.js';
import { ADAPTERS, type Adapter } from '../store/adapters.js';
import { post, startTeamServer, type TeamServer } from '../team/team.js';
import { sandboxPerFile } from '../support/sandbox-per-file.js';

/**
 * In team mode each person is offered the event types their accounts and token allow: the kinds of the providers
 * they hold an account of (their own, or one shared with them), and none on a token that may only read.
 */

const bed = sandboxPerFile();

const ListResult = z.looseObject({ events: z.array(z.looseObject({ name: z.string() })) });
const kindsOf = (...providers: Provider[]) => [...TRIGGER_KINDS.values()].filter((k) => providers.includes(k.connector)).map((k) => k.kind);

/** A person signed in to the team server, with a personal access token of `scope` and accounts at `providers`. */
async function person(store: Store, login: string, scope: string, providers: Provider[]) {
  const user = await store.team.users.signIn({ provider: 'github', subject: `id-${login}`, login, email: `${login}@contoso.example` });
  const { token, hash } = newPersonalToken();
  await store.team.tokens.create({ owner: user.id, name: 'events', scope, tokenHash: hash, expiresAt: new Date(Date.now() + 3600_000).toISOString() });
  for (const sample of bed.sandbox.accounts.filter((a) => providers.includes(a.provider))) {
    await store.ownedBy(user.id).accounts.add({ ...sample, label: `${login}-${sample.provider}` });
  }
  return { user, token };
}

/** The names events/list gives a token, as a 2026 and a 2025 client each see them (they must agree). */
async function listedFor(server: TeamServer, token: string): Promise<string[]> {
  const requestInit = { headers: { authorization: `Bearer ${token}` } };
  const modern = new ModernClient({ name: 'events-2026', version: '1' });
  await modern.connect(new ModernHttp(new URL(`${server.url}/mcp`), { requestInit }));
  bed.closeAfterTest(() => modern.close());
  const legacy = new LegacyClient({ name: 'events-2025', version: '1' });
  await legacy.connect(new LegacyHttp(new URL(`${server.url}/mcp`), { requestInit }));
  bed.closeAfterTest(() => legacy.close());
  const names = (await modern.request({ method: 'events/list', params: {} }, ListResult)).events.map((e) => e.name);
  expect((await legacy.request({ method: 'events/list', params: {} }, ListResult)).events.map((e) => e.name)).toEqual(names);
  return names;
}

describe.each(ADAPTERS)('events/list per person in team mode on %s', (adapter: Adapter) => {
  it("offers each person the kinds of the providers they hold an account of, shared ones too, and nothing on a read-only token", async () => {
    const server = await startTeamServer({ sandbox: bed.sandbox, location: await adapter.location() });
    bed.closeAfterTest(() => server.close());
    const { store } = server.runtime.deps;
    const ada = await person(store, 'ada', 'switchboard', ['github']);
    const bob = await person(store, 'bob', 'switchboard', ['outlook']);
    const carol = await person(store, 'carol', 'switchboard:read', ['vercel', 'github']);
    const dan = await person(store, 'dan', 'switchboard', []);

    expect(await listedFor(server, ada.token)).toEqual(kindsOf('github'));
    expect(await listedFor(server, bob.token)).toEqual(kindsOf('outlook'));
    expect(await listedFor(server, carol.token)).toEqual([]);
    expect(await listedFor(server, dan.token)).toEqual([]);

    // Ada shares her GitHub account with Bob: he may now watch it, and is offered its kinds.
    await store.ownedBy(ada.user.id).accounts.share('ada-github', bob.user.id);
    expect(await listedFor(server, bob.token)).toEqual(kindsOf('outlook', 'github'));
    expect(await listedFor(server, ada.token)).toEqual(kindsOf('github'));

    // Without a token nothing is listed: the request is refused before any handler runs.
    const anonymous = await post(server.url, { jsonrpc: '2.0', id: 1, method: 'events/list', params: {} });
    expect(anonymous.status).toBe(401);
  });
});
