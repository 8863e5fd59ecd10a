import { describe, expect, it } from 'vitest';
import { createCallQueue } from '../../src/mcp/call-queue.js';

/** A promise and the function that settles it. */
function deferred() {
  let settle = () => {};
  const promise = new Promise<void>((resolve) => {
    settle = resolve;
  });
  return { promise, settle };
}

const flush = async () => {
  for (let turn = 0; turn < 10; turn++) await Promise.resolve();
};

// The spec: tool calls are serialised inside the server. Review: cancelling a call that waited its turn
// let the call after it start beside the one running.
describe('createCallQueue', () => {
  it('runs the call after a cancelled waiting one only once the running one has ended', async () => {
    const inTurn = createCallQueue();
    const log: string[] = [];
    const a = deferred();
    const running = inTurn(undefined, async () => {
      log.push('A start');
      await a.promise;
      log.push('A end');
    });
    const cancel = new AbortController();
    const waiting = inTurn(cancel.signal, async () => {
      log.push('B start');
    }).catch((error: Error) => log.push(`B ${error.message}`));
    const after = inTurn(undefined, async () => {
      log.push('C start');
    });
    await flush();
    cancel.abort();
    await flush();
    expect(log).toEqual(['A start']);
    a.settle();
    await Promise.all([running, waiting, after]);
    expect(log).toEqual(['A start', 'A end', 'B the tool call was cancelled before it started', 'C start']);
  });

  it('goes on after a call that fails', async () => {
    const inTurn = createCallQueue();
    await expect(inTurn(undefined, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await inTurn(undefined, async () => 'next')).toBe('next');
  });
});
