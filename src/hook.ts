#!/usr/bin/env node
// The hooks' entry point: `hook.js <event> [--root <dir>] [--agent claude|codex|copilot|gemini|opencode]`.
// Lean on purpose: no argument parser, no MCP SDK, and each event loads only its own handler, since hooks
// run on every prompt and command. The plugin runs it bundled, through its entry (hook-loader.ts) and
// front (hook-front.ts), which first offer the event to the project's running MCP server (see
// hooks/relay-protocol.ts).
import { defaultDeps } from './app/deps.js';
import { describeError } from './core/errors.js';
import { offerDetectorPathRedaction } from './core/path-redaction-offer.js';
import { dropEarlyGit } from './git/early-start.js';
import { cliBeside } from './hooks/cli-path.js';
import { parseHookArgs } from './hooks/hook-args.js';
import { HOST_ARG, lostRelayOf, relayOutcomeHandedOver } from './hooks/relay-protocol.js';
import { runHook } from './hooks/run.js';

const [first = '', projectDir = '', delayMs = '0'] = process.argv.slice(2);
// The hooks' main bundle holds the secret detector: SessionStart's drift tells a listed redacted path.
offerDetectorPathRedaction();
if (first === HOST_ARG) {
  // A hook host (hooks/relay-protocol.ts), started by a hook in the background.
  process.on('SIGHUP', () => undefined);
  // Loaded only here: the relay's server side is no hook's business.
  void import('./hooks/hook-host.js')
    .then(({ runHookHost }) => runHookHost(projectDir, process.env, Number(delayMs) || 0))
    .catch((error: unknown) => process.stderr.write(`claude-checkpoint hook host: ${describeError(error)}\n`))
    .finally(() => process.exit(0));
} else {
  // Claude Code cancels background (async) hooks when a print-mode session ends: finish the write anyway.
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) process.on(signal, () => undefined);

  const { event, options } = parseHookArgs(process.argv.slice(2));
  const cliPath = cliBeside(process.argv[1] ?? '');

  // A hook that gave up may leave work in flight: end the process once it is done (its output is written
  // synchronously).
  // The server the entry handed the hook to died before answering (hooks/relay-client.ts).
  const lost = lostRelayOf(relayOutcomeHandedOver());
  const context = lost ? { cliPath, recordId: lost.recordId, lostRelay: { why: lost.why } } : { cliPath };
  void runHook(event, options, defaultDeps(), context).finally(() => {
    // A store scan the front started that no snapshot took (the gate let the command pass): ended.
    dropEarlyGit();
    process.exit(0);
  });
}
