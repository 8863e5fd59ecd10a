import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { onTestFinished } from 'vitest';
import { type AppDeps, defaultDeps } from '../../src/app/deps.js';
import { createServer } from '../../src/mcp/server.js';
import { childEnv } from './cli.js';
import { workerStateHome } from './fixtures.js';

/** The built stdio server, as MCP clients start it. */
export const SERVER = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

export interface Connected {
  client: Client;
  call: (name: string, args?: Record<string, unknown>) => Promise<ToolResult>;
}

export interface ToolResult {
  isError?: boolean;
  text: string;
  structured: Record<string, unknown> | undefined;
}

/** A real client and server linked in memory; `roots` makes the client offer MCP roots. */
export async function connect(
  options: { deps?: Partial<AppDeps>; roots?: string[] } = {},
): Promise<Connected> {
  const server = createServer(defaultDeps({ env: { XDG_STATE_HOME: workerStateHome() }, ...options.deps }));
  const client = new Client(
    { name: 'test-client', version: '1.0.0' },
    { capabilities: options.roots ? { roots: { listChanged: false } } : {} },
  );
  if (options.roots) {
    const roots = options.roots;
    client.setRequestHandler('roots/list', async () => ({ roots: roots.map((uri) => ({ uri })) }));
  }
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  // As real clients do: with the tool list held, the SDK checks every structuredContent against its outputSchema.
  await client.listTools();
  onTestFinished(async () => {
    await client.close();
    await server.close();
  });
  return {
    client,
    call: async (name, args = {}) => toolResult(await client.callTool({ name, arguments: args })),
  };
}

/** The text, structured content and error flag of a tool result, as ToolResult has them. */
function toolResult(result: Awaited<ReturnType<Client['callTool']>>): ToolResult {
  const first = (result.content as Array<{ type: string; text?: string }>)[0];
  return {
    isError: result.isError as boolean | undefined,
    text: first?.text ?? '',
    structured: result.structuredContent as Record<string, unknown> | undefined,
  };
}

export interface StdioConnected {
  client: Client;
  /** Calls a tool; `signal` cancels it (the client sends `notifications/cancelled`). */
  call: (name: string, args?: Record<string, unknown>, signal?: AbortSignal) => Promise<ToolResult>;
  /** Sends the `notifications/initialized` that `holdInitialized` held back. */
  sendInitialized: () => Promise<void>;
  /** What the server wrote on stderr so far. */
  stderr: () => string;
}

/**
 * A real client connected to the built server (dist/index.js) over a real stdio transport, in `cwd`.
 * `roots` makes the client offer MCP roots (answered once initialized); `holdInitialized` keeps its
 * `notifications/initialized` back until `sendInitialized()`, as a slow client may.
 */
export async function connectStdio(options: {
  cwd: string;
  env?: Record<string, string>;
  roots?: string[];
  holdInitialized?: boolean;
  /** false: the client offers roots but never answers `roots/list`. */
  answerRoots?: boolean;
}): Promise<StdioConnected> {
  if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run "npm run build" first (npm test does)`);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER],
    cwd: options.cwd,
    env: childEnv(options.env),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let held: JSONRPCMessage | undefined;
  if (options.holdInitialized) {
    const send = transport.send.bind(transport);
    transport.send = async (message: JSONRPCMessage) => {
      if ('method' in message && message.method === 'notifications/initialized' && !held) {
        held = message;
        return;
      }
      return send(message);
    };
  }
  const client = new Client(
    { name: 'stdio-test-client', version: '1.0.0' },
    { capabilities: options.roots ? { roots: { listChanged: false } } : {} },
  );
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  if (!options.holdInitialized) release();
  if (options.roots) {
    const roots = options.roots;
    // A client answers requests only once initialized (as the one of the trial did); never, if told so.
    client.setRequestHandler('roots/list', async () => {
      await (options.answerRoots === false ? new Promise<never>(() => {}) : released);
      return { roots: roots.map((uri) => ({ uri })) };
    });
  }
  await client.connect(transport);
  onTestFinished(() => client.close());
  return {
    client,
    call: async (name, args = {}, signal) =>
      toolResult(await client.callTool({ name, arguments: args }, signal ? { signal } : undefined)),
    sendInitialized: async () => {
      if (held) await transport.send(held);
      release();
    },
    stderr: () => stderr,
  };
}
