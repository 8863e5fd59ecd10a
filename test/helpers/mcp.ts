import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { onTestFinished } from 'vitest';
import { type AppDeps, defaultDeps } from '../../src/app/deps.js';
import { createServer } from '../../src/mcp/server.js';
import { workerStateHome } from './fixtures.js';

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
    call: async (name, args = {}) => {
      const result = await client.callTool({ name, arguments: args });
      const first = (result.content as Array<{ type: string; text?: string }>)[0];
      return {
        isError: result.isError as boolean | undefined,
        text: first?.text ?? '',
        structured: result.structuredContent as Record<string, unknown> | undefined,
      };
    },
  };
}
