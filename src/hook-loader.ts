// The plugin's hook entry (plugin/dist/hook.cjs): offers the event to the project's running MCP server
// (hooks/relay-client.ts) and, when none takes it, runs the hooks' bundle (hook-main.cjs) through V8's code
// cache. A hook is a fresh `node` process on every prompt and command, and compiling the bundle and every
// function it calls was a third of its cost; with the cache, V8 reads that work back instead. Node 22 has
// this built in (module.enableCompileCache); this does the same on Node 20.
//
// The cache lives in the store's base folder (private, 0700), one per event, keyed by Node's version and
// the bundle's size and time. V8 checks the cache against the source and flags and rejects a mismatch, which costs one
// normal start and writes a fresh cache. Anything wrong with the cache only ever costs speed.
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { cliBeside } from './hooks/cli-path.js';
import { parseHookArgs } from './hooks/hook-args.js';
import { handOverStdin, readHookStdin, writeAll } from './hooks/hook-io.js';
import { launchHookHost } from './hooks/host-launch.js';
import { isPreCommandEvent, stdinMayDestroyWork } from './hooks/pre-command-gate.js';
import { relayHook } from './hooks/relay-client.js';
import { HOST_ARG } from './hooks/relay-protocol.js';
import { userSetting } from './store/settings-file.js';
import { defaultStoreBase } from './store/store-base.js';

const CACHE_PREFIX = 'hook-';
const MAX_CACHE_BYTES = 16 * 1024 * 1024;

const entry = process.argv[1] ?? '';
const bundle = path.join(path.dirname(entry), 'hook-main.cjs');

void (async () => {
  // A hook host (hooks/relay-protocol.ts) is the bundle itself, with no hook input to read.
  if (process.argv[2] === HOST_ARG) return runBundle();
  // The project's running MCP server (or hook host) takes the event when it can: it has everything
  // loaded and warm.
  const argv = process.argv.slice(2);
  const stdin = await readHookStdin();
  // Most commands destroy nothing: their pre-tool hook ends here, before the relay or the bundle loads.
  const { event, options } = parseHookArgs(argv);
  if (isPreCommandEvent(options.agent, event) && !stdinMayDestroyWork(stdin, process.cwd(), options.agent))
    process.exit(0);
  const relayed = await relayHook({
    argv,
    stdin,
    env: process.env,
    cwd: process.cwd(),
    cliPath: cliBeside(entry),
    loadNet: () => createRequire(bundle)('node:net'),
  }).catch(() => ({ answered: null, vacant: null }));
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
  handOverStdin(stdin);
  runBundle();
})();

function runBundle(): void {
  const source = readFileSync(bundle, 'utf8').replace(/^#!.*/, '');
  const cacheFile = cachePath();
  const cachedData = cacheFile ? readCache(cacheFile) : undefined;
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundle,
    ...(cachedData ? { cachedData } : {}),
  });
  if (cacheFile && (!cachedData || script.cachedDataRejected)) {
    // After the hook has run, so the cache holds the functions it compiled along the way too.
    process.once('exit', () => writeCache(cacheFile, script.createCachedData()));
  }
  const loaded = { exports: {} };
  script.runInThisContext()(loaded.exports, createRequire(bundle), loaded, bundle, path.dirname(bundle));
}

function cachePath(): string | undefined {
  if (!userSetting(process.env, 'hookCodeCache')) return undefined;
  try {
    const stats = statSync(bundle);
    // One cache per event: each holds the functions its own event compiles.
    const event = (process.argv[2] ?? '').replace(/[^A-Za-z]/g, '').slice(0, 40) || 'none';
    const key = `${event}-${process.version}-${process.arch}-${stats.size}-${Math.trunc(stats.mtimeMs)}`;
    return path.join(defaultStoreBase(process.env), 'cache', `${CACHE_PREFIX}${key}.v8`);
  } catch {
    return undefined;
  }
}

function readCache(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > MAX_CACHE_BYTES) return undefined;
    return readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Writes the cache atomically (temp file, exclusive, never through a symlink) and drops stale ones. */
function writeCache(file: string, data: Buffer): void {
  const dir = path.dirname(file);
  const temp = `${file}.tmp-${process.pid}`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const fd = openSync(
      temp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      writeFileSync(fd, data);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
    // Caches of other versions: one not read for a week is left over from an upgrade.
    const weekAgo = Date.now() - 7 * 24 * 3_600_000;
    for (const name of readdirSync(dir)) {
      const other = path.join(dir, name);
      if (name.startsWith(CACHE_PREFIX) && other !== file && statSync(other).atimeMs < weekAgo)
        unlinkSync(other);
    }
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // nothing was written
    }
  }
}
