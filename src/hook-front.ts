// The plugin's hooks' front (plugin/dist/hook-front.cjs), which the entry (hook.cjs, hook-loader.ts) runs
// for what it does not do itself: a pre-command hook's gate, a hook host, settings only the settings files
// can tell, and a hook no server took. Offers the event to the project's running MCP server
// (hooks/relay-client.ts) unless the entry already did and, when none takes it, runs the hooks' bundle
// (hook-main.cjs) through V8's code cache (store/code-cache.ts).
import { createRequire } from 'node:module';
import path from 'node:path';
import { startStoreScanEarly } from './cli/early-snapshot.js';
import { allowDirectSpawn } from './git/direct-spawn-flag.js';
import { cliBeside } from './hooks/cli-path.js';
import { parseHookArgs } from './hooks/hook-args.js';
import { inputWaitMs } from './hooks/hook-budgets.js';
import { handOverStdin, readHookStdin, writeAll } from './hooks/hook-io.js';
import { launchHookHost } from './hooks/host-launch.js';
import { isPreCommandEvent } from './hooks/pre-command-events.js';
import {
  handOverRelayOutcome,
  type RelayOutcome,
  relayHook,
  relayOutcomeHandedOver,
} from './hooks/relay-client.js';
import { HOST_ARG } from './hooks/relay-protocol.js';
import { loadCachedBundle, runCachedBundle } from './store/code-cache.js';
import { relayDisabled } from './store/relay-socket.js';
import { codeCacheBase, defaultStoreBase } from './store/store-base.js';

const entry = process.argv[1] ?? '';
const bundle = path.join(path.dirname(entry), 'hook-main.cjs');
const gateBundle = path.join(path.dirname(entry), 'hook-gate.cjs');

void (async () => {
  // A hook host (hooks/relay-protocol.ts) is the bundle itself, with no hook input to read.
  if (process.argv[2] === HOST_ARG) return runBundle();
  // The project's running MCP server (or hook host) takes the event when it can: it has everything
  // loaded and warm.
  const argv = process.argv.slice(2);
  const { event, options } = parseHookArgs(argv);
  const stdin = await readHookStdin(inputWaitMs(event, process.env));
  // Most commands destroy nothing: their pre-tool hook ends here, before the relay or the bundle loads.
  if (isPreCommandEvent(options.agent, event) && !mayDestroyWork(stdin, event, options.agent))
    process.exit(0);
  const relayed: RelayOutcome =
    relayOutcomeHandedOver<RelayOutcome>() ??
    (await relayHook({
      argv,
      stdin,
      env: process.env,
      cwd: process.cwd(),
      cliPath: cliBeside(entry),
      storeBase: relayDisabled(process.env) ? null : defaultStoreBase(process.env),
      loadNet: () => createRequire(bundle)('node:net'),
    }).catch(() => ({ answered: null, vacant: null })));
  if (relayed.answered) {
    writeAll(1, relayed.answered.stdout);
    writeAll(2, relayed.answered.stderr);
    process.exit(0);
  }
  // Nobody listens for this project: a host started now takes the hooks after this one.
  if (relayed.vacant) {
    launchHookHost({
      entry,
      ...relayed.vacant,
      event: argv[0] ?? '',
      env: process.env,
      loadChildProcess: () => createRequire(bundle)('node:child_process'),
    });
  }
  // A snapshot this process takes itself (a prompt, a command that may destroy work): the store's scan
  // starts now, while the bundle loads, as `claude-checkpoint snapshot`'s does (cli/early-snapshot.ts).
  if (!relayed.lost && (event === 'UserPromptSubmit' || isPreCommandEvent(options.agent, event)))
    startScanEarly(stdin, options.root);
  handOverStdin(stdin);
  // A server that took the hook and died: the bundle writes only its command's record (hooks/run.ts).
  if (relayed.lost) handOverRelayOutcome(relayed);
  runBundle();
})();

/**
 * The gate (hook-gate.cjs beside this file). Without it, or with one that fails to load or to answer (a
 * damaged file, another version's), the command is taken as one that may destroy work: the server, the
 * host or the hooks' bundle judge it again, with their own gate.
 */
function mayDestroyWork(stdin: string, event: string, agent: string | undefined): boolean {
  try {
    const gate = loadCachedBundle({
      bundle: gateBundle,
      kind: 'gate',
      name: event,
      cacheBase: codeCacheBase(process.env),
    });
    const judge = gate?.stdinMayDestroyWork;
    return typeof judge === 'function'
      ? (judge as typeof import('./hook-gate.js').stdinMayDestroyWork)(stdin, process.cwd(), agent) !== false
      : true;
  } catch {
    return true;
  }
}

/** Where the hook's own root is its input's (or CLAUDE_PROJECT_DIR), and the environment names the store. */
function startScanEarly(stdin: string, rootOption: string | undefined): void {
  if (rootOption !== undefined || process.env.CHECKPOINT_PROJECT_ROOT?.trim()) return;
  try {
    const cwd = (JSON.parse(stdin) as { cwd?: unknown }).cwd;
    const root = process.env.CLAUDE_PROJECT_DIR?.trim() || (typeof cwd === 'string' ? cwd : '');
    if (!path.isAbsolute(root)) return;
    // The same git on libuv's handles as the CLI's short processes: the hook is one short process too.
    allowDirectSpawn();
    startStoreScanEarly(root, defaultStoreBase(process.env));
  } catch {
    // The snapshot meets the same problem itself, and says so.
  }
}

function runBundle(): void {
  // One cache per event: each holds the functions its own event compiles.
  if (
    !runCachedBundle({
      bundle,
      kind: 'hook',
      name: process.argv[2] ?? '',
      cacheBase: codeCacheBase(process.env),
    })
  )
    throw new Error(`cannot read the hooks' bundle ${bundle}`);
}
