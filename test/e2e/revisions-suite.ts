import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { finishedPolls, REVISIONS, signInThrough, textOf, type Connection, type Revision, type Setup } from './revisions.js';
import { until } from '../support/wait.js';

export interface SuiteContext {
  sandbox: () => Sandbox;
  /** The connected client of each revision. */
  connection: (revision: Revision) => Connection;
  /** The data dir its server uses. */
  setup: (revision: Revision) => Setup;
  /** Its server's log so far. */
  serverLog: (revision: Revision) => string;
  /** Where its server answers /oauth/callback, when the test knows it in advance. */
  callbackBase?: () => string;
}

/** What every client gets, whichever revision it speaks, over one transport. */
export function revisionSuite(t: SuiteContext): void {
  it('both revisions list the same tools, with the same annotations', async () => {
    const [modern, legacy] = await Promise.all(REVISIONS.map((r) => t.connection(r).client.listTools()));
    const shape = (tools: Array<{ name: string; annotations?: unknown }>) => tools.map((tool) => [tool.name, tool.annotations]);
    expect(modern.tools.length).toBeGreaterThan(50);
    expect(shape(modern.tools)).toEqual(shape(legacy.tools));
    expect(modern.tools.find((tool: { name: string }) => tool.name === 'accounts_list').annotations).toMatchObject({ readOnlyHint: true });
  });

  it('both revisions advertise MCP Events and list the same 31 event types', async () => {
    const EventList = z.looseObject({ events: z.array(z.looseObject({ name: z.string(), delivery: z.array(z.string()) })) });
    const lists = await Promise.all(REVISIONS.map((r) => t.connection(r).client.request({ method: 'events/list', params: {} }, EventList) as Promise<z.output<typeof EventList>>));
    // Tasks (for calls waiting on an approver) are an extension of 2026-07-28 only.
    for (const r of REVISIONS) {
      const expected = r === '2026-07-28' ? { 'io.modelcontextprotocol/events': {}, 'io.modelcontextprotocol/tasks': {} } : { 'io.modelcontextprotocol/events': {} };
      expect(t.connection(r).client.getServerCapabilities().extensions, r).toEqual(expected);
    }
    expect(lists[0]!.events).toHaveLength(31);
    expect(lists[0]!.events.find((e) => e.name === 'outlook.new_email')?.delivery).toEqual(['webhook', 'poll', 'push']);
    expect(lists[1]!.events).toEqual(lists[0]!.events);
  });

  describe.each(REVISIONS)('a %s client', (revision) => {
    const c = () => t.connection(revision);
    const setup = () => t.setup(revision);

    it(`negotiates ${revision}`, () => {
      expect(c().negotiated()).toBe(revision);
    });

    it('calls a tool and gets structured content', async () => {
      const result = await c().call('accounts_list', {});
      expect(result.isError, textOf(result)).toBeFalsy();
      const { accounts } = result.structuredContent as { accounts: Array<{ provider: string; status: string }> };
      expect(accounts.map((a) => a.provider).sort()).toEqual(['outlook', 'sales']);
      expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    });

    it("lists the accounts and the trigger's events as resources, and reads the accounts without secrets", async () => {
      const { resources } = await c().client.listResources();
      expect(resources.map((r: { uri: string }) => r.uri)).toEqual(['switchboard://accounts', setup().eventsUri]);
      const { contents } = await c().client.readResource({ uri: 'switchboard://accounts' });
      expect(contents).toHaveLength(1);
      const { accounts } = JSON.parse(contents[0].text);
      expect(accounts.map((a: { provider: string }) => a.provider).sort()).toEqual(['outlook', 'sales']);
      for (const a of t.sandbox().accounts) expect(contents[0].text).not.toContain(a.secret.token ?? a.secret.apiKey);
    });

    const delivery =
      revision === '2026-07-28'
        ? 'receives an event on its listen stream, as a resource update carrying the event'
        : 'receives an event as the vendor notification and, once subscribed, as a resource update carrying the event';
    it(delivery, async () => {
      await c().watch(setup().eventsUri);
      const note = await setup().commit(`Email for the ${revision} client`);
      await until(() => c().updates.some((u) => u.note?.eventId === note.eventId), `the resource update of event ${note.eventId}`, 15_000);
      expect(c().updates.find((u) => u.note?.eventId === note.eventId)).toEqual({ uri: setup().eventsUri, note });
      if (revision === '2025-11-25') {
        await until(() => c().vendorNotes.some((n) => n.eventId === note.eventId), `the vendor notification of event ${note.eventId}`, 15_000);
        expect(c().vendorNotes.find((n) => n.eventId === note.eventId)).toEqual(note);
      } else {
        expect(c().vendorNotes).toEqual([]);
      }
    });

    it("is refused a subscription to anything but an existing trigger's events, with the same error in both revisions", async () => {
      const subscribe = (uri: string): Promise<unknown> =>
        revision === '2026-07-28' ? c().client.listen({ resourceSubscriptions: [setup().eventsUri, uri] }) : c().client.subscribeResource({ uri });
      const refusal = (uri: string) => subscribe(uri).then(() => ({ code: 0, message: 'accepted' }), (error: { code: number; message: string }) => error);
      const foreign = await refusal('switchboard://accounts');
      expect(foreign.code).toBe(-32602);
      expect(foreign.message).toMatch(/"switchboard:\/\/accounts" cannot be subscribed to: only switchboard:\/\/triggers\/\{id\}\/events/);
      const missing = await refusal('switchboard://triggers/trg_0000000000000000/events');
      expect(missing.code).toBe(-32602);
      expect(missing.message).toMatch(/Resource switchboard:\/\/triggers\/trg_0000000000000000\/events not found/);
      expect((await c().call('accounts_list', {})).isError).toBeFalsy();
    });

    it('is told the progress of sales_enrich_contacts, batch by batch, before the result', async () => {
      const progress: Progress[] = [];
      // Ten batches of 100, three at a time: the first notifications go out well before the result.
      const contacts = Array.from({ length: 1000 }, (_, i) => ({ email: `nobody-${i}-${revision}@nowhere.example` }));
      const from = c().inbound.length;
      const result = await c().call('sales_enrich_contacts', { contacts }, { onprogress: (p) => void progress.push(p) });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ matched: 0, no_match: 1000, errors: 0 });
      const received = c().inbound.slice(from);
      const answeredAt = received.findIndex((m) => m.result?.structuredContent);
      const notified = received.flatMap((m, i) => (m.method === 'notifications/progress' ? [{ ...m.params, at: i }] : []));
      expect(notified.map((p) => [p.progress, p.total, p.message])).toEqual(
        Array.from({ length: 10 }, (_, i) => [(i + 1) * 100, 1000, `${(i + 1) * 100} of 1000 records looked up`]),
      );
      expect(notified.every((p) => p.at < answeredAt)).toBe(true);
      // Both SDKs' clients drop a progress notification read in the same chunk as the response, before dispatching it
      // (modelcontextprotocol/typescript-sdk#2580); what onprogress saw is the start of what was sent.
      expect(progress.length).toBeGreaterThan(0);
      expect(progress.map((p) => p.progress)).toEqual(notified.slice(0, progress.length).map((p) => p.progress));
    });

    it('cancels a long events_next: the call rejects at once, the server ends the poll, and the next call is answered', async () => {
      const consumer = `cancel-${revision.slice(0, 4)}`;
      const finished = finishedPolls(t.serverLog(revision)).length;
      const abort = new AbortController();
      const call = c().call('events_next', { consumer, wait_seconds: 60 }, { signal: abort.signal });
      // The poll has started on the server once it has stored the new consumer's cursor.
      await until(async () => (await setup().store.events.cursor(`mcp:${consumer}`)) !== undefined, 'the poll to start', 15_000);
      const aborted = Date.now();
      abort.abort('the person stopped it');
      await expect(call).rejects.toThrow();
      expect(Date.now() - aborted).toBeLessThan(10_000);
      // The server logs each call's end: the poll ended well before its 60 seconds were up.
      await until(() => finishedPolls(t.serverLog(revision)).length > finished, 'the server to end the poll', 15_000);
      expect(finishedPolls(t.serverLog(revision))[finished]).toBeLessThan(30_000);
      const next = await c().call('accounts_list', { provider: 'sales' });
      expect(next.isError, textOf(next)).toBeFalsy();
    });

    it('is offered a sign-in link for an account that needs reconnecting, and the call succeeds once the person signs in', async () => {
      await setup().setOutlookStatus('needs_reconnect');
      // The person answers without signing in: the call runs again and says the link was offered.
      const from = c().inbound.length;
      const unsigned = await c().call('outlook_list_folders', {});
      expect(unsigned.isError).toBe(true);
      expect(textOf(unsigned)).toMatch(/needs to be reconnected.*A sign-in link was offered/s);
      expect(c().links).toHaveLength(1);
      // The link came as a 2026 input request in the call's result, or to a 2025 client as a URL elicitation request.
      const wire = c().inbound.slice(from);
      if (revision === '2026-07-28') {
        expect(wire.filter((m) => m.method && 'id' in m), 'a request from the server').toEqual([]);
        const asked = wire.find((m) => m.result?.resultType === 'input_required');
        expect(asked?.result.inputRequests).toEqual({ sign_in: { method: 'elicitation/create', params: expect.objectContaining({ mode: 'url', url: c().links[0]!.url }) } });
      } else {
        expect(wire.filter((m) => m.method === 'elicitation/create').map((m) => m.params.url)).toEqual([c().links[0]!.url]);
      }
      expect(c().links[0]!.message).toMatch(/The outlook account ".+" needs a new sign-in/);
      const link = new URL(c().links[0]!.url);
      expect(link.origin).toBe(new URL(t.sandbox().oauthSettings.outlook.url).origin);
      const redirect = link.searchParams.get('redirect_uri')!;
      if (t.callbackBase) expect(redirect).toBe(`${t.callbackBase()}/oauth/callback/outlook`);
      else expect(redirect).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth\/callback\/outlook$/);

      // This time the person signs in through the link before answering. Only the process that offered the link holds
      // its pending sign-in, so the callback finishing it is that process's own.
      c().onLink = signInThrough;
      try {
        const signedIn = await c().call('outlook_list_folders', {});
        expect(signedIn.isError, textOf(signedIn)).toBeFalsy();
      } finally {
        c().onLink = undefined;
      }
      expect(c().links).toHaveLength(2);
      expect(new URL(c().links[1]!.url).searchParams.get('redirect_uri')).toBe(redirect);
    });
  });
}
