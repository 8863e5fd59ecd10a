import type { McpServer } from '@modelcontextprotocol/server';
import { CheckpointError } from '../core/errors.js';
import { aroundToolCalls } from './tool-call-wrap.js';

/**
 * A queue that runs tasks one at a time, in the order they were given. A task whose signal is aborted
 * before its turn never runs: it rejects instead, and the task after it still waits for the one before.
 * One cancelled while it runs holds the queue until it ends, as its work does not stop (a push in
 * flight); letting the next call in beside it raced that work (a retried push met its own cancelled one).
 */
export function createCallQueue(): <T>(
  signal: AbortSignal | undefined,
  task: () => Promise<T>,
) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (signal, task) => {
    const run = tail.then(() => {
      if (signal?.aborted)
        throw new CheckpointError('INVALID_INPUT', 'the tool call was cancelled before it started');
      return task();
    });
    // The next call waits for this one to end, however it ends.
    tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  };
}

/**
 * Makes every tool call of `server` run alone, in the order the client sent them (the spec: "tool calls
 * are serialised inside the server, so that concurrent merge saves cannot lose updates"; a `load` sent
 * right after a `save` answered "No checkpoint"). Other requests (tools/list, ping) and notifications
 * (cancellation) do not wait. Call it before registering any tool (see aroundToolCalls).
 */
export function serialiseToolCalls(server: McpServer): void {
  const inTurn = createCallQueue();
  aroundToolCalls(server, (answer, signal) => inTurn(signal, answer));
}
