import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, PLAIN_CLI, runCli, runNodeScript, SHIPPED_HOOK_ENTRY } from '../helpers/cli.js';
import { DIRECT_SPAWN_HERE } from '../helpers/direct-spawn.js';
import { createRepo, git, tempDir } from '../helpers/fixtures.js';
import { builtinsTrace } from '../helpers/loads.js';

beforeAll(assertBuilt);

// Issue 26: `--help`, `list` and `status` start in about the time of `node -e 0` (the bench row
// "CLI start-up" measures it). What keeps them there is what they do not load: every other command's
// code, and the libraries only other commands use. The CLI's plain modules (dist/cli.js, which the
// bundle is built from) run with a loader hook that writes down each module they load.
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.LOADED_LOG, url + '\\n');
  return next(url, context);
}`;

function loaderFiles(): { register: string; log: string } {
  const dir = tempDir('cli-loads-');
  const hooks = path.join(dir, 'hooks.mjs');
  const register = path.join(dir, 'register.mjs');
  writeFileSync(hooks, HOOKS);
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  return { register, log: path.join(dir, 'loaded.log') };
}

/** The packages and our own modules (relative to dist/) a command loaded. */
async function loadedBy(args: string[], root: string, storeDir: string): Promise<string[]> {
  const { register, log } = loaderFiles();
  writeFileSync(log, '');
  const result = await runNodeScript(PLAIN_CLI, args, {
    cwd: root,
    env: {
      CHECKPOINT_STORE_DIR: storeDir,
      LOADED_LOG: log,
      NODE_OPTIONS: `--import=${pathToFileURL(register).href}`,
    },
  });
  expect(result.code, result.stderr).toBe(0);
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:'))
    .map((url) => {
      const file = url.replace(/^file:\/\//, '');
      const inPackage = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
      return inPackage ? `package ${inPackage[1]}` : file.replace(/^.*\/dist\//, '');
    })
    .filter((name) => !name.endsWith('register.mjs') && !name.endsWith('hooks.mjs'));
}

/** A project with a checkpoint and a snapshot, and a file changed since: what status and list meet. */
async function project() {
  const root = createRepo({ committed: { 'a.txt': 'one\n', 'src/b.ts': 'export {};\n' } });
  const storeDir = tempDir('checkpoint-store-');
  const env = { CHECKPOINT_STORE_DIR: storeDir };
  for (const args of [['save', '--goal', 'Ship it', '--task', 'in_progress:start'], ['snapshot']])
    expect((await runCli(args, { cwd: root, env })).code).toBe(0);
  writeFileSync(path.join(root, 'a.txt'), 'two\n');
  return { root, storeDir };
}

describe('what the CLI loads to start', () => {
  const others = ['package zod', 'package jsonc-parser', 'package smol-toml', 'package @inquirer/core'];

  it.each([['--help'], ['list'], ['status']])(
    '%s loads no zod, no setup or picker libraries',
    async (command) => {
      const { root, storeDir } = await project();
      const loaded = await loadedBy([command], root, storeDir);
      expect(loaded).toContain('cli/main.js');
      for (const name of others) expect(loaded).not.toContain(name);
      // The secret detector (a snapshot's label, a save), the doctor's checks and setup belong to other commands.
      expect(loaded.filter((name) => name.startsWith('core/secrets/'))).toEqual([]);
      expect(loaded).not.toContain('app/status.js');
      expect(loaded).not.toContain('hooks/relay-protocol.js');
      expect(loaded).not.toContain('app/setup.js');
    },
  );

  it('--help loads none of the use cases, the store or git', async () => {
    const { root, storeDir } = await project();
    const loaded = await loadedBy(['--help'], root, storeDir);
    expect(loaded.filter((name) => /^(app|store|git|hooks)\//.test(name)).sort()).toEqual([
      'app/deps.js',
      'app/setup-agents.js',
      'app/views.js',
      // The registry of git calls the loader started early, to end what nothing took (no git itself).
      'git/early-start.js',
      // Node's bindings, which the lock's owner record reads this machine's name from (no node:os).
      'git/node-binding.js',
      'hooks/agent-names.js',
      'store/fs-seam.js',
      'store/lock-owner.js',
      'store/lock.js',
      'store/temp-name.js',
    ]);
  });
});

const REPO = fileURLToPath(new URL('../../', import.meta.url));
/** The npm package's bin (dist/cli.cjs): the CLI's bundle, run through V8's code cache. */
const BIN = path.join(
  REPO,
  JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')).bin['claude-checkpoint'],
);

/** Node's own modules a run of the bin loaded, and the git commands it ran. */
async function runTraced(args: string[], root: string, storeDir: string) {
  const dir = tempDir('cli-trace-');
  const trace = builtinsTrace();
  // git as the CLI finds it on PATH, writing down each command before it runs (not in a GIT_* variable,
  // which the CLI keeps from git).
  const gitShim = path.join(dir, 'git');
  writeFileSync(
    gitShim,
    `#!/bin/sh\necho "$1 $2" >> "$TRACE_GIT_LOG"\nexec ${JSON.stringify(git(REPO, '--exec-path').trim())}/git "$@"\n`,
  );
  chmodSync(gitShim, 0o755);
  const gitLog = path.join(dir, 'git.log');
  writeFileSync(gitLog, '');
  const result = await runNodeScript(BIN, args, {
    cwd: root,
    env: {
      CHECKPOINT_STORE_DIR: storeDir,
      TRACE_GIT_LOG: gitLog,
      NODE_OPTIONS: `--require=${trace.preload}`,
      PATH: `${dir}${path.delimiter}${process.env.PATH ?? ''}`,
    },
  });
  expect(result.code, result.stderr).toBe(0);
  return {
    builtins: trace.builtins(),
    gitCommands: readFileSync(gitLog, 'utf8').split('\n').filter(Boolean),
  };
}

describe('what the npm bin loads and runs to start', () => {
  it('--help loads none of Node’s process, crypto or compression modules', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const { builtins, gitCommands } = await runTraced(['--help'], root, tempDir('checkpoint-store-'));
    for (const name of ['child_process', 'crypto', 'zlib', 'fs/promises'])
      expect(builtins).not.toContain(name);
    // Its output goes to a pipe here: written to the descriptor, without Node's stream stack (cli/stdio.ts).
    for (const name of ['stream', 'net', 'tty']) expect(builtins).not.toContain(name);
    expect(gitCommands).toEqual([]);
  });

  it('list reads the snapshots from the store’s files: no git process', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const storeDir = tempDir('checkpoint-store-');
    for (const label of ['one', 'two'])
      expect(
        (await runCli(['snapshot', '--label', label], { cwd: root, env: { CHECKPOINT_STORE_DIR: storeDir } }))
          .code,
      ).toBe(0);
    const { builtins, gitCommands } = await runTraced(['list'], root, storeDir);
    expect(gitCommands).toEqual([]);
    expect(builtins).not.toContain('child_process');
    // The store's refs and usage are a folder and a few small files: read synchronously.
    expect(builtins).not.toContain('fs/promises');
    expect(builtins).not.toContain('zlib');
    // The store's folder name is a hash of a path: hashed in JavaScript (src/git/hash.ts).
    expect(builtins).not.toContain('crypto');
    // The snapshots' commits are stored uncompressed (src/git/zlib-stored.ts), and the listing goes to a
    // pipe: neither node:zlib nor Node's stream stack loads.
    for (const name of ['zlib', 'stream', 'net']) expect(builtins).not.toContain(name);
    // The loader gives the bundle its own require(): node:module (with parts of the ES module loader) stays out.
    expect(builtins).not.toContain('module');
    // The store's lock names this machine: from the binding node:os is built on, not node:os (lock-owner.ts).
    expect(builtins).not.toContain('os');
  });

  it('status asks git about the project only: the latest snapshot comes from the store’s state', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const storeDir = tempDir('checkpoint-store-');
    const env = { CHECKPOINT_STORE_DIR: storeDir };
    expect((await runCli(['save', '--goal', 'Ship it'], { cwd: root, env })).code).toBe(0);
    for (const label of ['one', 'two'])
      expect((await runCli(['snapshot', '--label', label], { cwd: root, env })).code).toBe(0);
    writeFileSync(path.join(root, 'a.txt'), 'two\n');
    const { builtins, gitCommands } = await runTraced(['status'], root, storeDir);
    // Its git runs on the process and pipe handles child_process is built on (git/spawn-direct.ts):
    // neither child_process nor the net and stream modules it brings load. On a Node it was not tested
    // on, child_process runs it.
    if (DIRECT_SPAWN_HERE)
      for (const name of ['child_process', 'net', 'stream']) expect(builtins).not.toContain(name);
    else expect(builtins).toContain('child_process');
    expect(builtins).not.toContain('module');
    expect(builtins).not.toContain('fs/promises');
    expect(builtins).not.toContain('zlib');
    expect(builtins).not.toContain('crypto');
    expect(builtins).not.toContain('os');
    // Whether git ignores the checkpoint comes from status's answer (no check-ignore). The traced git
    // is not the system's, whose config and attributes files drift knows: hash-object still settles
    // a.txt (the filter shortcut is tested in test/git/filters.test.ts).
    expect(gitCommands.sort()).toEqual(['hash-object --stdin-paths', 'status --porcelain=v2']);
  });

  it('a snapshot of a few small changed files loads no node:crypto, zlib (git stores them in its update-index) nor fs/promises', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n', 'src/b.ts': 'export {};\n' } });
    const storeDir = tempDir('checkpoint-store-');
    expect((await runCli(['snapshot'], { cwd: root, env: { CHECKPOINT_STORE_DIR: storeDir } })).code).toBe(0);
    writeFileSync(path.join(root, 'a.txt'), 'two\n');
    writeFileSync(path.join(root, 'src', 'c.ts'), 'export const c = 1;\n');
    const { builtins } = await runTraced(['snapshot', '--label', 'small'], root, storeDir);
    expect(builtins).not.toContain('crypto');
    // Its small reads are synchronous: fs/promises loads eight of Node's modules (issue 26).
    expect(builtins).not.toContain('fs/promises');
    expect(builtins).not.toContain('zlib');
    // Where git's own config files are comes from $HOME, and the lock's machine name from Node's binding.
    expect(builtins).not.toContain('os');
    const listed = await runCli(['list'], { cwd: root, env: { CHECKPOINT_STORE_DIR: storeDir } });
    expect(listed.stdout).toMatch(/2 snapshot\(s\)/);
  });
});

/**
 * What a run of the bin did, in order, as seen from inside its process: each git it spawned and the
 * moment the CLI's bundle began to compile.
 */
async function runOrdered(args: string[], root: string, storeDir: string) {
  const dir = tempDir('cli-order-');
  const log = path.join(dir, 'order.log');
  writeFileSync(log, '');
  const preload = path.join(dir, 'preload.cjs');
  writeFileSync(
    preload,
    `const { appendFileSync } = require('node:fs');
const note = (line) => appendFileSync(process.env.ORDER_LOG, line + '\\n');
process.noDeprecation = true;
// Every child process, through child_process or not (git/spawn-direct.ts), starts through this binding.
const { Process } = process.binding('process_wrap');
process.noDeprecation = false;
const spawn = Process.prototype.spawn;
Process.prototype.spawn = function (options) { note('spawn ' + options.file + ' ' + (options.args[1] ?? '')); return spawn.call(this, options); };
const vm = require('node:vm');
const Script = vm.Script;
vm.Script = function (source, options) { note('bundle ' + require('node:path').basename(options.filename)); return new Script(source, options); };
`,
  );
  const result = await runNodeScript(BIN, args, {
    cwd: root,
    env: {
      CHECKPOINT_STORE_DIR: storeDir,
      ORDER_LOG: log,
      NODE_OPTIONS: `--require=${preload}`,
    },
  });
  return { result, order: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

// Only on libuv's handles (git/spawn-direct.ts): the loader carries no child_process path.
describe.skipIf(!DIRECT_SPAWN_HERE)('status starts its git status before the CLI loads', () => {
  const saved = async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const storeDir = tempDir('checkpoint-store-');
    expect(
      (await runCli(['save', '--goal', 'Ship it'], { cwd: root, env: { CHECKPOINT_STORE_DIR: storeDir } }))
        .code,
    ).toBe(0);
    writeFileSync(path.join(root, 'a.txt'), 'two\n');
    return { root, storeDir };
  };

  it('in a project with a checkpoint, one git status, started first and used for the drift', async () => {
    const { root, storeDir } = await saved();
    for (const args of [['status'], ['status', '--json']]) {
      const { result, order } = await runOrdered(args, root, storeDir);
      expect(result.code, result.stderr).toBe(0);
      expect(order.filter((line) => line === 'spawn git status')).toHaveLength(1);
      // The loader's start (cli-start.cjs, which starts git) comes through the code cache too.
      expect(order.slice(0, 3)).toEqual(['bundle cli-start.cjs', 'spawn git status', 'bundle cli-fast.cjs']);
      const changed = args.includes('--json')
        ? JSON.parse(result.stdout).checkpoint.drift.changedSince
        : /1 file\(s\) changed since the save/.exec(result.stdout)?.[0];
      expect(changed).toEqual(args.includes('--json') ? ['a.txt'] : '1 file(s) changed since the save');
    }
  });

  it('not where the root may be another folder, nor without a checkpoint', async () => {
    const { root, storeDir } = await saved();
    const withRoot = await runOrdered(['status', '--root', root], root, storeDir);
    expect(withRoot.result.code, withRoot.result.stderr).toBe(0);
    expect(withRoot.order.slice(0, 2)).toEqual(['bundle cli-start.cjs', 'bundle cli-fast.cjs']);
    expect(withRoot.order.filter((line) => line === 'spawn git status')).toHaveLength(1);
    const bare = createRepo({ committed: { 'a.txt': 'one\n' } });
    const none = await runOrdered(['status'], bare, storeDir);
    expect(none.result.code, none.result.stderr).toBe(0);
    expect(none.order.slice(0, 2)).toEqual(['bundle cli-start.cjs', 'bundle cli-fast.cjs']);
  });
});

describe('V8 tiering in a short command', () => {
  // A command is one short process: V8's optimising compiler, started on code the command merely ran a
  // few hundred times, finished after the process was done with it, on the core git needed (issue 26;
  // cli/short-process-tiering.ts). `--trace-opt` names each function V8 compiles so.
  const optimised = (args: string[], root: string, storeDir: string) => {
    const run = spawnSync(process.execPath, ['--trace-opt', BIN, ...args], {
      cwd: root,
      env: { ...process.env, CHECKPOINT_STORE_DIR: storeDir },
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    return run.stdout.split('\n').filter((line) => /^\[compiling method .*TURBOFAN/.test(line));
  };

  it('status, snapshot and a hook compile nothing with TurboFan; a hot loop still would', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n', 'src/b.ts': 'export {};\n' } });
    const storeDir = tempDir('checkpoint-store-');
    const env = { CHECKPOINT_STORE_DIR: storeDir };
    expect(
      (await runCli(['save', '--goal', 'Ship it', '--task', 'in_progress:start'], { cwd: root, env })).code,
    ).toBe(0);
    for (const label of ['one', 'two'])
      expect((await runCli(['snapshot', '--label', label], { cwd: root, env })).code).toBe(0);
    writeFileSync(path.join(root, 'a.txt'), 'two\n');
    expect(optimised(['status'], root, storeDir)).toEqual([]);
    expect(optimised(['snapshot', '--label', 'three'], root, storeDir)).toEqual([]);
    // A hook doing its own work (no server, no host): the prompt's snapshot and the brief after /clear.
    for (const [event, input] of [
      ['UserPromptSubmit', { cwd: root, prompt: 'go on' }],
      ['SessionStart', { cwd: root, source: 'clear' }],
    ] as const) {
      writeFileSync(path.join(root, 'a.txt'), `${event}\n`);
      const hook = spawnSync(process.execPath, ['--trace-opt', SHIPPED_HOOK_ENTRY, event], {
        cwd: root,
        env: { ...process.env, CHECKPOINT_STORE_DIR: storeDir, CHECKPOINT_HOOK_RELAY: '0' },
        input: JSON.stringify(input),
        encoding: 'utf8',
      });
      expect(hook.status, hook.stderr).toBe(0);
      expect(hook.stdout.split('\n').filter((line) => /^\[compiling method .*TURBOFAN/.test(line))).toEqual(
        [],
      );
    }
    // The same trace does show a compile where there is one: the checks above can fail.
    const hot = spawnSync(
      process.execPath,
      ['--trace-opt', '-e', 'let s = 0; for (let i = 0; i < 5e6; i++) s += i % 7; console.log(s > 0)'],
      { encoding: 'utf8' },
    );
    expect(hot.stdout).toMatch(/TURBOFAN/);
  });

  it('status and list compile none of Node’s functions for a timer, path.relative or .parse, a TextDecoder or a warning', async () => {
    // Node compiles each of its own functions from source on its first call, in every process (its code
    // cache holds only its modules' top levels): about 100K instructions each, where our code comes from
    // our cache (issue 26). `--log-function-events` names each function compiled.
    const { root, storeDir } = await project();
    const env = { CHECKPOINT_STORE_DIR: storeDir };
    const unwanted =
      /^node:(timers|internal\/timers|internal\/priority_queue) |^node:path (relative|parse)$|^node:internal\/encoding TextDecoder$|^node:internal\/process\/warning emitWarning$/;
    // In `status`, nor Buffer's table of encodings, which a named one (`toString('utf8')`) compiles.
    const unwantedInStatus = /^node:buffer getEncodingOps$/;
    const compiled = (args: string[], pattern: RegExp) => {
      const log = path.join(tempDir('function-events-'), 'v8.log');
      const run = spawnSync(
        process.execPath,
        ['--log-function-events', `--logfile=${log}`, '--no-logfile-per-isolate', ...args],
        { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8' },
      );
      expect(run.status, run.stderr).toBe(0);
      const scripts = new Map<string, string>();
      const names: string[] = [];
      for (const line of readFileSync(log, 'utf8').split('\n')) {
        const fields = line.split(',');
        if (fields[0] === 'script-details') scripts.set(fields[1] ?? '', fields[2] ?? '');
        else if (fields[0] === 'function' && fields[1] === 'parse-function')
          names.push(`${scripts.get(fields[2] ?? '')} ${fields[7] ?? ''}`);
      }
      return names.filter((name) => pattern.test(name));
    };
    for (const command of ['status', 'list']) {
      compiled([BIN, command], unwanted); // the code cache, written under these flags
      expect(compiled([BIN, command], unwanted)).toEqual([]);
    }
    expect(compiled([BIN, 'status'], unwantedInStatus)).toEqual([]);
    // The same log names them where a process calls them: the checks above can fail.
    const calls =
      "setTimeout(() => {}, 1); require('node:path').relative('/a', '/b'); new TextDecoder(); process.emitWarning('w'); Buffer.from('a').toString('utf8')";
    expect(compiled(['-e', calls], unwanted).length).toBeGreaterThanOrEqual(4);
    expect(compiled(['-e', calls], unwantedInStatus)).toEqual(['node:buffer getEncodingOps']);
  });

  it('a short process collects its young generation only when it is full, not on a task at 80%', () => {
    // V8 posts a scavenge as a task once the young generation is 80% full: `status` crossed that line
    // near its end and collected objects it was about to drop (2M instructions; issue 26).
    const tiering = pathToFileURL(path.join(path.dirname(BIN), 'cli', 'short-process-tiering.js')).href;
    const script = `import { getHeapSpaceStatistics } from 'node:v8';
const { tuneForShortProcess } = await import(${JSON.stringify(tiering)});
if (process.argv[1] === 'tuned') tuneForShortProcess();
const young = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
const full = () => young().space_used_size / (young().space_used_size + young().space_available_size);
const kept = [];
while (full() < 0.9 && kept.length < 1e6) for (let i = 0; i < 100; i++) kept.push({ i });
for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setTimeout(resolve, 1));`;
    const onTask = (mode: string) => {
      const run = spawnSync(process.execPath, ['--trace-gc', '--input-type=module', '-e', script, mode], {
        encoding: 'utf8',
      });
      expect(run.status, run.stderr).toBe(0);
      return run.stdout.split('\n').filter((line) => /Scavenge.* task;/.test(line));
    };
    expect(onTask('tuned')).toEqual([]);
    // The same trace shows one under V8's default: the check above can fail.
    expect(onTask('default')).not.toEqual([]);
  });

  it('a command compiles each regular expression once, to machine code (no bytecode tiered up later)', () => {
    // A first redaction runs some hundred patterns, most of them twice or more: V8's default compiled
    // each to bytecode, then again to machine code (a fifth of that redaction's instructions).
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    writeFileSync(
      path.join(root, 'notes.txt'),
      `token = "ghp_${'x9Lk2mQ7'.repeat(4)}abcd"\npassword: Xk9mQ2vL8pZ4\n`,
    );
    const tieredUp = (args: string[]) => {
      const run = spawnSync(process.execPath, ['--trace-regexp-tier-up', ...args], {
        cwd: root,
        env: { ...process.env, CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') },
        encoding: 'utf8',
      });
      return run.stdout.split('\n').filter((line) => line.includes('needs tier-up compilation'));
    };
    expect(tieredUp([BIN, 'scan', 'notes.txt'])).toEqual([]);
    // The same trace shows a tier-up where there is one (V8's default): the check above can fail.
    expect(tieredUp(['-e', "const r = /a+b/; for (let i = 0; i < 3; i++) r.exec('xxaab')"])).not.toEqual([]);
  });
});
