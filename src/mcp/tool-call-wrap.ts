import type { McpServer } from '@modelcontextprotocol/server';

/** What the `tools/call` handler answers: a tool's result (an error result too), as the SDK shaped it. */
export interface ToolCallAnswer {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Runs the SDK's own `tools/call` handler for this request; `signal` is the request's cancellation. */
export type AroundToolCall = (
  answer: () => Promise<ToolCallAnswer>,
  signal: AbortSignal | undefined,
) => Promise<ToolCallAnswer>;

type RequestHandler = (request: unknown, ctx: { mcpReq?: { signal?: AbortSignal } }) => unknown;

/**
 * Puts `around` around every tool call of `server`, at the `tools/call` request handler: it sees each
 * call in the order the messages arrive (the SDK calls the handler in that order) and the result the
 * SDK made of it, errors included. Call it before registering any tool: it wraps the handler the SDK
 * sets then. The first one called is the outermost.
 */
export function aroundToolCalls(server: McpServer, around: AroundToolCall): void {
  const protocol = server.server;
  const setRequestHandler = protocol.setRequestHandler.bind(protocol) as (...args: unknown[]) => void;
  protocol.setRequestHandler = ((method: string, ...rest: unknown[]) => {
    const handler = rest.at(-1);
    if (method !== 'tools/call' || typeof handler !== 'function') return setRequestHandler(method, ...rest);
    const wrapped: RequestHandler = (request, ctx) =>
      around(
        async () => (await (handler as RequestHandler)(request, ctx)) as ToolCallAnswer,
        ctx.mcpReq?.signal,
      );
    return setRequestHandler(method, ...rest.slice(0, -1), wrapped);
  }) as typeof protocol.setRequestHandler;
}
