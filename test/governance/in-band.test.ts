import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { storedPolicy } from '../../src/governance/policy-source.js';
import { PERSONAL_OWNER } from '../../src/store/types.js';
import { startHttpHarness, type Harness } from '../harness.js';

let h: Harness;
let endpoint: string;
let close: () => Promise<void>;
const POLICY = {
  teamDomains: ['contoso.example'],
  approvals: [{ name: 'Outside email', tools: ['outlook_send_email'], when: { recipientOutside: true } }],
};
const outside = { to: ['jordan.lee@fabrikam.example'], subject: 'Volume pricing', body: 'Prices attached.' };
const inside = { to: ['Priya Patel <priya@contoso.example>'], subject: 'Lunch', body: 'Noon?' };

beforeAll(async () => {
  ({ h, endpoint, close } = await startHttpHarness());
  await h.store.policy.set(JSON.stringify(POLICY), 'cli', new Date().toISOString());
  h.deps.policy = storedPolicy(h.store, { refreshMs: 0 });
});
afterAll(() => close());

const sent = () => h.sandbox.servers.outlook.requests.filter((r) => r.path.endsWith('/sendMail'));
let before = 0;
beforeEach(() => {
  before = sent().length;
});
const newlySent = () => sent().slice(before);
const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;

type Answer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };

async function legacy(answer: () => Answer) {
  const asked: Array<Record<string, any>> = [];
  const client = new LegacyClient({ name: 'approve-2025', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params);
    return answer() as never;
  });
  await client.connect(new LegacyHttp(new URL(endpoint)));
  return { asked, call: (args: Record<string, unknown>) => client.callTool({ name: 'outlook_send_email', arguments: args }) as Promise<CallToolResult>, close: () => client.close() };
}

async function modern(answer: () => Answer, autoFulfill = true) {
  const asked: Array<Record<string, any>> = [];
  const client = new ModernClient({ name: 'approve-2026', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } }, inputRequired: { autoFulfill } });
  client.setRequestHandler('elicitation/create', async (req) => {
    asked.push(req.params as Record<string, any>);
    return answer() as never;
  });
  await client.connect(new ModernHttp(new URL(endpoint)));
  return { client, asked, close: () => client.close() };
}

describe('an email to an outside address waits for the caller’s yes', () => {
  it('2025-11-25 (SDK v1, form elicitation): asked with what will happen; yes sends once', async () => {
    const c = await legacy(() => ({ action: 'accept', content: { approve: true } }));
    const r = await c.call(outside);
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(c.asked).toHaveLength(1);
    expect(c.asked[0]!.mode ?? 'form').toBe('form');
    expect(c.asked[0]!.message).toContain('outlook_send_email');
    expect(c.asked[0]!.message).toContain('jordan.lee@fabrikam.example (outside the team)');
    expect(c.asked[0]!.message).toContain('subject: Volume pricing');
    expect(newlySent()).toHaveLength(1);
    const [approval] = await h.store.approvals.list({});
    expect(approval).toMatchObject({ status: 'used', approver: 'caller', inBand: true, rule: 'Outside email', decidedBy: PERSONAL_OWNER });
    await c.close();
  });

  it('2025-11-25: no is a clear refusal, and nothing is sent', async () => {
    const c = await legacy(() => ({ action: 'decline' }));
    const r = await c.call(outside);
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/outlook_send_email was not run: you denied approval apr_[0-9a-f]+ \(rule "Outside email"\)\. Nothing was sent/);
    expect(newlySent()).toEqual([]);
    await c.close();
  });

  it('an email to a team address runs without asking', async () => {
    const c = await legacy(() => ({ action: 'decline' }));
    const r = await c.call(inside);
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(c.asked).toEqual([]);
    expect(newlySent()).toHaveLength(1);
    await c.close();
  });

  it('2026-07-28 (SDK v2, input required): asked in the result; yes sends once', async () => {
    const c = await modern(() => ({ action: 'accept', content: { approve: true } }));
    const r = (await c.client.callTool({ name: 'outlook_send_email', arguments: outside })) as CallToolResult;
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(c.asked).toHaveLength(1);
    expect(c.asked[0]!.message).toContain('jordan.lee@fabrikam.example (outside the team)');
    expect(newlySent()).toHaveLength(1);
    await c.close();
  });

  it('2026-07-28: a replayed yes, a yes for other arguments, or an approval id in the arguments sends nothing', async () => {
    const c = await modern(() => ({ action: 'accept', content: { approve: true } }), false);
    const call = (params: Record<string, unknown>) => c.client.callTool({ name: 'outlook_send_email', ...params } as never, { allowInputRequired: true } as never) as Promise<Record<string, any>>;
    const first = await call({ arguments: outside });
    expect(first.resultType).toBe('input_required');
    expect(first.inputRequests.approve.method).toBe('elicitation/create');
    const yes = { inputResponses: { approve: { action: 'accept', content: { approve: true } } }, requestState: first.requestState };

    // The yes sent back with another recipient is not a yes for it.
    const changed = await call({ arguments: { ...outside, to: ['someone@elsewhere.example'] }, ...yes });
    expect(changed.isError).toBe(true);
    expect(changed.content[0].text).toMatch(/answer given was for another call/);
    expect(newlySent()).toEqual([]);

    const ran = await call({ arguments: outside, ...yes });
    expect(ran.isError, JSON.stringify(ran)).toBeFalsy();
    expect(newlySent()).toHaveLength(1);

    const replayed = await call({ arguments: outside, ...yes });
    expect(replayed.isError).toBe(true);
    expect(replayed.content[0].text).toMatch(/already used/);

    // Other arguments are another call: it is asked about anew.
    const madeUp = await call({ arguments: { ...outside, approval: first.requestState } });
    expect(madeUp.resultType).toBe('input_required');
    expect(madeUp.requestState).not.toBe(first.requestState);
    const forged = await call({ arguments: outside, inputResponses: yes.inputResponses, requestState: 'apr_000000000000000000000000' });
    expect(forged.isError).toBe(true);
    expect(forged.content[0].text).toMatch(/answer given was for another call/);
    expect(newlySent()).toHaveLength(1);
    await c.close();
  });
});
