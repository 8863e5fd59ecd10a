import { McpServer } from '@modelcontextprotocol/server';
import { type AppDeps, defaultDeps } from '../app/deps.js';
import type { RootContext } from '../app/save.js';
import { GENERATOR } from '../version.js';
import { serialiseToolCalls } from './call-queue.js';
import { registerCheckpointTools } from './checkpoint-tools.js';
import { registerHandoffTools } from './handoff-tools.js';
import { SERVER_INSTRUCTIONS } from './instructions.js';
import { keepProtoFields } from './proto-field.js';
import { registerRewindTools } from './rewind-tools.js';

const ROOTS_TIMEOUT_MS = 2000;

/** Builds the MCP server with every tool registered and no transport attached. */
export function createServer(deps: AppDeps = defaultDeps()): McpServer {
  const server = new McpServer(
    { name: 'claude-checkpoint', version: GENERATOR.version },
    { instructions: SERVER_INSTRUCTIONS },
  );
  const rootContext: RootContext = { clientRoots: () => clientRoots(server) };
  // Before the tools: it wraps the handler their registration sets.
  serialiseToolCalls(server);
  registerCheckpointTools(server, deps, rootContext);
  registerRewindTools(server, deps, rootContext);
  registerHandoffTools(server, deps, rootContext);
  keepProtoFields(server);
  return server;
}

/** The client's MCP roots, or none when it does not offer them or does not answer in time. */
async function clientRoots(server: McpServer): Promise<readonly string[]> {
  if (!server.server.getClientCapabilities()?.roots) return [];
  try {
    const result = await server.server.listRoots(undefined, { timeout: ROOTS_TIMEOUT_MS });
    return result.roots.map((root) => root.uri);
  } catch (error) {
    process.stderr.write(
      `claude-checkpoint: could not list the client's roots: ${(error as Error).message}\n`,
    );
    return [];
  }
}
