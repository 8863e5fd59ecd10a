import type { McpServer } from '@modelcontextprotocol/server';
import { CheckpointError } from '../core/errors.js';
import { aroundToolCalls } from './tool-call-wrap.js';

/**
 * A queue that runs tasks one at a time, in the order they were given. A task whose signal is aborted
 * before its turn never runs: it rejects instead. One cancelled while it runs stops holding the queue
 * (a review: a cancelled push of a handoff, waiting on the network, held every later call for as long
 * as it took); its work goes on to its end under the locks every write takes, as before the queue.
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
    // The next call waits for this one to end, however it ends, or to be cancelled.
    const ended = run.then(
      () => undefined,
      () => undefined,
    );
    tail = signal ? Promise.race([ended, whenAborted(signal)]) : ended;
    return run;
  };
}

function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
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
