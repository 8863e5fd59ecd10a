import { McpServer } from '@modelcontextprotocol/server';
import { type AppDeps, defaultDeps } from '../app/deps.js';
import type { RootContext } from '../app/save.js';
import { GENERATOR } from '../version.js';
import { serialiseToolCalls } from './call-queue.js';
import { registerCheckpointTools } from './checkpoint-tools.js';
import { askClientRoots } from './client-roots.js';
import { registerHandoffTools } from './handoff-tools.js';
import { SERVER_INSTRUCTIONS } from './instructions.js';
import { keepProtoFields } from './proto-field.js';
import { registerRewindTools } from './rewind-tools.js';

/** Builds the MCP server with every tool registered and no transport attached. */
export function createServer(deps: AppDeps = defaultDeps()): McpServer {
  const server = new McpServer(
    { name: 'claude-checkpoint', version: GENERATOR.version },
    { instructions: SERVER_INSTRUCTIONS },
  );
  // Before the tools: both wrap the handler their registration sets; the queue outermost.
  serialiseToolCalls(server);
  const rootContext: RootContext = { clientRoots: askClientRoots(server, deps.cwd) };
  registerCheckpointTools(server, deps, rootContext);
  registerRewindTools(server, deps, rootContext);
  registerHandoffTools(server, deps, rootContext);
  keepProtoFields(server);
  return server;
}
