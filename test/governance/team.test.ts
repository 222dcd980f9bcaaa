import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as z from 'zod/v4';
import { describe, expect, it } from 'vitest';
import { budgetGate } from '../../src/governance/budgets.js';
import type { Store } from '../../src/store/index.js';
import { newPersonalToken } from '../../src/team/tokens.js';
import { TRIGGER_KINDS } from '../../src/triggers/kinds.js';
import { ADAPTERS, type Adapter } from '../store/adapters.js';
import { pageSession, startTeamServer, type TeamServer } from '../team/team.js';
import { sandboxPerFile } from '../support/sandbox-per-file.js';

/**
 * A team server whose policy (SWITCHBOARD_POLICY) gives everyone two GitHub requests an hour and makes Bob an intern
 * with read tools only: Bob's agent is stopped on the account Ada shares with him while Ada's goes on, and Bob's
 * tools/list, tools/call and events/list, over both protocol revisions, show only what the rules let through.
 */

const POLICY = {
  roles: { intern: ['bob'] },
  budgets: [{ for: ['*'], accounts: ['github'], providerRequestsPerHour: 2 }],
  tools: [{ for: ['role:intern'], effect: ['read'], deny: ['*_api_call', 'vercel.*'] }],
};

const bed = sandboxPerFile();

type Result = { isError?: boolean; content?: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> };
const text = (r: Result) => (r.content ?? []).map((c) => c.text ?? '').join('\n');
const ListResult = z.looseObject({ events: z.array(z.looseObject({ name: z.string() })) });

async function person(server: TeamServer, store: Store, login: string) {
  const user = await store.team.users.signIn({ provider: 'github', subject: `id-${login}`, login, email: `${login}@contoso.example` });
  const { token, hash } = newPersonalToken();
  await store.team.tokens.create({ owner: user.id, name: 'budget', scope: 'switchboard', tokenHash: hash, expiresAt: new Date(Date.now() + 3600_000).toISOString() });
  const requestInit = { headers: { authorization: `Bearer ${token}` } };
  const modern = new ModernClient({ name: `${login}-2026`, version: '1' });
  await modern.connect(new ModernHttp(new URL(`${server.url}/mcp`), { requestInit }));
  const legacy = new LegacyClient({ name: `${login}-2025`, version: '1' });
  await legacy.connect(new LegacyHttp(new URL(`${server.url}/mcp`), { requestInit }));
  bed.closeAfterTest(() => modern.close(), () => legacy.close());
  const call = async (name: string, args: Record<string, unknown>) => (await legacy.callTool({ name, arguments: args })) as Result;
  const names = async () => {
    const listed = (await modern.listTools()).tools.map((t) => t.name);
    expect((await legacy.listTools()).tools.map((t) => t.name)).toEqual(listed);
    return listed;
  };
  const eventTypes = async () => {
    const listed = (await modern.request({ method: 'events/list', params: {} }, ListResult)).events.map((e) => e.name);
    expect((await legacy.request({ method: 'events/list', params: {} }, ListResult)).events.map((e) => e.name)).toEqual(listed);
    return listed;
  };
  return { user, modern, legacy, call, names, eventTypes };
}

describe.each(ADAPTERS)('budgets and tools per person in team mode on %s', (adapter: Adapter) => {
  it("stops one person's agent at their budget on a shared account without touching another's, and narrows an intern's tools", async () => {
    const location = await adapter.location();
    const policyFile = join(location.dataDir, 'policy.json');
    writeFileSync(policyFile, JSON.stringify(POLICY));
    const server = await startTeamServer({ sandbox: bed.sandbox, location, env: { SWITCHBOARD_POLICY: policyFile } });
    bed.closeAfterTest(() => server.close());
    const { deps } = server.runtime;
    // The hour does not turn during the test: the window is cut on a clock that stands still.
    const now = Date.parse('2030-03-04T10:15:00Z');
    deps.budgets = budgetGate(() => deps.store.budgets, () => now);
    const { store } = deps;
    const ada = await person(server, store, 'ada');
    const bob = await person(server, store, 'bob');
    const github = bed.sandbox.accounts.find((a) => a.provider === 'github')!;
    await store.ownedBy(ada.user.id).accounts.add({ ...github, label: 'team-github' });
    await store.ownedBy(ada.user.id).accounts.share('team-github', bob.user.id);
    const read = { owner: 'sbx-octocat', repo: 'hello-world', account: 'team-github' };
    const requests = () => bed.sandbox.servers.github.requests.length;

    for (let i = 0; i < 2; i++) expect(text(await bob.call('github_get_repository', read))).not.toMatch(/Budget/);
    const before = requests();
    const stopped = await bob.call('github_get_repository', read);
    expect(stopped.isError).toBe(true);
    expect(text(stopped)).toMatch(/^Budget reached: providerRequestsPerHour is 2 for you on the github account "team-github" \(policy budgets\.0\), and 2 are used in this window\. It resets at 2030-03-04T11:00:00\.000Z/);
    expect(requests(), 'nothing sent once at the limit').toBe(before);
    // Ada's agent, on the same account, has a budget of its own.
    const ok = await ada.call('github_get_repository', read);
    expect(ok.isError, text(ok)).toBeFalsy();
    expect(requests()).toBe(before + 1);
    const rows = await store.budgets.list({ since: '2030-03-04T00:00:00.000Z' });
    expect(rows.map((r) => [r.owner, r.used]).sort()).toEqual([[ada.user.id, 1], [bob.user.id, 2]].sort());

    // On the page each member sees their own usage only.
    const bobPage = (await pageSession(server, store, bob.user)).page;
    const section = /<section class="panel" id="budgets"[\s\S]*?<\/section>/.exec(bobPage)?.[0] ?? '';
    expect(section).toContain('Your use');
    expect(section).not.toContain('<th scope="col">Person</th>');
    expect([...section.matchAll(/<tr><td>github &quot;team-github&quot;<\/td><td>providerRequestsPerHour<\/td><td>(\d+)<\/td><td>2<\/td>/g)].map((m) => m[1])).toEqual(['2']);

    // Bob is an intern: tools that read, and no API call; Ada has every tool.
    const adaTools = await ada.names();
    const bobTools = await bob.names();
    expect(adaTools).toContain('github_create_issue');
    expect(adaTools).toContain('github_api_call');
    expect(bobTools).toContain('github_get_repository');
    expect(bobTools).not.toContain('github_create_issue');
    expect(bobTools).not.toContain('github_api_call');
    expect(bobTools.length).toBeGreaterThan(20);
    const beforeRefusal = requests();
    const refused = await bob.call('github_create_issue', { owner: 'sbx-octocat', repo: 'hello-world', title: 'x', account: 'team-github' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe(
      'You may not use github_create_issue: policy tools.0 (for role:intern) allows only tools that read. tools/list shows the tools you may use; an admin can change the policy.',
    );
    expect(text(await bob.call('outlook_api_call', { method: 'GET', endpoint: '/me' }))).toMatch(/^You may not use outlook_api_call: policy tools\.0 \(for role:intern\) denies "\*_api_call"/);
    expect(requests()).toBe(beforeRefusal);

    // Event types follow the rules too: Vercel's are denied to Bob by name.
    const vercelKinds = [...TRIGGER_KINDS.values()].filter((k) => k.connector === 'vercel').map((k) => k.kind);
    await store.ownedBy(bob.user.id).accounts.add({ ...bed.sandbox.accounts.find((a) => a.provider === 'vercel')!, label: 'bob-vercel' });
    await store.ownedBy(ada.user.id).accounts.add({ ...bed.sandbox.accounts.find((a) => a.provider === 'vercel')!, label: 'ada-vercel' });
    const bobTypes = await bob.eventTypes();
    expect(bobTypes).toContain('github.new_issue');
    expect(bobTypes.filter((t) => vercelKinds.includes(t))).toEqual([]);
    expect(await ada.eventTypes()).toEqual(expect.arrayContaining(vercelKinds));
    await expect(bob.modern.request({ method: 'events/subscribe', params: { name: vercelKinds[0], arguments: {} } }, z.looseObject({}))).rejects.toThrow(
      `"name": no event type "${vercelKinds[0]}" for you; events/list shows the types you may use.`,
    );
  });
});
