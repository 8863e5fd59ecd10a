import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRepo, writeTree } from '../helpers/fixtures.js';
import { connectStdio } from '../helpers/mcp.js';

/** The index of each promise, in the order they settled. */
function settleOrder(promises: ReadonlyArray<Promise<unknown>>): Promise<number[]> {
  const order: number[] = [];
  return Promise.allSettled(promises.map((promise, index) => promise.finally(() => order.push(index)))).then(
    () => order,
  );
}

/** A few turns of the event loop: enough for a request handed to the transport to be written out. */
const turns = async (count: number) => {
  for (let turn = 0; turn < count; turn++) await new Promise((resolve) => setImmediate(resolve));
};

// The spec: tool calls are serialised inside the server, so that concurrent merge saves cannot lose
// updates. Rewind trial: a `load` sent right after a `save` answered "No checkpoint", a `list_snapshots`
// was answered before the `snapshot_files` sent ahead of it.
describe('tool calls sent back to back over stdio', () => {
  it('run one at a time, in the order they were sent', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a\n' } });
    const { call } = await connectStdio({ cwd: root });
    const calls = [
      call('save_session_checkpoint', { goal: 'first goal' }),
      call('load_session_checkpoint'),
      call('snapshot_files', { label: 'one' }),
      call('list_snapshots'),
      call('save_session_checkpoint', { goal: 'second goal', mode: 'merge' }),
      call('load_session_checkpoint'),
    ];
    const order = await settleOrder(calls);
    const [, firstLoad, , listed, , secondLoad] = await Promise.all(calls);
    expect(firstLoad?.text).toContain('first goal');
    expect(listed?.structured?.total).toBe(1);
    expect(secondLoad?.text).toContain('second goal');
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('leave ping and tools/list unqueued, and never run a call cancelled before its turn', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a\n' } });
    // Enough files that the first snapshot is still being taken when the requests after it arrive.
    writeTree(root, Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`many/f${i}.txt`, `${i}\n`])));
    const { client, call } = await connectStdio({ cwd: root });
    const snapshot = call('snapshot_files', { label: 'long' });
    const kept = call('save_session_checkpoint', { goal: 'kept' });
    const cancel = new AbortController();
    const cancelled = call('save_session_checkpoint', { goal: 'cancelled' }, cancel.signal).then(
      () => 'answered',
      (error: Error) => error.message,
    );
    await turns(5);
    cancel.abort();
    const order = await settleOrder([snapshot, client.ping(), client.listTools()]);
    expect(order.indexOf(0)).toBe(2);
    expect(await cancelled).toMatch(/abort/i);
    expect((await kept).isError).toBeFalsy();
    expect((await call('load_session_checkpoint')).text).toContain('kept');
    const file = JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')) as {
      goal: { primary: string };
    };
    expect(file.goal.primary).toBe('kept');
  });
});
