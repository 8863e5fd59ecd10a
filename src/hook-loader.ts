// The plugin's hook entry (plugin/dist/hook.cjs). A hook is a fresh `node` process on every prompt and
// command, and most are handed to the project's running MCP server or hook host: this file does only
// that, with as little to compile and run as it can, and hands everything else to the hooks' front
// (hook-front.cjs beside it, hook-front.ts, through V8's code cache): a pre-command event (its gate comes
// first), a hook host, an agent's options, settings only the settings files can tell, and a hook nobody
// took.
import { createRequire } from 'node:module';
import path from 'node:path';
import { tuneForShortProcess } from './cli/short-process-tiering.js';
import { cliBeside } from './hooks/cli-path.js';
import { inputWaitMs } from './hooks/hook-budgets.js';
import { handOverStdin, readHookStdin, writeAll } from './hooks/hook-io.js';
import { isPreCommandEvent } from './hooks/pre-command-events.js';
import { handOverRelayOutcome, relayHook } from './hooks/relay-client.js';
import { HOST_ARG } from './hooks/relay-protocol.js';
import { runCachedBundle } from './store/code-cache.js';
import { type EntrySettings, entrySettings } from './store/hook-settings.js';

const entry = process.argv[1] ?? '';
const argv = process.argv.slice(2);
const event = argv[0] ?? '';
// Made when first used (the bundle loads node:module then too): a relayed hook has no use for it.
const requireBeside = (id: string) => createRequire(entry)(id);
const settings = entrySettings(process.env);

void (async () => {
  if (!settings?.isRelayOn || argv.length !== 1 || event === HOST_ARG || isPreCommandEvent(undefined, event))
    return runFront(settings);
  const stdin = await readHookStdin(inputWaitMs(event, process.env));
  const relayed = await relayHook({
    argv,
    stdin,
    env: process.env,
    cwd: process.cwd(),
    cliPath: cliBeside(entry),
    storeBase: settings.storeBase,
    onAnswered: answer,
    loadNet: () => requireBeside('node:net'),
  }).catch(() => ({ answered: null, vacant: null }));
  if (relayed.answered) answer(relayed.answered);
  handOverStdin(stdin);
  handOverRelayOutcome(relayed);
  runFront(settings);
})();

function answer({ stdout, stderr }: { stdout: string; stderr: string }): never {
  writeAll(1, stdout);
  writeAll(2, stderr);
  process.exit(0);
}

/** The front, through the code cache where the settings are known here (one cache per event, as the bundle's). */
function runFront(known: EntrySettings | null): void {
  const front = path.join(path.dirname(entry), 'hook-front.cjs');
  // A hook is one short process, which a host is not (before the front's code cache is read).
  if (event !== HOST_ARG) tuneForShortProcess();
  if (
    known &&
    runCachedBundle({
      bundle: front,
      kind: 'front',
      name: event,
      cacheBase: known.isCodeCacheOn ? known.storeBase : null,
    })
  )
    return;
  requireBeside(front);
}
