import { sign } from '@octokit/webhooks-methods';
import * as z from 'zod/v4';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { SANDBOX_TOKENS } from '../../src/sandbox/index.js';
import { emitWebhook, hookSide, settleWebhooks } from '../../src/sandbox/github/hooks.js';
import { addNotification } from '../../src/sandbox/github/polled.js';
import { CONNECTORS } from '../../src/connectors/index.js';
import { TRIGGER_KINDS } from '../../src/triggers/kinds.js';
import { Runner } from '../../src/triggers/runner.js';
import { startHarness, type Harness } from '../harness.js';

let h: Harness;
let publicUrl: string;
let runner: Runner;
const REPO = 'sbx-octocat/hello-world';
const TARGET = { owner: 'sbx-octocat', repo: 'hello-world' };

const EventNotification = z.object({
  method: z.literal('notifications/switchboard/event'),
  params: z.object({ eventId: z.string(), triggerId: z.string(), kind: z.string(), occurredAt: z.string(), summary: z.string() }),
});
const notified: Array<z.infer<typeof EventNotification>['params']> = [];

beforeAll(async () => {
  h = await startHarness({ listen: true });
  // These tests send each delivery by hand.
  h.sandbox.states.github.webhooksOnChange = false;
  publicUrl = h.listenerUrl!;
  const logger = createLogger({ level: 'error' });
  runner = new Runner({ store: h.store, kinds: TRIGGER_KINDS, log: h.deps.triggers!.log, deps: h.deps, logger, tickMs: 20 });
  await runner.start();
  h.client.setNotificationHandler(EventNotification, (n) => void notified.push(n.params));
});
afterAll(async () => {
  await runner.stop();
  await h.close();
});
beforeEach(() => {
  h.deps.triggers!.publicUrl = publicUrl;
  h.sandbox.servers.github.reset();
});
// A failed test leaves nothing behind for the next one.
afterEach(async () => {
  h.deps.triggers!.publicUrl = publicUrl;
  for (const t of await h.store.triggers.list()) if (t.kind.startsWith('github.')) await h.call('triggers_delete', { id: t.id });
  hooks().length = 0;
});

const state = () => h.sandbox.states.github;
const hooks = () => hookSide(state()).hooks;
const requests = (method: string, path: RegExp) => h.sandbox.servers.github.requests.filter((r) => r.method === method && path.test(r.path));

/** Calls the GitHub sandbox as the sample account would. */
async function gh(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(h.sandbox.baseUrls.github + path, {
    method,
    headers: { authorization: `Bearer ${SANDBOX_TOKENS.github}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.status === 204 ? null : res.json();
}

async function create(kind: string, config: Record<string, unknown>): Promise<{ id: string; next: string }> {
  const created = await h.ok('triggers_create', { kind, account: 'sample', config });
  return { id: created.trigger.id, next: created.next };
}
const remove = (id: string) => h.ok('triggers_delete', { id });
const events = async (triggerId: string) => h.store.events.after(0, { triggerIds: [triggerId], limit: 100 });

/** An `issues` delivery as GitHub would send it, for an issue created through the sandbox API. */
async function openIssue(title: string, labels: string[] = []) {
  const issue = await gh('POST', `/repos/${REPO}/issues`, { title, body: 'Steps to reproduce…', labels });
  return { action: 'opened', issue, repository: await gh('GET', `/repos/${REPO}`), sender: await gh('GET', '/user') };
}

async function post(hookId: string, event: string, body: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${publicUrl}/webhooks/github/${hookId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': event, 'user-agent': 'GitHub-Hookshot/test', ...headers },
    body,
  });
}

async function poll(triggerId: string): Promise<void> {
  const before = (await h.store.triggers.get(triggerId))!;
  runner.pollSoon(triggerId);
  const end = Date.now() + 5_000;
  for (;;) {
    const now = (await h.store.triggers.get(triggerId))!;
    if (now.state.lastPollAt !== before.state.lastPollAt || now.errors !== before.errors) return;
    if (Date.now() > end) throw new Error('poll did not happen');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('GitHub webhook triggers, end to end through the sandbox', () => {
  it('creates one webhook for a repository, with only the events needed, JSON, a secret and this server\'s URL; GitHub\'s ping is acknowledged', async () => {
    const { id, next } = await create('github.new_issue', { repo: REPO });
    expect(hooks()).toHaveLength(1);
    const [hook] = hooks();
    const stored = (await h.store.triggers.get(id))!;
    const hookId = stored.providerRefs.hookId as string;
    expect(hookId).toMatch(/^hk_[0-9a-f]+$/);
    expect(hook!.events).toEqual(['issues']);
    expect(hook!.active).toBe(true);
    expect(hook!.config).toMatchObject({ content_type: 'json', insecure_ssl: '0', url: `${publicUrl}/webhooks/github/${hookId}` });
    expect(hook!.config.secret).toBe(await h.store.hooks.secret(hookId));
    expect(hook!.config.secret!.length).toBeGreaterThanOrEqual(32);
    const [sent] = requests('POST', /^\/repos\/sbx-octocat\/hello-world\/hooks$/);
    expect(sent!.body).toMatchObject({ name: 'web', active: true, events: ['issues'], config: { content_type: 'json', insecure_ssl: '0' } });
    expect((await h.store.hooks.get(hookId))!.remoteId).toBe(String(hook!.id));
    expect(next).toMatch(/Created a GitHub webhook on sbx-octocat\/hello-world \(events: issues\)/);
    expect(next).not.toContain(hook!.config.secret!);

    await settleWebhooks(state());
    expect(hook!.deliveries.map((d) => [d.event, d.status_code])).toEqual([['ping', 200]]);
    await remove(id);
  });

  it('shares the hook between triggers on one repository, widening its events only when needed, and fires only the matching triggers', async () => {
    const issues = await create('github.new_issue', { repo: REPO });
    const bugs = await create('github.new_issue', { repo: REPO, labels: ['bug'] });
    expect(requests('PATCH', /\/hooks\/\d+$/)).toHaveLength(0);
    const reviews = await create('github.new_pull_request_review', { repo: REPO });
    expect(reviews.next).toMatch(/Updated the GitHub webhook .*events: issues, pull_request_review/);
    const patches = requests('PATCH', /^\/repos\/sbx-octocat\/hello-world\/hooks\/\d+$/);
    expect(patches).toHaveLength(1);
    expect(hooks()).toHaveLength(1);
    expect(hooks()[0]!.events).toEqual(['issues', 'pull_request_review']);
    const hookIds = await Promise.all([issues, bugs, reviews].map(async (t) => (await h.store.triggers.get(t.id))!.providerRefs.hookId));
    expect(new Set(hookIds).size).toBe(1);

    const before = notified.length;
    const [delivery] = await emitWebhook(state(), TARGET, 'issues', await openIssue('Login fails on Safari'));
    expect(delivery!.status_code).toBe(200);
    const fired = await events(issues.id);
    expect(fired).toHaveLength(1);
    expect(fired[0]!.dedupeKey).toContain(delivery!.guid);
    expect(fired[0]!.summary).toMatch(/^sbx-octocat\/hello-world#\d+ opened by sbx-octocat: Login fails on Safari$/);
    expect(fired[0]!.payload).toMatchObject({ delivery_id: delivery!.guid, repository: REPO, sender: 'sbx-octocat', issue: { title: 'Login fails on Safari', state: 'open' } });
    expect(await events(bugs.id)).toEqual([]);
    expect(await events(reviews.id)).toEqual([]);

    await emitWebhook(state(), TARGET, 'issues', await openIssue('Crash on save', ['bug']));
    expect(await events(bugs.id)).toHaveLength(1);
    expect(await events(issues.id)).toHaveLength(2);

    await h.deps.triggers!.log.poke();
    const issueNotices = () => notified.slice(before).filter((n) => n.triggerId === issues.id);
    for (const end = Date.now() + 10_000; issueNotices().length < 2 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10));
    expect(issueNotices().map((n) => n.summary)).toEqual([
      expect.stringContaining('Login fails on Safari'),
      expect.stringContaining('Crash on save'),
    ]);
    expect(notified.slice(before).every((n) => n.kind === 'github.new_issue')).toBe(true);

    for (const t of [issues, bugs, reviews]) await remove(t.id);
  });

  it('refuses a bad signature with 401 and stores nothing; takes a delivery signed with the hook secret (checked with @octokit/webhooks-methods); a redelivery is not a second event', async () => {
    const t = await create('github.new_issue', { repo: REPO });
    const hookId = (await h.store.triggers.get(t.id))!.providerRefs.hookId as string;
    const secret = await h.store.hooks.secret(hookId);
    const body = JSON.stringify(await openIssue('Signed by hand'));

    const forged = await post(hookId, 'issues', body, { 'x-github-delivery': 'forged-1', 'x-hub-signature-256': await sign('not-the-secret', body) });
    expect(forged.status).toBe(401);
    const tampered = await post(hookId, 'issues', body.replace('Signed by hand', 'Signed by someone'), { 'x-github-delivery': 'forged-2', 'x-hub-signature-256': await sign(secret, body) });
    expect(tampered.status).toBe(401);
    const unsigned = await post(hookId, 'issues', body, { 'x-github-delivery': 'forged-3' });
    expect(unsigned.status).toBe(401);
    expect(await events(t.id)).toEqual([]);

    const good = await post(hookId, 'issues', body, { 'x-github-delivery': 'manual-1', 'x-hub-signature-256': await sign(secret, body) });
    expect(good.status).toBe(200);
    expect(await good.json()).toEqual({ accepted: 1 });
    const again = await post(hookId, 'issues', body, { 'x-github-delivery': 'manual-1', 'x-hub-signature-256': await sign(secret, body) });
    expect(await again.json()).toEqual({ accepted: 0 });
    expect(await events(t.id)).toHaveLength(1);

    // GitHub's own redelivery keeps the X-GitHub-Delivery GUID.
    const [first] = await emitWebhook(state(), TARGET, 'issues', await openIssue('Delivered twice'));
    const hook = hooks()[0]!;
    await gh('POST', `/repos/${REPO}/hooks/${hook.id}/deliveries/${first!.id}/attempts`);
    await settleWebhooks(state());
    expect(hook.deliveries.filter((d) => d.guid === first!.guid).map((d) => [d.redelivery, d.status_code])).toEqual([
      [true, 200],
      [false, 200],
    ]);
    expect((await events(t.id)).map((e) => e.payload.issue)).toEqual([expect.objectContaining({ title: 'Signed by hand' }), expect.objectContaining({ title: 'Delivered twice' })]);

    const ping = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: hook.id });
    expect((await post(hookId, 'ping', ping, { 'x-github-delivery': 'ping-1', 'x-hub-signature-256': await sign(secret, ping) })).status).toBe(200);
    expect((await post(hookId, 'ping', ping, { 'x-github-delivery': 'ping-2', 'x-hub-signature-256': await sign('wrong', ping) })).status).toBe(401);
    await remove(t.id);
  });

  it('narrows the hook when a trigger goes, and deletes it at GitHub and in the store with the last one', async () => {
    const a = await create('github.new_issue', { repo: REPO });
    const b = await create('github.new_release', { repo: REPO });
    const hookId = (await h.store.triggers.get(a.id))!.providerRefs.hookId as string;
    const remoteId = hooks()[0]!.id;
    expect(hooks()[0]!.events).toEqual(['issues', 'release']);

    await remove(b.id);
    expect(hooks()).toHaveLength(1);
    expect(hooks()[0]!.events).toEqual(['issues']);
    expect((await h.store.hooks.get(hookId))!.events).toEqual(['issues']);
    expect(requests('DELETE', /\/hooks\//)).toHaveLength(0);

    await remove(a.id);
    expect(requests('DELETE', /\/hooks\//).map((r) => r.path)).toEqual([`/repos/${REPO}/hooks/${remoteId}`]);
    expect(hooks()).toEqual([]);
    expect(await h.store.hooks.get(hookId)).toBeUndefined();
  });

  it('a trigger joining a hook holds it until stored: the last other trigger leaving meanwhile does not delete it', async () => {
    const a = await create('github.new_issue', { repo: REPO });
    const hookId = (await h.store.triggers.get(a.id))!.providerRefs.hookId as string;
    // The second trigger is set up but not stored yet, as triggers_create is between the two steps.
    const { account, secret } = await h.store.accounts.resolve('github', 'sample');
    const api = CONNECTORS.github.api(account, secret, h.deps);
    const config = { repo: REPO };
    const setup = await TRIGGER_KINDS.get('github.new_fork')!.provider!.setup({ triggerId: 'trg_joining', account, api, store: h.store, config, publicUrl });
    expect(setup.providerRefs).toMatchObject({ hookId });

    let removed = false;
    const leaving = remove(a.id).then(() => (removed = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(removed).toBe(false);
    await h.store.triggers.create({ id: 'trg_joining', kind: 'github.new_fork', accountId: account.id, config, forwardUrl: null, providerRefs: setup.providerRefs, state: {} });
    await setup.settle!();
    await leaving;

    expect(await h.store.hooks.get(hookId)).toMatchObject({ events: ['fork'] });
    expect(hooks()).toHaveLength(1);
    expect(hooks()[0]!.events).toEqual(['fork']);
    await remove('trg_joining');
    expect(hooks()).toEqual([]);
  });

  it('recreates a hook that was removed at GitHub, and still deletes cleanly when GitHub already has none', async () => {
    const a = await create('github.new_star', { repo: REPO });
    hooks().length = 0;
    const b = await create('github.new_fork', { repo: REPO });
    expect(b.next).toMatch(/Created a GitHub webhook/);
    expect(hooks()).toHaveLength(1);
    expect(hooks()[0]!.events).toEqual(['fork', 'star']);
    await remove(a.id);
    hooks().length = 0;
    const deleted = await remove(b.id);
    expect(deleted.note).toBeUndefined();
    expect(await h.store.hooks.find('github', (await h.store.accounts.find('sample', 'github'))!.id, `repo:${REPO}`)).toBeUndefined();
  });

  it('a mistyped kind is refused with the nearest kind, and nothing is asked of GitHub', async () => {
    const before = (await h.store.triggers.list()).length;
    const text = await h.fails('triggers_create', { kind: 'github.new_isue', account: 'sample', config: { repo: REPO } });
    expect(text).toMatch(/^Invalid arguments:\n- kind: .*Did you mean "github\.new_issue"\?$/m);
    expect(await h.fails('triggers_create', { kind: 'nothing-alike-at-all', account: 'sample', config: { repo: REPO } })).not.toMatch(/Did you mean/);
    expect((await h.store.triggers.list()).length).toBe(before);
  });

  it('without a public URL refuses a webhook kind with how to get one, and stores nothing; mode "poll" works instead', async () => {
    h.deps.triggers!.publicUrl = undefined;
    const before = (await h.store.triggers.list()).length;
    const text = await h.fails('triggers_create', { kind: 'github.new_issue', account: 'sample', config: { repo: REPO } });
    expect(text).toMatch(/no public URL/);
    expect(text).toMatch(/--public-url/);
    expect(text).toMatch(/SWITCHBOARD_PUBLIC_URL/);
    expect(text).toMatch(/tunnel/);
    expect(text).toMatch(/"mode":"poll"/);
    const star = await h.fails('triggers_create', { kind: 'github.new_star', account: 'sample', config: { repo: REPO } });
    expect(star).toMatch(/no polled variant/);
    expect((await h.store.triggers.list()).length).toBe(before);
    expect(requests('POST', /\/hooks$/)).toEqual([]);
    expect(hooks()).toEqual([]);

    const polled = await create('github.new_issue', { repo: REPO, mode: 'poll' });
    expect(polled.next).toMatch(/Polling new issues of sbx-octocat\/hello-world/);
    await openIssue('Seen by polling');
    await poll(polled.id);
    expect((await events(polled.id)).map((e) => [e.summary, e.payload.polled])).toEqual([[expect.stringMatching(/#\d+ opened by sbx-octocat: Seen by polling$/), true]]);
    await remove(polled.id);
  });

  it('an org kind creates an organization hook, and explains a missing admin:org_hook scope without storing anything', async () => {
    const before = (await h.store.triggers.list()).length;
    const text = await h.fails('triggers_create', { kind: 'github.project_item_status_changed', account: 'sample', config: { org: 'sbx-org' } });
    expect(text).toMatch(/organization sbx-org.*admin:org_hook/s);
    expect((await h.store.triggers.list()).length).toBe(before);
    const account = (await h.store.accounts.find('sample', 'github'))!;
    expect(await h.store.hooks.find('github', account.id, 'org:sbx-org')).toBeUndefined();

    state().scopes.push('admin:org_hook');
    h.sandbox.servers.github.reset();
    try {
      const t = await create('github.project_item_status_changed', { org: 'sbx-org', to: ['Done'] });
      expect(requests('POST', /^\/orgs\/sbx-org\/hooks$/)).toHaveLength(1);
      expect(hooks()[0]!.events).toEqual(['projects_v2_item']);
      const payload = {
        action: 'edited',
        projects_v2_item: { id: 1, node_id: 'PVTI_1', content_type: 'Issue', content_node_id: 'I_1', project_node_id: 'PVT_1', updated_at: '2025-03-05T10:00:00Z' },
        changes: { field_value: { field_node_id: 'PVTSSF_1', field_type: 'single_select', field_name: 'Status', from: { name: 'Todo' }, to: { name: 'Done' } } },
        organization: { login: 'sbx-org' },
        sender: { login: 'sbx-monalisa' },
      };
      await emitWebhook(state(), { org: 'sbx-org' }, 'projects_v2_item', payload);
      await emitWebhook(state(), { org: 'sbx-org' }, 'projects_v2_item', { ...payload, changes: { field_value: { ...payload.changes.field_value, to: { name: 'Todo' } } } });
      const fired = await events(t.id);
      expect(fired.map((e) => e.summary)).toEqual(['Project item Issue PVTI_1 Status changed from Todo to Done by sbx-monalisa']);
      expect(fired[0]!.occurredAt).toBe('2025-03-05T10:00:00.000Z');
      await remove(t.id);
      expect(hooks()).toEqual([]);
    } finally {
      state().scopes.splice(state().scopes.indexOf('admin:org_hook'), 1);
    }
  });
});

describe('polled GitHub kinds', () => {
  it('new_gist: a baseline, then one event for a new gist; the next poll is a 304 to If-None-Match', async () => {
    const t = await create('github.new_gist', {});
    expect(t.next).toMatch(/Polling your gists every 60 s/);
    await poll(t.id);
    expect(await events(t.id)).toEqual([]);

    const gist = await gh('POST', '/gists', { description: 'Deploy notes', public: true, files: { 'deploy.md': { content: '# Deploy\n' } } });
    await poll(t.id);
    const fired = await events(t.id);
    expect(fired).toHaveLength(1);
    expect(fired[0]!.summary).toBe('New public gist by sbx-octocat: Deploy notes');
    expect(fired[0]!.payload).toMatchObject({ id: gist.id, html_url: gist.html_url, files: ['deploy.md'], public: true });

    h.sandbox.servers.github.reset();
    const used = state().rateLimits.core.used;
    await poll(t.id);
    // A 304 does not count against the rate limit.
    expect(state().rateLimits.core.used).toBe(used);
    const [again] = requests('GET', /^\/gists$/);
    expect(again!.headers['if-none-match']).toMatch(/^W\/"/);
    expect(again!.query.get('since')).toBeTruthy();
    expect(await events(t.id)).toHaveLength(1);
    const polled = (await h.store.triggers.get(t.id))!;
    expect(polled.errors).toBe(0);
    await remove(t.id);
  });

  it('new_watcher: fires for a new subscriber only', async () => {
    const t = await create('github.new_watcher', { repo: REPO, poll_interval_seconds: 30 });
    await poll(t.id);
    expect(await events(t.id)).toEqual([]);
    state().repos.find((r) => r.name === 'hello-world')!.subscribers.push('sbx-monalisa');
    await poll(t.id);
    await poll(t.id);
    expect((await events(t.id)).map((e) => e.summary)).toEqual(['sbx-octocat/hello-world is now watched by sbx-monalisa']);
    await remove(t.id);
  });

  it('new_mention: mentions from the notifications, not other reasons; refuses another user', async () => {
    expect(await h.fails('triggers_create', { kind: 'github.new_mention', account: 'sample', config: { username: 'sbx-hubot' } })).toMatch(/own user \(sbx-octocat\)/);
    hookSide(state()).pollIntervalSeconds = 0;
    const t = await create('github.new_mention', {});
    addNotification(state(), { repo: REPO, title: 'Please review the greeting', reason: 'mention', number: 2, type: 'PullRequest' });
    addNotification(state(), { repo: REPO, title: 'Just subscribed', reason: 'subscribed' });
    await poll(t.id);
    const fired = await events(t.id);
    expect(fired.map((e) => e.summary)).toEqual(['You were mentioned in sbx-octocat/hello-world PullRequest: Please review the greeting']);
    expect(fired[0]!.payload).toMatchObject({ reason: 'mention', subject: { html_url: 'https://github.com/sbx-octocat/hello-world/pull/2' } });
    await remove(t.id);
  });
});
