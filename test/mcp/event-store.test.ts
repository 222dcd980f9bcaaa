import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { SessionEventStore } from '../../src/mcp/event-store.js';
import { frameMessages, sendNotificationsDirectly } from '../../src/mcp/streams.js';

const note = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/test', params: { n } });

const numbers = (sent: Array<[string, JSONRPCMessage]>) => sent.map(([, m]) => ('params' in m ? m.params?.n : undefined));

async function replay(store: SessionEventStore, after: string) {
  const sent: Array<[string, JSONRPCMessage]> = [];
  const stream = await store.replayEventsAfter(after, { send: async (id, message) => void sent.push([id, message]) });
  return { stream, sent };
}

describe('session event store', () => {
  it('replays the events of the same stream after the given id, skipping priming events', async () => {
    const store = new SessionEventStore();
    const priming = await store.storeEvent('_GET_stream', {} as JSONRPCMessage);
    const a = await store.storeEvent('_GET_stream', note(1));
    await store.storeEvent('request-stream', note(2));
    await store.storeEvent('_GET_stream', {} as JSONRPCMessage);
    const c = await store.storeEvent('_GET_stream', note(3));
    expect(await store.getStreamIdForEventId(priming)).toBe('_GET_stream');
    expect(await replay(store, priming)).toEqual({ stream: '_GET_stream', sent: [[a, note(1)], [c, note(3)]] });
    expect((await replay(store, a)).sent).toEqual([[c, note(3)]]);
    expect(await store.getStreamIdForEventId('not-ours')).toBeUndefined();
    await expect(replay(store, 'not-ours')).rejects.toThrow(/Unknown event id/);
  });

  it('keeps framed events as one entry, replaying them one by one from any id among them, in the order they were kept', async () => {
    const store = new SessionEventStore({ maxEvents: 5, maxBytes: 1e9, maxAgeMs: 1e9 });
    const before = await store.storeEvent('_GET_stream', note(0));
    const batch = frameMessages([note(1), note(2), note(3)]);
    store.keepFramed(batch);
    const after = await store.storeEvent('_GET_stream', note(4));
    expect(batch.count).toBe(3);
    expect(store.size).toBe(5);
    expect(numbers((await replay(store, before)).sent)).toEqual([1, 2, 3, 4]);
    const second = `${batch.last - 1}__GET_stream`;
    expect((await replay(store, second)).sent).toEqual([[`${batch.last}__GET_stream`, note(3)], [after, note(4)]]);
    // Counted by events: one more event pushes out the oldest entry, then the batch as a whole.
    await store.storeEvent('_GET_stream', note(5));
    expect(numbers((await replay(store, '0__GET_stream')).sent)).toEqual([1, 2, 3, 4, 5]);
    await store.storeEvent('_GET_stream', note(6));
    expect(numbers((await replay(store, '0__GET_stream')).sent)).toEqual([4, 5, 6]);
  });

  it('keeps at most maxEvents, maxBytes and maxAgeMs worth of events', async () => {
    let now = 0;
    const byCount = new SessionEventStore({ maxEvents: 3, maxBytes: 1e9, maxAgeMs: 1e9 }, () => now);
    const first = await byCount.storeEvent('s', note(0));
    for (let n = 1; n <= 5; n++) await byCount.storeEvent('s', note(n));
    expect(byCount.size).toBe(3);
    expect(numbers((await replay(byCount, first)).sent)).toEqual([3, 4, 5]);

    const size = JSON.stringify(note(1)).length;
    const byBytes = new SessionEventStore({ maxEvents: 1e9, maxBytes: size * 2, maxAgeMs: 1e9 }, () => now);
    for (let n = 1; n <= 4; n++) await byBytes.storeEvent('s', note(n));
    expect(byBytes.size).toBe(2);

    const byAge = new SessionEventStore({ maxEvents: 1e9, maxBytes: 1e9, maxAgeMs: 1_000 }, () => now);
    const old = await byAge.storeEvent('s', note(1));
    now += 600;
    await byAge.storeEvent('s', note(2));
    now += 600;
    expect(numbers((await replay(byAge, old)).sent)).toEqual([2]);
    expect(byAge.size).toBe(1);
  });

  it('replays what it keeps exactly, as its pages fill, are dropped and are used again, big entries included', async () => {
    const store = new SessionEventStore({ maxEvents: 400, maxBytes: 300_000, maxAgeMs: 1e9 });
    const sized = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/test', params: { n, pad: 'é'.repeat(n % 97 === 0 ? 40_000 : (n * 37) % 900) } });
    const kept: Array<[string, JSONRPCMessage]> = [];
    for (let n = 1; n <= 3_000; n++) {
      if (n % 5 === 0) {
        const batch = frameMessages([sized(n), note(n)]);
        store.keepFramed(batch);
        kept.push([`${batch.last - 1}__GET_stream`, sized(n)], [`${batch.last}__GET_stream`, note(n)]);
      } else kept.push([await store.storeEvent('_GET_stream', sized(n)), sized(n)]);
      if (n % 250 !== 0) continue;
      const { sent } = await replay(store, '0__GET_stream');
      expect(sent.length).toBe(store.size);
      expect(sent).toEqual(kept.slice(-sent.length));
      expect(JSON.stringify(sent).length).toBeLessThan(2 * 300_000);
    }
    expect(store.size).toBeGreaterThan(100);
  });
});

describe('notifications sent to the standalone stream directly', () => {
  it('keeps a notification related to no request in the event store without the SDK\'s send; anything else takes the SDK\'s way', async () => {
    const events = new SessionEventStore();
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: () => 'session', eventStore: events });
    transport.send = async () => {
      throw new Error('sent the SDK\'s way');
    };
    sendNotificationsDirectly(transport, events);
    await transport.send(note(1) as never);
    expect(numbers((await replay(events, '0__GET_stream')).sent)).toEqual([1]);
    await expect(transport.send({ jsonrpc: '2.0', id: 1, result: {} })).rejects.toThrow(/the SDK's way/);
    await expect(transport.send(note(2) as never, { relatedRequestId: 7 })).rejects.toThrow(/the SDK's way/);
    expect(events.size).toBe(1);
  });
});
