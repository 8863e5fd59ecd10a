import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AppDeps, defaultDeps } from '../../src/app/deps.js';
import { loadCheckpoint } from '../../src/app/load.js';
import { listSnapshots, restoreSnapshot, takeSnapshot } from '../../src/app/rewind.js';
import { saveCheckpoint } from '../../src/app/save.js';
import { assertBuilt, CLI } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

/**
 * SIGKILL at random moments in every write path (MCP save, CLI save, each hook, snapshot, restore,
 * gc), and after each kill the next operation must succeed at once: no lock or journal a kill leaves
 * behind may make it wait. CI runs the bounded default; CRASH_RUNS=1000 npm test soaks longer.
 */
const RUNS_PER_PATH = Math.max(4, Math.floor(Number(process.env.CRASH_RUNS ?? 120) / 12));
/**
 * "At once": well below any lock's wait (10 s and up), which is what a lock or journal left by a kill
 * would cost, and above what these calls take on two cores at a load of 9 (issue 26: 1 s did not hold).
 */
const AT_ONCE_MS = 5_000;
const SERVER = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

beforeAll(assertBuilt);

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 2246822507) + 0x9e3779b9) >>> 0;
    return state / 4294967296;
  };
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('close', () => resolve());
  });
}

/** Runs a CLI process with `input` on stdin and kills it `afterMs` after it starts. */
async function killCliAfter(
  args: string[],
  cwd: string,
  env: Record<string, string>,
  afterMs: number,
  input = '',
) {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  child.stdin?.end(input);
  const timer = setTimeout(() => child.kill('SIGKILL'), afterMs);
  await exited(child);
  clearTimeout(timer);
}

/** Starts the stdio server, sends a stream of merge saves, and kills it while they are in flight. */
async function killServerMidSaves(root: string, env: Record<string, string>, afterMs: number) {
  const child = spawn(process.execPath, [SERVER], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const send = (message: object) => child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  child.stdin?.on('error', () => undefined);
  send({
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'crash-test', version: '1' },
    },
  });
  await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
  send({ method: 'notifications/initialized' });
  for (let id = 1; id <= 30; id++)
    send({
      id,
      method: 'tools/call',
      params: {
        name: 'save_session_checkpoint',
        arguments: { goal: 'mcp', mode: 'merge', projectRoot: root, recentCommands: [{ command: `c${id}` }] },
      },
    });
  const timer = setTimeout(() => child.kill('SIGKILL'), afterMs);
  await exited(child);
  clearTimeout(timer);
}

/** Runs `operation` and requires it to succeed within AT_ONCE_MS. */
async function atOnce<T>(what: string, operation: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await operation();
  const elapsed = performance.now() - started;
  expect(elapsed, `${what} took ${Math.round(elapsed)} ms after a kill`).toBeLessThan(AT_ONCE_MS);
  return result;
}

async function nextSaveAndLoad(deps: AppDeps, root: string, run: number) {
  await atOnce('the next save', () =>
    saveCheckpoint(deps, {
      goal: 'after a kill',
      mode: 'merge',
      projectRoot: root,
      decisions: [`run ${run}`],
    }),
  );
  const loaded = await atOnce('the next load', () => loadCheckpoint(deps, { projectRoot: root }));
  expect(loaded.found).toBe(true);
}

async function nextSnapshotAndRestore(deps: AppDeps, root: string, run: number) {
  writeFileSync(path.join(root, 'touched.txt'), `run ${run}\n`);
  await atOnce('the next snapshot', () => takeSnapshot(deps, { projectRoot: root, trigger: 'manual' }));
  const { snapshots } = await listSnapshots(deps, { projectRoot: root });
  const oldest = snapshots.at(-1)?.id ?? 'latest';
  await atOnce('the next restore', () =>
    restoreSnapshot(deps, { projectRoot: root, snapshotId: oldest, dryRun: false }),
  );
}

describe(`kills in every write path, and the next operation succeeds at once (${RUNS_PER_PATH} kills per path)`, () => {
  const checkpointPaths: Array<
    [string, (root: string, env: Record<string, string>, ms: number) => Promise<void>]
  > = [
    ['a save over MCP (stdio server)', (root, env, ms) => killServerMidSaves(root, env, 120 + ms)],
    [
      'a save through the CLI',
      (root, env, ms) =>
        killCliAfter(['save', '--goal', 'cli', '--merge', '--decision', `d${ms}`], root, env, 60 + ms),
    ],
    [
      'the PostToolUse hook',
      (root, env, ms) =>
        killCliAfter(
          ['hook', 'PostToolUse'],
          root,
          env,
          60 + ms,
          JSON.stringify({
            cwd: root,
            tool_name: 'Bash',
            tool_input: { command: `make ${ms}` },
            tool_response: {},
          }),
        ),
    ],
    [
      'the PreCompact hook',
      (root, env, ms) =>
        killCliAfter(
          ['hook', 'PreCompact'],
          root,
          env,
          60 + ms,
          JSON.stringify({ cwd: root, trigger: 'auto' }),
        ),
    ],
  ];

  it.each(checkpointPaths)(
    '%s',
    async (_name, kill) => {
      const root = createRepo({ committed: { 'a.ts': 'a' }, dirty: { 'b.ts': 'b' } });
      const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
      const deps = defaultDeps({ env });
      await saveCheckpoint(deps, { goal: 'initial', projectRoot: root });
      const random = seeded(_name.length * 7919);
      for (let run = 0; run < RUNS_PER_PATH; run++) {
        await kill(root, env, Math.floor(random() * 250));
        await nextSaveAndLoad(deps, root, run);
      }
    },
    300_000,
  );

  const rewindPaths: Array<
    [string, (root: string, env: Record<string, string>, ms: number) => Promise<void>]
  > = [
    ['a snapshot through the CLI', (root, env, ms) => killCliAfter(['snapshot'], root, env, 60 + ms)],
    [
      'the UserPromptSubmit hook',
      (root, env, ms) =>
        killCliAfter(
          ['hook', 'UserPromptSubmit'],
          root,
          env,
          60 + ms,
          JSON.stringify({ cwd: root, prompt: `p${ms}` }),
        ),
    ],
    [
      'a restore through the CLI',
      (root, env, ms) => killCliAfter(['restore', 'latest', '--yes'], root, env, 60 + ms),
    ],
    ['gc through the CLI', (root, env, ms) => killCliAfter(['gc'], root, env, 60 + ms)],
  ];

  it.each(rewindPaths)(
    '%s',
    async (_name, kill) => {
      const root = createRepo({ committed: { 'a.ts': 'a', 'lib/b.ts': 'b' } });
      const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
      const deps = defaultDeps({ env });
      await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
      const random = seeded(_name.length * 104729);
      for (let run = 0; run < RUNS_PER_PATH; run++) {
        // Something for the killed call to write: changed and new files.
        for (let file = 0; file < 20; file++)
          writeFileSync(path.join(root, `f${file}.txt`), `${run} ${file}\n`);
        await kill(root, env, Math.floor(random() * 300));
        await nextSnapshotAndRestore(deps, root, run);
        await nextSaveAndLoad(deps, root, run);
      }
    },
    300_000,
  );
});
