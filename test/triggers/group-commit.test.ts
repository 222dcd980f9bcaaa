import { describe, expect, it } from 'vitest';
import type { CommitItem, TriggerEvent } from '../../src/store/types.js';
import { GroupCommit } from '../../src/triggers/group-commit.js';

const input = (key: string) => ({ events: [{ dedupeKey: key, occurredAt: '2026-11-24T00:00:00Z', summary: key, payload: {} }] });
const event = (item: CommitItem, id: number) => ({ id, triggerId: item.triggerId, dedupeKey: item.input.events[0]!.dedupeKey }) as TriggerEvent;

/** A store whose commitMany waits for `release` before answering, recording each batch. */
function heldStore() {
  const batches: string[][] = [];
  const releases: Array<() => void> = [];
  let next = 1;
  const store = {
    commitMany: async (items: CommitItem[]) => {
      batches.push(items.map((i) => i.input.events[0]!.dedupeKey));
      await new Promise<void>((resolve) => releases.push(resolve));
      return items.map((item) => ({ status: 'fulfilled' as const, value: [event(item, next++)] }));
    },
  };
  /** Resolves once `count` batches have been handed to the store. */
  const written = async (count: number) => {
    while (batches.length < count) await new Promise((r) => setImmediate(r));
  };
  return { store, batches, release: () => releases.shift()!(), written };
}

describe('group commit', () => {
  it('writes the commits of one turn together, and those asked for meanwhile in the next batch, at most maxBatch at once', async () => {
    const { store, batches, release, written } = heldStore();
    const group = new GroupCommit(store, 3);
    const first = ['a', 'b'].map((k) => group.commit('trg_1', input(k)));
    await written(1);
    const meanwhile = ['c', 'd', 'e', 'f'].map((k) => group.commit('trg_1', input(k)));
    expect(batches).toEqual([['a', 'b']]);
    release();
    expect((await Promise.all(first)).map((events) => events[0]!.dedupeKey)).toEqual(['a', 'b']);
    await written(2);
    release();
    await written(3);
    release();
    expect((await Promise.all(meanwhile)).map((events) => events[0]!.id)).toEqual([3, 4, 5, 6]);
    expect(batches).toEqual([['a', 'b'], ['c', 'd', 'e'], ['f']]);
  });

  it('gives each caller its own outcome, and every caller of a failed transaction its error, the next batch unharmed', async () => {
    let calls = 0;
    const group = new GroupCommit({
      commitMany: async (items: CommitItem[]) => {
        if (calls++ === 0) throw new Error('database is locked');
        return items.map((item, i) => (i === 1 ? { status: 'rejected' as const, reason: new Error('bad payload') } : { status: 'fulfilled' as const, value: [event(item, i)] }));
      },
    });
    const failed = await Promise.allSettled(['a', 'b'].map((k) => group.commit('trg_1', input(k))));
    expect(failed.map((o) => o.status === 'rejected' && (o.reason as Error).message)).toEqual(['database is locked', 'database is locked']);
    const mixed = await Promise.allSettled(['c', 'd', 'e'].map((k) => group.commit('trg_1', input(k))));
    expect(mixed.map((o) => (o.status === 'fulfilled' ? o.value[0]!.dedupeKey : (o.reason as Error).message))).toEqual(['c', 'bad payload', 'e']);
  });
});
