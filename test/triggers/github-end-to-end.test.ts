import * as z from 'zod/v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleWebhooks } from '../../src/sandbox/github/hooks.js';
import { startHarness, type Harness } from '../harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ listen: true });
});
afterAll(() => h.close());

const EventNotification = z.object({
  method: z.literal('notifications/switchboard/event'),
  params: z.object({ eventId: z.string(), triggerId: z.string(), kind: z.string(), summary: z.string() }).passthrough(),
});

describe('a GitHub trigger end to end', () => {
  it('an issue created through the tool reaches the sandbox hook, fires the trigger and notifies the MCP client', async () => {
    const seen: Array<{ triggerId: string; kind: string; summary: string }> = [];
    h.client.setNotificationHandler(EventNotification, (n) => void seen.push(n.params));
    const created = await h.ok('triggers_create', { kind: 'github.new_issue', config: { repo: 'sbx-octocat/hello-world' } });
    const triggerId = created.trigger.id;
    expect(created.next).toMatch(/webhooks\/github\/hk_/);

    const issue = await h.ok('github_create_issue', { owner: 'sbx-octocat', repo: 'hello-world', title: 'Login fails on Safari' });
    await settleWebhooks(h.sandbox.states.github);
    const notifiedOf = () => seen.some((n) => n.triggerId === triggerId && n.kind === 'github.new_issue');
    for (const end = Date.now() + 10_000; !notifiedOf() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10));

    const events = await h.ok('events_next', { triggers: [triggerId], cursor: '0' });
    expect(events.events).toHaveLength(1);
    expect(events.events[0]).toMatchObject({ kind: 'github.new_issue', payload: { event: 'issues', action: 'opened', repository: 'sbx-octocat/hello-world', issue: { number: issue.number, title: 'Login fails on Safari' } } });
    expect(events.events[0].summary).toMatch(/Login fails on Safari/);
    expect(notifiedOf()).toBe(true);

    // Closing it through the tool is an updated issue (state), not a new one.
    const updated = await h.ok('triggers_create', { kind: 'github.updated_issue', config: { repo: 'sbx-octocat/hello-world' } });
    await h.ok('github_update_issue', { owner: 'sbx-octocat', repo: 'hello-world', issue_number: issue.number, state: 'closed' });
    await settleWebhooks(h.sandbox.states.github);
    const changes = await h.ok('events_next', { triggers: [updated.trigger.id], cursor: '0' });
    expect(changes.events.map((e: { summary: string }) => e.summary)).toEqual([expect.stringMatching(/closed/)]);

    // A comment is not a new issue: the trigger stays quiet.
    await h.ok('github_create_issue_comment', { owner: 'sbx-octocat', repo: 'hello-world', issue_number: issue.number, body: 'Same on iOS' });
    await settleWebhooks(h.sandbox.states.github);
    const after = await h.ok('events_next', { triggers: [triggerId], cursor: '0' });
    expect(after.events).toHaveLength(1);
  });
});
