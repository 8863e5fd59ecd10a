#!/usr/bin/env node
// The CLI's start-up (issue 26): `claude-checkpoint --help`, `list` and `status` on a small repository
// (6 files, one checkpoint, two snapshots), each a fresh `node` process of the npm package's bin, against
// `node -e 0` measured in the same run, interleaved. Target: at most 1.5x. Run alone with
// `node scripts/bench/cli-startup.mjs [--repeats N]` after `npm run build`; `npm run bench` includes it.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { plainNodeNote, usePlainNode } from './plain-node.mjs';

export const CLI_STARTUP_TARGET = 1.5;

/** The file npm links `claude-checkpoint` to: what a user's command runs. */
export function cliBin(project) {
  const { bin } = JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8'));
  return path.join(project, bin['claude-checkpoint']);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

function runNode(args, cwd, env) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, args, { cwd, env, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(performance.now() - start) : reject(new Error(`${args.join(' ')} exited ${code}`)),
    );
  });
}

/** A small git repository with a checkpoint and two snapshots, its store under `dir`. */
function makeSmallProject(dir, cli) {
  rmSync(dir, { recursive: true, force: true });
  const root = path.join(dir, 'project');
  mkdirSync(path.join(root, 'src'), { recursive: true });
  const git = (...args) => execFileSync('git', args, { cwd: root, stdio: 'ignore' });
  git('init', '-q');
  for (let index = 1; index <= 5; index++)
    writeFileSync(path.join(root, 'src', `file-${index}.ts`), `export const value${index} = ${index};\n`);
  writeFileSync(path.join(root, '.gitignore'), '.claude-checkpoint*\n');
  git('add', '-A');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', 'commit', '-qm', 'start');
  const env = { ...process.env, CHECKPOINT_STORE_DIR: path.join(dir, 'store') };
  const run = (...args) =>
    execFileSync(process.execPath, [cli, ...args], { cwd: root, env, stdio: 'ignore' });
  run('save', '--goal', 'Measure the start-up', '--task', 'in_progress:the bench row');
  run('snapshot', '--label', 'first');
  writeFileSync(path.join(root, 'src', 'file-1.ts'), 'export const value1 = 10;\n');
  run('snapshot', '--label', 'second');
  return { root, env };
}

/** A `node` that runs the `git status` `claude-checkpoint status` runs (src/git/status.ts), and nothing else. */
const STATUS_GIT = `require('node:child_process').spawnSync('git', ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all', '--no-renames', '--', '.'], { stdio: 'ignore' })`;

/**
 * One row per command: the median wall time of its process and of `node -e 0`, taken alternately (order
 * swapped each round), and their ratio.
 */
export async function benchCliStartup({ cli, dir, rounds, log = () => {} }) {
  const { root, env } = makeSmallProject(dir, cli);
  const rows = [];
  for (const args of [['--help'], ['list'], ['status']]) {
    // `status` checks drift with one `git status`: a `node` that only runs that git is measured beside
    // it too, to show what of the ratio that process alone takes (the target stays against node -e 0).
    const commands = { ours: [cli, ...args], floor: ['-e', '0'] };
    if (args[0] === 'status') commands.nodeAndGit = ['-e', STATUS_GIT];
    const samples = Object.fromEntries(Object.keys(commands).map((which) => [which, []]));
    // One unmeasured run each: the first start reads files the later ones find in the page cache.
    for (const command of Object.values(commands)) await runNode(command, root, env);
    for (let round = 0; round < rounds; round++) {
      const order = Object.keys(commands);
      if (round % 2 === 1) order.reverse();
      for (const which of order) samples[which].push(await runNode(commands[which], root, env));
    }
    const row = {
      name: `CLI start-up: claude-checkpoint ${args.join(' ')}`,
      oursMs: median(samples.ours),
      floorMs: median(samples.floor),
      oursSpreadMs: [Math.min(...samples.ours), Math.max(...samples.ours)],
      floorSpreadMs: [Math.min(...samples.floor), Math.max(...samples.floor)],
      target: CLI_STARTUP_TARGET,
    };
    row.ratio = row.oursMs / row.floorMs;
    if (samples.nodeAndGit) {
      row.nodeAndGitMs = median(samples.nodeAndGit);
      row.nodeAndGitRatio = row.nodeAndGitMs / row.floorMs;
    }
    log(
      `  ${row.name}: ours ${row.oursMs.toFixed(1)} ms, node -e 0 ${row.floorMs.toFixed(1)} ms, ratio ${row.ratio.toFixed(2)}${
        row.nodeAndGitMs === undefined
          ? ''
          : `; node running only its git status ${row.nodeAndGitMs.toFixed(1)} ms (${row.nodeAndGitRatio.toFixed(2)}x node -e 0)`
      }`,
    );
    rows.push(row);
  }
  rmSync(dir, { recursive: true, force: true });
  return rows;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const removed = usePlainNode();
  if (removed.length) process.stderr.write(`${plainNodeNote(removed)}\n`);
  const project = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const index = process.argv.indexOf('--repeats');
  const rounds = index >= 0 ? Number(process.argv[index + 1]) : 15;
  const rows = await benchCliStartup({
    cli: cliBin(project),
    dir: path.join(project, '.cache', 'bench', 'cli-startup'),
    rounds,
    log: (text) => process.stderr.write(`${text}\n`),
  });
  process.stdout.write(
    `| measure | ours (median) | node -e 0 (median) | ratio | target |\n|---|---|---|---|---|\n${rows
      .map(
        (row) =>
          `| ${row.name} | ${row.oursMs.toFixed(1)} ms | ${row.floorMs.toFixed(1)} ms | ${row.ratio.toFixed(2)}× | ≤ ${row.target}× |`,
      )
      .join('\n')}\n`,
  );
}
