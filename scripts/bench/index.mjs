#!/usr/bin/env node
// npm run bench [-- --quick] [--sizes S,M,L[,XL]] [--repeats N] [--sections sizes,history,big,restore,other]
//
// XL (1,000,000 files, about 4 GB) runs only when named in --sizes, never in CI, and is skipped with a
// message when the disk has not room for it. --sections picks what to run (all by default; `restore`
// is big's 25 MB restore row alone). --no-cold leaves out the first-snapshot rows (at XL the
// shadow-git floor alone writes a million objects).
//
// Measures each cost of ours side by side with its floor, in the same run, interleaved, and reports
// ratios (ours / floor), because absolute times on shared machines are noise. Writes
// bench-results/results.json and bench-results/report.md (with an SVG chart of growth from S to L).
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchCliStartup, cliBin } from './cli-startup.mjs';
import { plainNodeNote, usePlainNode } from './plain-node.mjs';
import { redactionCheckpointFields } from './redaction-checkpoint.mjs';
import { dirty, ensureRepo, reset } from './repo.mjs';
import { benchBigRestore, benchFirstAndBig, benchLongHistory, freeBytes } from './scale.mjs';
import { benchTranscripts, makeBenchProject, saveWithCli } from './transcript.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const project = path.resolve(here, '../..');
const dist = (file) => path.join(project, 'dist', file);
/** The CLI as npm installs it (package.json's bin). */
const cli = cliBin(project);

const removedFromEnv = usePlainNode();
const args = process.argv.slice(2);
const flag = (name) => {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
};
const quick = args.includes('--quick');
const sizes = (flag('--sizes') ?? (quick ? 'S' : 'S,M,L')).split(',');
const repeats = Number(flag('--repeats') ?? (quick ? 3 : 5));
const hookRounds = repeats * 3;
const skipCold = args.includes('--no-cold');
const sections = new Set((flag('--sections') ?? 'sizes,history,big,other').split(','));
const cacheDir = path.join(project, '.cache', 'bench');
const outDir = path.join(project, 'bench-results');
mkdirSync(cacheDir, { recursive: true });
mkdirSync(outDir, { recursive: true });

const { defaultDeps } = await import(dist('app/deps.js'));
const { takeSnapshot } = await import(dist('app/rewind.js'));
const { SnapshotStore } = await import(dist('store/snapshot-store.js'));
const { projectStoreDir } = await import(dist('store/store-location.js'));
const { renderResumeBrief } = await import(dist('core/brief.js'));
const { parseCheckpoint } = await import(dist('core/schema.js'));
const { LIMITS } = await import(dist('core/limits.js'));
const { Redactor } = await import(dist('core/redact.js'));
const { QUIET_MS } = await import(dist('git/oid.js'));
const { isListening, relaySocketPath } = await import(dist('store/relay-socket.js'));
const net = await import('node:net');
const { Client } = await import('@modelcontextprotocol/client');
const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');

const now = () => performance.now();
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const log = (text) => process.stderr.write(`${text}\n`);

/**
 * Runs `ours` and `floor` alternately (order swapped each round) and keeps both samples. `hooks.round`
 * runs once before each round, `hooks.each` before each side; neither is timed. `reference` (a name and
 * a run), when given, is measured in the same rounds for the report: what part of the ratio something
 * every way of doing the work must do already takes.
 */
async function paired(name, rounds, hooks, ours, floor, reference) {
  const runs = { ours, floor, ...(reference ? { reference: reference.run } : {}) };
  const samples = Object.fromEntries(Object.keys(runs).map((which) => [which, []]));
  for (let round = 0; round < rounds; round++) {
    await hooks?.round?.(round);
    const order = Object.keys(runs);
    if (round % 2 === 1) order.reverse();
    for (const which of order) {
      await hooks?.each?.(round, which);
      const start = now();
      await runs[which](round);
      samples[which].push(now() - start);
    }
  }
  const result = {
    name,
    oursMs: median(samples.ours),
    floorMs: median(samples.floor),
    oursSpreadMs: [Math.min(...samples.ours), Math.max(...samples.ours)],
    floorSpreadMs: [Math.min(...samples.floor), Math.max(...samples.floor)],
  };
  result.ratio = result.oursMs / result.floorMs;
  if (reference) {
    result.reference = { name: reference.name, ms: median(samples.reference) };
    result.reference.ratio = result.reference.ms / result.floorMs;
  }
  log(
    `  ${name}: ours ${result.oursMs.toFixed(1)} ms, floor ${result.floorMs.toFixed(1)} ms, ratio ${result.ratio.toFixed(2)}${
      result.reference
        ? `; ${result.reference.name} ${result.reference.ms.toFixed(1)} ms (${result.reference.ratio.toFixed(2)}x the floor)`
        : ''
    }`,
  );
  return result;
}

/** The peers' snapshot: `git add -A` + `write-tree` into a separate git dir with its own index. */
function shadowGitSnapshot(gitDir, root) {
  execFileSync('git', ['--git-dir', gitDir, '--work-tree', root, 'add', '-A'], { stdio: 'ignore' });
  execFileSync('git', ['--git-dir', gitDir, '--work-tree', root, 'write-tree'], { stdio: 'ignore' });
}

function initShadow(gitDir) {
  rmSync(gitDir, { recursive: true, force: true });
  execFileSync('git', ['init', '-q', '--bare', gitDir]);
  execFileSync('git', ['--git-dir', gitDir, 'config', 'core.bare', 'false']);
}

/** The drift floor: one `git status --porcelain=v2 -z` plus hashing the dirty files in one pass. */
function driftFloor(root) {
  const status = execFileSync('git', ['status', '--porcelain=v2', '-z', '--untracked-files=all'], {
    cwd: root,
    maxBuffer: 1024 * 1024 * 1024,
  }).toString('utf8');
  for (const record of status.split('\0')) {
    const file = record.startsWith('? ')
      ? record.slice(2)
      : record.startsWith('1 ')
        ? record.split(' ').slice(8).join(' ')
        : null;
    if (!file) continue;
    try {
      const content = readFileSync(path.join(root, file));
      createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
    } catch {}
  }
}

/** What XL needs on disk: the tree, its repository, the store and the shadow-git floor. */
const XL_NEEDS_BYTES = 16 * 1024 ** 3;

async function benchSize(size) {
  if (
    size === 'XL' &&
    !existsSync(path.join(cacheDir, 'repo-XL.ready')) &&
    freeBytes(cacheDir) < XL_NEEDS_BYTES
  ) {
    log(
      `\n[XL] skipped: it needs about ${XL_NEEDS_BYTES / 1024 ** 3} GB free in ${cacheDir}, and ${(freeBytes(cacheDir) / 1024 ** 3).toFixed(1)} GB are`,
    );
    return null;
  }
  log(`\n[${size}] preparing the repository (cached after the first run)…`);
  const { root, files } = ensureRepo(cacheDir, size);
  reset(root);
  const results = [];
  const storeBase = path.join(cacheDir, `store-${size}`);
  const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: storeBase, HOME: os.homedir() } });
  const shadowDir = path.join(cacheDir, `shadow-${size}`);
  const coldRounds = size === 'L' || size === 'XL' ? 1 : Math.min(3, repeats);
  // At XL every row scans a million files: fewer rounds, and the hooks with the server and without any.
  const rounds = size === 'XL' ? Math.min(repeats, 3) : repeats;
  const sizeHookRounds = size === 'XL' ? 3 : hookRounds;

  // Cold: a first snapshot into an empty store, ours and the peers'.
  if (!skipCold)
    results.push(
      await paired(
        'snapshot, cold (first)',
        coldRounds,
        {
          each: (_round, which) => {
            if (which === 'ours') rmSync(storeBase, { recursive: true, force: true });
            else initShadow(shadowDir);
          },
        },
        () => takeSnapshot(deps, { projectRoot: root, trigger: 'manual' }),
        () => shadowGitSnapshot(shadowDir, root),
      ),
    );

  if (skipCold) {
    // Both sides start warm, untimed: ours from its first snapshot, the shadow from the repository's
    // own index and objects (what a first `add -A` would have left it).
    rmSync(storeBase, { recursive: true, force: true });
    await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    initShadow(shadowDir);
    mkdirSync(path.join(shadowDir, 'objects', 'info'), { recursive: true });
    writeFileSync(
      path.join(shadowDir, 'objects', 'info', 'alternates'),
      `${path.join(root, '.git', 'objects')}\n`,
    );
    copyFileSync(path.join(root, '.git', 'index'), path.join(shadowDir, 'index'));
    shadowGitSnapshot(shadowDir, root);
  }

  // Warm: the same 10 files changed since each side's previous snapshot.
  results.push(
    await paired(
      'snapshot, warm (10 files changed)',
      rounds,
      { round: (round) => dirty(root, files, 10, 1000 + round) },
      () => takeSnapshot(deps, { projectRoot: root, trigger: 'prompt' }),
      () => shadowGitSnapshot(shadowDir, root),
    ),
  );

  // Unchanged: nothing changed since the last snapshot; the floor is a plain `git status`.
  await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt' });
  results.push(
    await paired(
      'snapshot, unchanged tree',
      rounds,
      null,
      () => takeSnapshot(deps, { projectRoot: root, trigger: 'prompt' }),
      () => execFileSync('git', ['status', '--porcelain'], { cwd: root, stdio: 'ignore' }),
    ),
  );

  // Restore 10 files, against copying those 10 files.
  const store = new SnapshotStore(root, projectStoreDir(storeBase, root), {
    maxCount: 100,
    maxAgeDays: 30,
    maxFileBytes: 20 * 1024 * 1024,
  });
  const target = (await store.list())[0];
  const copies = path.join(cacheDir, `copies-${size}`);
  mkdirSync(copies, { recursive: true });
  let restoreFiles = [];
  let currentTree = '';
  results.push(
    await paired(
      'restore of 10 files (apply)',
      rounds,
      {
        // Each side finds 10 files changed since the snapshot and puts them back.
        each: async (round, which) => {
          restoreFiles = dirty(
            root,
            files.slice(0, 5000),
            11,
            5000 + round * 2 + (which === 'ours' ? 0 : 1),
          ).filter((file) => !file.startsWith('scratch/'));
          if (which === 'ours') currentTree = (await store.capture()).tree;
          else
            for (const [index, file] of restoreFiles.entries())
              copyFileSync(path.join(root, file), path.join(copies, `f${index}`));
        },
      },
      async () => {
        const changes = await store.changesBetween(currentTree, target.tree, restoreFiles);
        await store.apply(changes);
      },
      () => {
        for (const [index, file] of restoreFiles.entries())
          copyFileSync(path.join(copies, `f${index}`), path.join(root, file));
      },
    ),
  );
  reset(root);

  // Save and load over MCP with 1,000 dirty files, against the drift floor. First with the files written
  // again just before each round (a save reads them all), then with files settled as they are in a
  // session (written more than QUIET_MS before: a save reads only what changed since the last one).
  dirty(root, files, 1000, 9000);
  const client = await connectServer(root);
  const saveArgs = { goal: 'Benchmark', tasks: [{ description: 'measure', status: 'in_progress' }] };
  await client.callTool({ name: 'save_session_checkpoint', arguments: saveArgs });
  results.push(
    await paired(
      'save over MCP (1,000 files just written)',
      rounds,
      // The same files and bytes each round, written again: only their times change.
      { round: () => dirty(root, files, 1000, 9000) },
      () => client.callTool({ name: 'save_session_checkpoint', arguments: saveArgs }),
      () => driftFloor(root),
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS + 100));
  await client.callTool({ name: 'save_session_checkpoint', arguments: saveArgs });
  results.push(
    await paired(
      'save over MCP (1,000 dirty files)',
      rounds,
      null,
      () => client.callTool({ name: 'save_session_checkpoint', arguments: saveArgs }),
      () => driftFloor(root),
    ),
  );
  results.push(
    await paired(
      'load over MCP (1,000 dirty files)',
      rounds,
      null,
      () => client.callTool({ name: 'load_session_checkpoint', arguments: {} }),
      () => driftFloor(root),
    ),
  );
  await client.close();

  // The hooks, as the plugin runs them: a `node` process of hook.cjs per event, against `node -e 0`.
  // In a session the plugin's MCP server runs beside them and the hooks hand it their events (the
  // relay). Without a server, the first hook starts a hook host that takes the ones after it ("no
  // server"); with hosts turned off too, each hook runs on its own ("no server, no host"). Three times
  // the rounds: a process start is short and the noisiest thing measured here.
  const hookEnv = { ...process.env, CHECKPOINT_STORE_DIR: storeBase, CLAUDE_PROJECT_DIR: root };
  const server = await connectServer(root, hookEnv);
  await server.callTool({ name: 'load_session_checkpoint', arguments: {} });
  const nodeBare = () => runNode(['-e', '0'], root, process.env, '');
  const bashInput = { cwd: root, tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_response: {} };
  const promptInput = { cwd: root, prompt: 'benchmark prompt' };
  const preToolInput = (command) => ({ cwd: root, tool_name: 'Bash', tool_input: { command } });
  const socket = relaySocketPath(hookEnv, realpathSync(root));
  const passes = [
    ['', hookEnv, 20000],
    // Other changes than the first pass's: content the stores already hold would cost less.
    // A host idle for 3 s ends: after its rows, well before the next ones.
    [', no server', { ...hookEnv, CHECKPOINT_HOOK_HOST: '1', CHECKPOINT_HOOK_HOST_IDLE_SECONDS: '3' }, 30000],
    [', no server, no host', { ...hookEnv, CHECKPOINT_HOOK_RELAY: '0' }, 40000],
  ];
  for (const [suffix, env, seeds] of size === 'XL' ? [passes[0], passes[2]] : passes) {
    const hook = (event, input) => () => runNode([hookEntry, event], root, env, JSON.stringify(input));
    if (suffix === ', no server') {
      await server.close();
      // The first hook without a server starts the host; the rows measure the hooks after it.
      await hook('PostToolUse', bashInput)();
      await waitForSocket(socket, true);
    }
    if (suffix === ', no server, no host') {
      if (size === 'XL') await server.close();
      await waitForSocket(socket, false);
    }
    results.push(
      await paired(
        `hook PostToolUse (Bash), process${suffix}`,
        sizeHookRounds,
        null,
        hook('PostToolUse', bashInput),
        nodeBare,
        // A `node` that loads node:net and opens the relay's socket (the server takes a connection that
        // sends nothing as no request): a relayed hook's least while it used node:net, which its entry
        // no longer loads (it speaks through the pipe binding, hooks/relay-pipe.ts).
        suffix === ''
          ? {
              name: 'a `node` that only loads node:net and connects to the server',
              run: () => runNode(['-e', SOCKET_CONNECT, socket], root, process.env, ''),
            }
          : undefined,
      ),
    );
    results.push(
      await paired(
        `hook SessionStart (after /clear), process${suffix}`,
        sizeHookRounds,
        null,
        hook('SessionStart', { cwd: root, source: 'clear' }),
        nodeBare,
      ),
    );
    // The PreToolUse hook (issue 25): a harmless command ends in the loader, before the relay or the bundle
    // (the same in every pass, so measured once); a destructive one waits for its snapshot, measured like
    // the prompt hook's below.
    if (suffix === '')
      results.push(
        await paired(
          'hook PreToolUse (harmless Bash), process',
          sizeHookRounds,
          null,
          hook('PreToolUse', preToolInput('npm test 2>&1 | tail -20')),
          nodeBare,
        ),
      );
    results.push(
      await paired(
        `hook PreToolUse (destructive Bash, snapshot), process${suffix}`,
        sizeHookRounds,
        { round: (round) => dirty(root, files, 10, seeds + 5000 + round) },
        hook('PreToolUse', preToolInput('rm -rf build')),
        () => runNode(['-e', MINIMAL_SNAPSHOT, shadowDir, root], root, process.env, ''),
      ),
    );
    // The prompt hook's snapshot against the least a snapshotting hook can be: `node` running the peers'
    // shadow-git snapshot. Both see the same 10 files changed since their previous snapshot.
    results.push(
      await paired(
        `hook UserPromptSubmit (snapshot), process${suffix}`,
        sizeHookRounds,
        { round: (round) => dirty(root, files, 10, seeds + round) },
        hook('UserPromptSubmit', promptInput),
        () => runNode(['-e', MINIMAL_SNAPSHOT, shadowDir, root], root, process.env, ''),
      ),
    );
  }
  // A person's `claude-checkpoint snapshot` (issue 26): the npm bin's process, which snapshots in itself
  // (no server, no host), against the same floor as the prompt hook's, both seeing the same 10 files
  // changed since their previous snapshot.
  results.push(
    await paired(
      'CLI snapshot (10 files changed), process',
      sizeHookRounds,
      { round: (round) => dirty(root, files, 10, 50000 + round) },
      () => runNode([cli, 'snapshot'], root, hookEnv, ''),
      () => runNode(['-e', MINIMAL_SNAPSHOT, shadowDir, root], root, process.env, ''),
    ),
  );
  rmSync(path.join(root, '.claude-checkpoint'), { force: true });
  rmSync(path.join(root, '.claude-checkpoint.prev'), { force: true });
  reset(root);
  return results;
}

/** Waits (up to 10 s) until something listens on the relay's socket, or until nothing does. */
async function waitForSocket(socket, listening) {
  for (let waited = 0; (await isListening(socket, net)) !== listening && waited < 10_000; waited += 50)
    await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Our MCP server, started in `cwd` over stdio as an agent starts it (`env`: the SDK's default otherwise). */
async function connectServer(cwd, env) {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [dist('index.js')],
      cwd,
      ...(env ? { env } : {}),
      stderr: 'ignore',
    }),
  );
  // A tool that answered with an error measured nothing: stop rather than report its time. XL's calls
  // may outlast the SDK's 60 s default.
  const callTool = client.callTool.bind(client);
  client.callTool = async (params) => {
    const result = await callTool(params, undefined, { timeout: 30 * 60_000 });
    if (result.isError)
      throw new Error(`${params.name} failed: ${JSON.stringify(result.content).slice(0, 500)}`);
    return result;
  };
  return client;
}

const hookEntry = path.join(project, 'plugin', 'dist', 'hook.cjs');
/** A node process that connects to a unix socket and closes: the floor of any hook handed to a server. */
const SOCKET_CONNECT = `const connection = require('node:net').createConnection(process.argv[1], () => connection.end());
connection.on('error', () => process.exit(1));`;
/** A node process that takes the peers' shadow-git snapshot: the floor of a snapshotting hook. */
const MINIMAL_SNAPSHOT = `const { execFileSync } = require('node:child_process');
const [gitDir, root] = process.argv.slice(1);
for (const args of [['add', '-A'], ['write-tree']])
  execFileSync('git', ['--git-dir', gitDir, '--work-tree', root, ...args], { stdio: 'ignore' });`;

function runNode(args, cwd, env, input) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('error', reject);
    child.on('close', resolve);
    // A floor that reads no input (`node -e 0`) may be gone before its empty input is ended: EPIPE, which
    // crashed the bench once in CI. What a process reads of its input is its own affair.
    child.stdin.on('error', (error) => {
      if (error.code !== 'EPIPE') reject(error);
    });
    child.stdin.end(input);
  });
}

/** Server start to first tool result, against `node` loading the MCP SDK and exiting. */
async function benchStartup() {
  const dir = path.join(cacheDir, 'startup');
  mkdirSync(dir, { recursive: true });
  const startServer = async () => {
    const client = await connectServer(dir);
    await client.callTool({ name: 'load_session_checkpoint', arguments: {} });
    await client.close();
  };
  const loadSdk = () =>
    new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          "await import('@modelcontextprotocol/server'); await import('@modelcontextprotocol/server/stdio');",
        ],
        {
          cwd: project,
          stdio: 'ignore',
        },
      );
      child.on('error', reject);
      child.on('close', resolve);
    });
  return paired('server start to first tool result', Math.max(repeats, 5), null, startServer, loadSdk);
}

/**
 * Redacting a full 64 KB checkpoint: every free-text field a save redacts (goal, 30 tasks, summary, 20
 * next steps, 20 decisions, file notes, 50 commands with notes), each filled to its limit with lines from
 * the redaction corpus (nine harmless lines for each secret) until the whole is 64 KB. The floor is one
 * pass of a single simple pattern over the same fields, the least any scanner can do.
 */
async function benchRedaction() {
  const { fields, bytes } = redactionCheckpointFields(project, LIMITS);
  const simple = /\bghp_[A-Za-z0-9]{36}\b/g;
  const result = await paired(
    'redact a full 64 KB checkpoint',
    Math.max(repeats * 6, 31),
    null,
    () => {
      const redactor = new Redactor();
      for (const field of fields) redactor.text(field);
    },
    () => {
      for (const field of fields) field.replace(simple, '');
    },
  );
  return { ...result, fields: fields.length, bytes, targetMs: 5 };
}

function benchBriefs() {
  const example = parseCheckpoint(
    readFileSync(path.join(project, 'test/fixtures/spec-example.json'), 'utf8'),
  );
  const drift = {
    branchChanged: false,
    currentBranch: 'feat/github-oauth',
    commitsSince: 1,
    changedSince: ['src/auth/session.ts'],
    savedHeadReachable: true,
  };
  const at = new Date(Date.parse(example.updatedAt) + 125_000);
  const exampleBytes = Buffer.byteLength(renderResumeBrief({ checkpoint: example, drift, now: at }));
  const long = (n) => 'x'.repeat(n);
  const full = {
    ...example,
    goal: {
      primary: long(LIMITS.goalChars),
      tasks: Array.from({ length: LIMITS.tasks }, (_, i) => ({
        description: `${i} ${long(LIMITS.taskDescriptionChars - 4)}`,
        status: 'pending',
      })),
    },
    summary: long(LIMITS.summaryChars),
    nextSteps: Array.from({ length: LIMITS.nextSteps }, () => long(LIMITS.nextStepChars)),
    decisions: Array.from({ length: LIMITS.decisions }, () => long(LIMITS.decisionChars)),
    modifiedFiles: Array.from({ length: 100 }, (_, i) => ({
      path: `src/${long(60)}/${i}.ts`,
      status: 'M',
      source: 'git',
      note: long(100),
    })),
    recentCommands: Array.from({ length: LIMITS.recentCommands }, () => ({
      command: long(300),
      exitCode: 1,
      note: long(100),
    })),
  };
  const fullChars = renderResumeBrief({
    checkpoint: full,
    drift: { ...drift, changedSince: full.modifiedFiles.map((f) => f.path) },
    now: at,
  }).length;
  return { exampleBytes, fullChars };
}

/** One small chart per measure: ours and the floor, in ms on a log scale, from S to L. */
function svgChart(bySize) {
  const sizes = Object.keys(bySize);
  const names = [
    ...new Set(
      Object.values(bySize)
        .flat()
        .map((r) => r.name),
    ),
  ];
  const cell = { w: 230, h: 150 };
  const columns = 3;
  const width = columns * cell.w + 20;
  const height = Math.ceil(names.length / columns) * cell.h + 40;
  const all = Object.values(bySize)
    .flat()
    .flatMap((r) => [r.oursMs, r.floorMs])
    .filter((v) => v > 0);
  const lo = Math.log10(Math.max(0.1, Math.min(...all)));
  const hi = Math.log10(Math.max(...all)) + 0.1;
  const parts = [];
  names.forEach((name, index) => {
    const x0 = 10 + (index % columns) * cell.w;
    const y0 = 30 + Math.floor(index / columns) * cell.h;
    const px = (i) => x0 + 30 + (sizes.length === 1 ? 80 : (i * 160) / (sizes.length - 1));
    const py = (ms) => y0 + 110 - ((Math.log10(Math.max(ms, 0.1)) - lo) / (hi - lo)) * 90;
    parts.push(`<text x="${x0}" y="${y0 + 10}" font-size="11" font-weight="bold">${name}</text>`);
    for (const [key, color] of [
      ['floorMs', '#999'],
      ['oursMs', '#1d4a7a'],
    ]) {
      const points = sizes
        .map((size, i) => {
          const row = bySize[size].find((r) => r.name === name);
          return row ? `${px(i).toFixed(1)},${py(row[key]).toFixed(1)}` : null;
        })
        .filter(Boolean);
      parts.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${points.join(' ')}"/>`);
      for (const point of points) {
        const [cx, cy] = point.split(',');
        parts.push(`<circle cx="${cx}" cy="${cy}" r="3" fill="${color}"/>`);
      }
    }
    for (const [i, size] of sizes.entries()) {
      parts.push(`<text x="${px(i) - 4}" y="${y0 + 128}" font-size="10">${size}</text>`);
    }
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif"><text x="10" y="18" font-size="13" font-weight="bold">Cost by repository size, ms (log scale): ours (blue) and the floor (grey)</text>${parts.join('')}</svg>\n`;
}

/** One line per measure, one column per size: how each cost grows from S to XL. */
function growthTable(bySize) {
  const sizes = Object.keys(bySize);
  if (sizes.length === 0) return '(no sizes measured)';
  const names = [
    ...new Set(
      Object.values(bySize)
        .flat()
        .map((row) => row.name),
    ),
  ];
  const lines = [`| measure | ${sizes.join(' | ')} |`, `|---|${sizes.map(() => '---|').join('')}`];
  for (const name of names) {
    const cells = sizes.map((size) => {
      const row = bySize[size].find((r) => r.name === name);
      return row
        ? `${row.oursMs < 10 ? row.oursMs.toFixed(1) : row.oursMs.toFixed(0)} ms (${row.ratio.toFixed(2)}×)`
        : '–';
    });
    lines.push(`| ${name} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

const TARGETS = {
  'load over MCP (1,000 dirty files)': 1.25,
  'save over MCP (1,000 dirty files)': 1.3,
  'snapshot, warm (10 files changed)': 1.0,
  'snapshot, unchanged tree': 1.2,
  'server start to first tool result': 1.5,
  'hook PostToolUse (Bash), process': 1.3,
  'hook UserPromptSubmit (snapshot), process': 1.0,
  'hook PostToolUse (Bash), process, no server': 1.3,
  'hook UserPromptSubmit (snapshot), process, no server': 1.0,
  'hook PostToolUse (Bash), process, no server, no host': 1.3,
  'hook UserPromptSubmit (snapshot), process, no server, no host': 1.0,
  'hook PreToolUse (harmless Bash), process': 1.3,
  'hook PreToolUse (destructive Bash, snapshot), process': 1.0,
  'hook PreToolUse (destructive Bash, snapshot), process, no server': 1.0,
  'hook PreToolUse (destructive Bash, snapshot), process, no server, no host': 1.0,
  'CLI snapshot (10 files changed), process': 1.0,
};

const bySize = {};
if (sections.has('sizes'))
  for (const size of sizes) {
    const rows = await benchSize(size);
    if (rows) bySize[size] = rows;
  }
const scale = { history: [], big: [] };
if (sections.has('history')) {
  log('\n[long histories]');
  const { root } = ensureRepo(cacheDir, 'S');
  reset(root);
  scale.history = await benchLongHistory({
    dist,
    cli,
    root,
    cacheDir,
    repeats: quick ? 1 : repeats,
    log,
    // CI's smoke run: the same code on a short history.
    counts: quick ? [20, 60] : [100, 10_000],
  });
}
if (sections.has('big') && !quick) {
  log('\n[first snapshot without git, restore of a 25 MB file]');
  scale.big = await benchFirstAndBig({ cli, cacheDir, repeats, log });
} else if (sections.has('restore') && !quick) {
  // The 25 MB restore row alone, without the slower first snapshot of 10,000 files.
  log('\n[restore of a 25 MB file]');
  scale.big = await benchBigRestore({ cli, cacheDir, repeats, log });
}
const growth = growthTable(bySize);
const scaleLines = [
  '| measure | ours (median) | floor (median) | ratio | target |',
  '|---|---|---|---|---|',
  ...[...scale.history, ...scale.big].map(
    (row) =>
      `| ${row.name} | ${row.oursMs.toFixed(0)} ms | ${row.floorMs.toFixed(0)} ms | ${row.ratio.toFixed(2)}× | ${row.name.includes('snapshots vs') ? '< 2×' : '≈ 1×'} |`,
  ),
];
const scaleReport = `# Scale\n\n${new Date().toISOString()} · git ${execFileSync('git', ['--version']).toString().trim()}\n\nCost growth by repository size (ours, median; ratio to the same-run floor in brackets):\n\n${growth}\n\nLong histories (CLI processes on a store of 10,000 snapshots against one of 100; the floor column is the 100-snapshot store), the first snapshot of a folder without git (floor: \`git add -A\` + \`write-tree\` into a fresh git dir), and restoring one 25 MB file (floor: a warm snapshot of the changed file, as the restore takes for undo, then copying it back):\n\n${scaleLines.join('\n')}\n`;
writeFileSync(path.join(outDir, 'scale.md'), scaleReport);
writeFileSync(path.join(outDir, 'scale.json'), `${JSON.stringify({ sizes: bySize, ...scale }, null, 2)}\n`);
process.stdout.write(`\n${scaleReport}`);
if (!sections.has('other')) process.exit(0);

const startup = await benchStartup();
log('\n[CLI start-up]');
const cliStartup = await benchCliStartup({
  cli,
  dir: path.join(cacheDir, 'cli-startup'),
  rounds: hookRounds,
  log,
});
const briefs = benchBriefs();
log('\n[redaction]');
const redaction = await benchRedaction();
log('\n[transcripts]');
const transcripts = await benchTranscripts({
  cacheDir,
  repeats: Math.min(repeats, 5),
  hookEntry,
  makeProject: (name) => makeBenchProject(cacheDir, name),
  saveCheckpoint: saveWithCli(cli),
  log,
  quick,
});
const machine = {
  cpus: os.cpus().length,
  cpu: os.cpus()[0]?.model ?? 'unknown',
  memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  node: process.version,
  platform: `${os.platform()} ${os.release()}`,
  git: execFileSync('git', ['--version']).toString().trim(),
  removedFromEnv,
};
const results = {
  date: new Date().toISOString(),
  machine,
  repeats,
  sizes: bySize,
  startup,
  cliStartup,
  briefs,
  redaction,
  transcripts,
  targets: TARGETS,
};
writeFileSync(path.join(outDir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(path.join(outDir, 'growth.svg'), svgChart(bySize));

const lines = [
  '| size | measure | ours (median) | floor (median) | ratio | target |',
  '|---|---|---|---|---|---|',
];
for (const [size, rows] of Object.entries(bySize)) {
  for (const row of rows) {
    const target = TARGETS[row.name] ? `≤ ${TARGETS[row.name]}×` : '';
    lines.push(
      `| ${size} | ${row.name} | ${row.oursMs.toFixed(1)} ms | ${row.floorMs.toFixed(1)} ms | ${row.ratio.toFixed(2)}× | ${target} |`,
    );
    if (row.reference)
      lines.push(
        `| ${size} | (for reference: ${row.reference.name}) | ${row.reference.ms.toFixed(1)} ms | ${row.floorMs.toFixed(1)} ms | ${row.reference.ratio.toFixed(2)}× | |`,
      );
  }
}
lines.push(
  `| – | ${startup.name} | ${startup.oursMs.toFixed(1)} ms | ${startup.floorMs.toFixed(1)} ms | ${startup.ratio.toFixed(2)}× | ≤ 1.5× |`,
  ...cliStartup.flatMap((row) => [
    `| S | ${row.name} | ${row.oursMs.toFixed(1)} ms | ${row.floorMs.toFixed(1)} ms (\`node -e 0\`) | ${row.ratio.toFixed(2)}× | ≤ ${row.target}× |`,
    ...(row.nodeAndGitMs === undefined
      ? []
      : [
          `| S | (for reference: a \`node\` running only that command's \`git status\`) | ${row.nodeAndGitMs.toFixed(1)} ms | ${row.floorMs.toFixed(1)} ms (\`node -e 0\`) | ${row.nodeAndGitRatio.toFixed(2)}× | |`,
        ]),
  ]),
);
const transcriptLines = [
  '| measure | transcript | time (median) | `node -e 0` | peak RSS | target |',
  '|---|---|---|---|---|---|',
  ...transcripts.map(
    (row) =>
      `| ${row.name} | ${(row.bytes / 1e6).toFixed(0)} MB | ${row.ms.toFixed(0)} ms | ${row.floorMs.toFixed(0)} ms | ${row.peakRssMB.toFixed(0)} MB | < 1,000 ms, < 100 MB |`,
  ),
];
const report = `# Benchmark\n\n${results.date} · ${machine.cpu} (${machine.cpus} cores, ${machine.memoryGiB} GiB) · ${machine.platform} · Node ${machine.node} · ${machine.git}\n\n${plainNodeNote(removedFromEnv)}${removedFromEnv.length ? ' ' : ''}Medians of ${repeats} interleaved repeats (hook processes: ${hookRounds}; cold snapshots: fewer). Floors: the peers' shadow-git snapshot (\`git add -A\` + \`write-tree\` in a separate git dir), \`git status\`, copying the files, the drift floor (\`git status --porcelain=v2 -z\` + hashing dirty files in one pass), \`node\` loading the MCP SDK, \`node -e 0\` for the hooks' processes, and \`node\` running the shadow-git snapshot for the prompt hook. The hook rows run with the project's MCP server up, as in a session (the hooks hand it their events; the prompt hook is answered once the snapshot's content is taken, and the server writes its tree and commit after). Those marked "no server" run without it: the first hook starts a hook host, which takes the hooks measured after it in the same way. Those marked "no host" run with hosts turned off too (\`CHECKPOINT_HOOK_RELAY=0\`): each hook does all of its work in its own process. The first save row writes its 1,000 files again before each round; the other save and load rows find them settled (written more than ${QUIET_MS / 1000} s before), as in a session.\n\n${lines.join('\n')}\n\nBriefs: the spec's example renders to ${briefs.exampleBytes} bytes (target ≤ 1,300); a checkpoint with every list and field at its limit renders to ${briefs.fullChars} characters (Claude Code's hook output limit: 10,000).\n\nRedaction: a full 64 KB checkpoint (${redaction.fields} fields, ${redaction.bytes} bytes, one line in ten a secret) takes ${redaction.oursMs.toFixed(2)} ms (median of ${Math.max(repeats * 6, 31)}; spread ${redaction.oursSpreadMs.map((v) => v.toFixed(2)).join('–')} ms; target ≤ ${redaction.targetMs} ms), ${redaction.ratio.toFixed(1)}x one pass of a single simple pattern over the same fields (${redaction.floorMs.toFixed(2)} ms).\n\nThe end-of-turn hook reading transcripts (Claude Code's and Codex's Stop, Gemini CLI's AfterAgent; its own process, no server, no host; peak RSS is the process's VmHWM). "First read": nothing remembered from an earlier read; "next turn": one turn appended since the last read, as at the end of every turn. With TodoWrite the read stops at the latest list; TaskCreate / TaskUpdate build the list up, so a first read goes back through the whole file (at most 256 MB). Codex's update_plan and Gemini CLI's write_todos hold the whole list: a read stops at the latest one, once the turn that wrote it is read back to its prompt.\n\n${transcriptLines.join('\n')}\n\n![growth](growth.svg)\n`;
writeFileSync(path.join(outDir, 'report.md'), `${report}\n${scaleReport.replace(/^# Scale/, '## Scale')}`);
process.stdout.write(
  `\n${lines.join('\n')}\n\nbriefs: example ${briefs.exampleBytes} B, full ${briefs.fullChars} chars\nredaction of a full 64 KB checkpoint: ${redaction.oursMs.toFixed(2)} ms (target ≤ ${redaction.targetMs} ms)\n\n${transcriptLines.join('\n')}\nwritten: bench-results/results.json, bench-results/report.md, bench-results/growth.svg\n`,
);
