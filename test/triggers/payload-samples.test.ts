import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { SANDBOX_TOKENS, deliverEmail } from '../../src/sandbox/index.js';
import { hookSide, settleWebhooks } from '../../src/sandbox/github/hooks.js';
import { addNotification } from '../../src/sandbox/github/polled.js';
import { vercelWebhooksIdle } from '../../src/sandbox/vercel/webhooks.js';
import { TRIGGER_KINDS } from '../../src/triggers/kinds.js';
import { Runner } from '../../src/triggers/runner.js';
import { startHarness, type Harness } from '../harness.js';
import { http } from '../sandbox/http.js';
import { payloadValidator } from './payload-validator.js';

/**
 * The payloads of the kinds the webhook examples do not reach (polled GitHub kinds, Vercel, Outlook), and of GitHub
 * webhook kinds as the sandbox delivers them, each made by the real path (a poll, a signed delivery to the listener)
 * and read back from the event log, checked against their kind's payload schema.
 */

let h: Harness;
let runner: Runner;
const REPO = 'sbx-octocat/hello-world';
const check = payloadValidator();

beforeAll(async () => {
  h = await startHarness({ listen: true });
  await h.store.accounts.add({ provider: 'vercel', label: 'team', identity: 'sbx-vercel', meta: { teamId: 'team_sbx' }, secret: { kind: 'token', token: SANDBOX_TOKENS.vercel } });
  runner = new Runner({ store: h.store, kinds: TRIGGER_KINDS, log: h.deps.triggers!.log, deps: h.deps, logger: createLogger({ level: 'error' }), tickMs: 20 });
  await runner.start();
});
afterAll(async () => {
  await runner.stop();
  await h.close();
});

const github = () => h.sandbox.states.github;

async function create(kind: string, config: Record<string, unknown>, account = 'sample'): Promise<string> {
  return (await h.ok('triggers_create', { kind, account, config })).trigger.id;
}

/** Runs one poll of the trigger now and waits for its commit. */
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

/** Calls the GitHub sandbox as the sample account would. */
async function gh(method: string, path: string, body?: unknown): Promise<any> {
  const res = await http(method, h.sandbox.baseUrls.github + path, { body, headers: { authorization: `Bearer ${SANDBOX_TOKENS.github}` } });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
}

/** The payloads of a trigger's events, as the log keeps them, after checking each against the kind's schema. */
async function checkedPayloads(triggerId: string): Promise<Array<Record<string, unknown>>> {
  const trigger = (await h.store.triggers.get(triggerId))!;
  const kind = TRIGGER_KINDS.get(trigger.kind)!;
  const events = await h.store.events.after(0, { triggerIds: [triggerId], limit: 100 });
  for (const event of events) expect(check.errors(kind, event.payload), `${trigger.kind}: ${JSON.stringify(event.payload)}`).toEqual([]);
  return events.map((e) => e.payload);
}

describe('polled GitHub kinds, from the sandbox', () => {
  it('new_issue, new_release and new_repository polled, new_gist, new_watcher and new_mention: each event fits its schema', async () => {
    hookSide(github()).pollIntervalSeconds = 0;
    const triggers = {
      issue: await create('github.new_issue', { repo: REPO, mode: 'poll' }),
      release: await create('github.new_release', { repo: REPO, mode: 'poll' }),
      repository: await create('github.new_repository', {}),
      gist: await create('github.new_gist', {}),
      watcher: await create('github.new_watcher', { repo: REPO }),
      mention: await create('github.new_mention', {}),
    };
    for (const id of Object.values(triggers)) await poll(id);

    await gh('POST', `/repos/${REPO}/issues`, { title: 'Polled payload', body: 'Seen by polling', labels: ['bug'] });
    const repo = github().repos.find((r) => r.name === 'hello-world')!;
    repo.releases.unshift({ ...repo.releases[0]!, id: 7000003, node_id: 'RE_kwDOsbx7000003', tag_name: 'v1.2.0', name: null as never, body: null as never, published_at: new Date().toISOString(), created_at: new Date().toISOString() });
    await gh('POST', '/user/repos', { name: 'payload-sample', description: 'Made for a payload' });
    await gh('POST', '/gists', { description: 'Payload notes', public: false, files: { 'a.md': { content: '# A\n' }, 'b.md': { content: '# B\n' } } });
    repo.subscribers.push('sbx-monalisa');
    addNotification(github(), { repo: REPO, title: 'Please review the greeting', reason: 'mention', number: 2, type: 'PullRequest' });
    addNotification(github(), { repo: REPO, title: 'The team is needed', reason: 'team_mention', number: 3, type: 'Issue' });
    for (const id of Object.values(triggers)) await poll(id);

    const payloads = Object.fromEntries(await Promise.all(Object.entries(triggers).map(async ([name, id]) => [name, await checkedPayloads(id)] as const)));
    expect(Object.fromEntries(Object.entries(payloads).map(([name, list]) => [name, list.length]))).toEqual({ issue: 1, release: 1, repository: 1, gist: 1, watcher: 1, mention: 2 });
    expect(payloads.issue![0]).toMatchObject({ polled: true, delivery_id: null, issue: { title: 'Polled payload', labels: ['bug'] } });
    expect(payloads.release![0]).toMatchObject({ polled: true, release: { tag_name: 'v1.2.0', name: null } });
    expect(payloads.mention!.map((p) => p.reason).sort()).toEqual(['mention', 'team_mention']);
  });
});

describe('GitHub webhook kinds, as the sandbox delivers them', () => {
  it('an issue opened, edited, labeled, assigned, commented on and closed, and a pull request opened: each event fits its schema', async () => {
    const triggers = {
      opened: await create('github.new_issue', { repo: REPO }),
      updated: await create('github.updated_issue', { repo: REPO }),
      labeled: await create('github.new_label_on_issue', { repo: REPO }),
      comment: await create('github.new_comment', { repo: REPO }),
      pull: await create('github.new_pull_request', { repo: REPO }),
    };
    const issue = await gh('POST', `/repos/${REPO}/issues`, { title: 'Delivered payload', body: 'First words' });
    await gh('PATCH', `/repos/${REPO}/issues/${issue.number}`, { title: 'Delivered payload, renamed', body: 'Second words', labels: ['bug'], assignees: ['sbx-octocat'] });
    await gh('POST', `/repos/${REPO}/issues/${issue.number}/comments`, { body: 'A comment' });
    await gh('PATCH', `/repos/${REPO}/issues/${issue.number}`, { state: 'closed', state_reason: 'not_planned' });
    await gh('POST', `/repos/${REPO}/pulls`, { title: 'Docs for payloads', head: 'docs', base: 'main', body: 'Adds docs' });
    await settleWebhooks(github());

    const counts = Object.fromEntries(await Promise.all(Object.entries(triggers).map(async ([name, id]) => [name, (await checkedPayloads(id)).length] as const)));
    expect(counts).toEqual({ opened: 1, updated: 3, labeled: 1, comment: 1, pull: 1 });
    const updated = await checkedPayloads(triggers.updated);
    expect(updated.map((p) => p.change)).toEqual(['title,body', 'labels', 'state']);
    expect(updated[0]).toMatchObject({ changes: { title_from: 'Delivered payload', body_from: 'First words' } });
    expect(updated[1]).toMatchObject({ label: 'bug' });
  });
});

describe('Vercel deployment kinds, from the sandbox webhook', () => {
  const advance = async (id: string, to?: string) => {
    const res = await http('POST', `${h.sandbox.servers.vercel.url}/_sandbox/vercel/deployments/${id}/advance`, { body: to ? { to } : {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };

  it('started, completed, failed and canceled: each event fits its schema', async () => {
    const outcomes = ['started', 'completed', 'failed', 'canceled'] as const;
    const triggers = Object.fromEntries(await Promise.all(outcomes.map(async (o) => [o, await create(`vercel.deployment_${o}`, { project: 'platform-web' }, 'team')] as const)));
    for (const to of ['READY', 'ERROR', 'CANCELED']) {
      const d = await h.ok('vercel_create_deployment', { account: 'team', project: 'platform-web', branch: `payload-${to.toLowerCase()}` });
      await advance(d.id, to);
    }
    await vercelWebhooksIdle(h.sandbox.states.vercel);
    const payloads = Object.fromEntries(await Promise.all(outcomes.map(async (o) => [o, await checkedPayloads(triggers[o]!)] as const)));
    expect(Object.fromEntries(outcomes.map((o) => [o, payloads[o]!.length]))).toEqual({ started: 3, completed: 1, failed: 1, canceled: 1 });
    expect(payloads.completed![0]).toMatchObject({ type: 'deployment.succeeded', ref: 'payload-ready', team_id: 'team_sbx' });
  });
});

describe('outlook.new_email, from the sandbox mailbox', () => {
  it('an email with attachments and one without: each event fits its schema', async () => {
    const id = await create('outlook.new_email', {});
    await poll(id);
    const mailbox = h.sandbox.states.outlook;
    deliverEmail(mailbox, { subject: 'Quarterly numbers', from: { name: 'Dana Reyes', address: 'dana@acme.com' }, text: 'See attached.', attachments: [{ name: 'q4.xlsx', size: 2048 }] });
    deliverEmail(mailbox, { subject: 'Lunch?', from: { name: 'Sam Lee', address: 'sam@acme.com' }, text: 'Noon?' });
    await poll(id);
    const payloads = await checkedPayloads(id);
    expect(payloads.map((p) => [p.subject, p.hasAttachments])).toEqual([
      ['Quarterly numbers', true],
      ['Lunch?', false],
    ]);
  });
});
