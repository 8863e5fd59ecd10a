#!/usr/bin/env node
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { defaultDeps } from './app/deps.js';
import { describeOutputError } from './core/errors.js';
import { keepHookRelay } from './hooks/relay-server.js';
import { createServer } from './mcp/server.js';

// stdout carries the protocol; everything for people goes to stderr.
const log = (message: string) => process.stderr.write(`claude-checkpoint: ${message}\n`);

async function main(): Promise<void> {
  const deps = defaultDeps();
  const server = createServer(deps);
  const transport = new StdioServerTransport();
  let relay: ReturnType<typeof keepHookRelay> | undefined;
  const shutdown = () => {
    // Hooks the relay is running finish first.
    void Promise.all([server.close(), relay?.stop()]).finally(() => process.exit());
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  process.stdin.on('end', shutdown);
  await server.connect(transport);
  // The SDK closes the transport when stdout fails (`>/dev/full`): say so once, and end with exit 1.
  server.server.onerror = (error: Error) => {
    if ((error as NodeJS.ErrnoException).syscall !== 'write' || process.exitCode === 1) return;
    log(describeOutputError('stdout', error as NodeJS.ErrnoException));
    process.exitCode = 1;
  };
  // The project's hooks may hand their events to this server (or to a hook host, until it ends);
  // without either they run them themselves.
  relay = keepHookRelay({ env: process.env, cwd: process.cwd(), queue: deps.queue });
}

main().catch((error: unknown) => {
  log(`failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
