#!/usr/bin/env node
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { defaultDeps } from './app/deps.js';
import { describeOutputError } from './core/errors.js';
import { offerDetectorPathRedaction } from './core/path-redaction-offer.js';
import { escapeControls } from './core/quote.js';
import { clip } from './core/text.js';
import { keepHookRelay } from './hooks/relay-server.js';
import { createServer } from './mcp/server.js';
import { guardedStdin, MAX_MESSAGE_BYTES } from './mcp/stdio-lines.js';
import { GENERATOR } from './version.js';

// stdout carries the protocol; everything for people goes to stderr.
const log = (message: string) => process.stderr.write(`claude-checkpoint: ${message}\n`);

async function main(): Promise<void> {
  offerDetectorPathRedaction();
  const deps = defaultDeps();
  const server = createServer(deps);
  // Whole lines reach the SDK's reader, none over MAX_MESSAGE_BYTES: its own limit must never stop it.
  const transport = new StdioServerTransport(
    guardedStdin(process.stdin, process.stdout, log),
    process.stdout,
    {
      maxBufferSize: 2 * MAX_MESSAGE_BYTES + 2,
    },
  );
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
  // Anything else it reports (a line the guard let through that it could not use, a handler that threw)
  // is said on stderr too: silence left a client and its user with no clue (bad-input trial).
  let isStdoutBroken = false;
  server.server.onerror = (error: Error) => {
    // What it reports after stdout failed ("Failed to send response") is that same failure.
    if (isStdoutBroken) return;
    if ((error as NodeJS.ErrnoException).syscall === 'write') {
      isStdoutBroken = true;
      log(describeOutputError('stdout', error as NodeJS.ErrnoException));
      process.exitCode = 1;
      return;
    }
    // Never the client's message, which the SDK's may quote whole (a token in a result; review): its text
    // up to the first JSON in it.
    log(`MCP connection: ${escapeControls(clip(withoutQuotedMessage(error.message), 300))}`);
  };
  // The project's hooks may hand their events to this server (or to a hook host, until it ends);
  // without either they run them themselves.
  relay = keepHookRelay({ env: process.env, cwd: process.cwd(), queue: deps.queue });
}

const USAGE = `claude-checkpoint-mcp ${GENERATOR.version}: the MCP server of claude-checkpoint (session checkpoints,
snapshots to rewind to, handoffs), speaking the Model Context Protocol on stdin and stdout.

An MCP client (Claude Code, Codex CLI, Claude Desktop, …) starts it: run by hand, it waits in silence for
a client's messages on stdin. To set it up for an agent: \`claude-checkpoint setup <agent>\`, or the
README's "Agents" section (docs/agents/README.md). For people, the CLI: \`claude-checkpoint --help\`.

Usage: claude-checkpoint-mcp [--help | --version]
`;

/** `--help` and `--version` answer and end (a terminal would otherwise wait on stdin); the server takes no other argument. */
function answerArguments(args: readonly string[]): number | undefined {
  if (args.length === 0) return undefined;
  const [first] = args;
  if (args.length === 1 && (first === '--help' || first === '-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (args.length === 1 && (first === '--version' || first === '-V')) {
    process.stdout.write(`${GENERATOR.version}\n`);
    return 0;
  }
  const known = ['--help', '-h', '--version', '-V'];
  const unknown = args.find((arg) => !known.includes(arg));
  log(
    unknown === undefined
      ? 'give --help or --version alone'
      : `unknown argument '${escapeControls(unknown)}': the server takes none but --help and --version (an MCP client starts it; see claude-checkpoint-mcp --help)`,
  );
  return 2;
}

const answered = answerArguments(process.argv.slice(2));
if (answered !== undefined) process.exitCode = answered;
else
  main().catch((error: unknown) => {
    log(`failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  });

/**
 * An error message of the SDK's without what it may quote of the client's: a JSON message, or a method
 * name in quotes (`Dropped inbound request '…'`). From the first `{`, `[` or `'` on.
 */
function withoutQuotedMessage(message: string): string {
  const at = message.search(/[{['"]/);
  return at === -1 ? message : `${message.slice(0, at).trimEnd()} (the message itself is not shown)`;
}
