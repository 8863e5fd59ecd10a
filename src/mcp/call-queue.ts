import type { McpServer } from '@modelcontextprotocol/server';
import { CheckpointError } from '../core/errors.js';

/**
 * A queue that runs tasks one at a time, in the order they were given. A task whose signal is aborted
 * before its turn never runs: it rejects instead.
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
    tail = run.catch(() => undefined);
    return run;
  };
}

type AnyHandler = (request: unknown, ctx: { mcpReq?: { signal?: AbortSignal } }) => unknown;

/**
 * Makes every tool call of `server` run alone, in the order the client sent them (the spec: "tool calls
 * are serialised inside the server, so that concurrent merge saves cannot lose updates"; a `load` sent
 * right after a `save` answered "No checkpoint"). Other requests (tools/list, ping) and notifications
 * (cancellation) do not wait. Call it before registering any tool: it wraps the `tools/call` handler the
 * SDK sets then, which the SDK calls in the order the messages arrive.
 */
export function serialiseToolCalls(server: McpServer): void {
  const inTurn = createCallQueue();
  const protocol = server.server;
  const setRequestHandler = protocol.setRequestHandler.bind(protocol) as (...args: unknown[]) => void;
  protocol.setRequestHandler = ((method: string, ...rest: unknown[]) => {
    const handler = rest.at(-1);
    if (method !== 'tools/call' || typeof handler !== 'function') return setRequestHandler(method, ...rest);
    const queued: AnyHandler = (request, ctx) =>
      inTurn(ctx.mcpReq?.signal, async () => (handler as AnyHandler)(request, ctx));
    return setRequestHandler(method, ...rest.slice(0, -1), queued);
  }) as typeof protocol.setRequestHandler;
}
