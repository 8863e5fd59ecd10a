import { chmodSync, existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { takeSnapshot } from '../../src/app/rewind.js';
import { startSnapshotEarly } from '../../src/cli/early-snapshot.js';
import { dropEarlyGit } from '../../src/git/early-start.js';
import { releaseEarlyLocks, withFileLock } from '../../src/store/lock.js';
import { projectStoreDir } from '../../src/store/store-location.js';
import { createRepo, git, tempDir, writeTree } from '../helpers/fixtures.js';

// `claude-checkpoint snapshot`'s scan of the store, started by the CLI's loader before the CLI has
// loaded (issue 26: a snapshot in its own process at 1.4x its floor). git here is the system's, through
// a shim on PATH that writes down each store command it runs and whether the store's lock was held then.

let savedPath: string | undefined;
let gitLog: string;

beforeEach(() => {
  savedPath = process.env.PATH;
});

afterEach(async () => {
  dropEarlyGit();
  await releaseEarlyLocks();
  process.env.PATH = savedPath;
});

/** A project with one snapshot in its store, then changed: `snapshot` has something to scan. */
async function projectWithSnapshot() {
  const root = realpathSync(createRepo({ committed: { 'a.txt': 'one\n', 'src/b.txt': 'b\n' } }));
  const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
  const deps = defaultDeps({ env, cwd: () => root });
  await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
  writeTree(root, { 'a.txt': 'two\n', 'src/c.txt': 'new\n' });
  const storeDir = projectStoreDir(env.CHECKPOINT_STORE_DIR, root);
  return { root, env, deps, storeDir, lock: path.join(storeDir, 'lock'), gitDir: path.join(storeDir, 'git') };
}

/** From here on, git is the shim: each store command logged as `<locked|unlocked> <subcommand>`. */
function traceStoreGit(lock: string): void {
  const dir = tempDir('early-snapshot-git-');
  gitLog = path.join(dir, 'git.log');
  writeFileSync(gitLog, '');
  const realGit = path.join(git(process.cwd(), '--exec-path').trim(), 'git');
  // The subcommand follows the store's six arguments: --git-dir <dir> --work-tree <root> -c <excludes>.
  writeFileSync(
    path.join(dir, 'git'),
    `#!/bin/sh\nif [ "$1" = "--git-dir" ]; then\n  if [ -e ${JSON.stringify(lock)} ]; then held=locked; else held=unlocked; fi\n  echo "$held $7" >> ${JSON.stringify(gitLog)}\nfi\nexec ${JSON.stringify(realGit)} "$@"\n`,
  );
  chmodSync(path.join(dir, 'git'), 0o755);
  process.env.PATH = `${dir}${path.delimiter}${savedPath ?? ''}`;
}

const storeCommands = () => readFileSync(gitLog, 'utf8').split('\n').filter(Boolean);

describe("snapshot's scan started by the CLI's loader", () => {
  it("runs under the store lock, is the snapshot's only scan, and the snapshot holds what it found", async () => {
    const { root, env, deps, lock, gitDir } = await projectWithSnapshot();
    traceStoreGit(lock);
    startSnapshotEarly(['snapshot', '--label', 'x', '--json'], env, () => root);
    // Taken before anything else loads, and held until the command is done.
    expect(existsSync(lock)).toBe(true);
    const outcome = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual', label: 'x' });
    expect(outcome.created).toBe(true);
    expect(existsSync(lock)).toBe(false);
    const commands = storeCommands();
    expect(commands.filter((command) => command.endsWith(' status'))).toEqual(['locked status']);
    expect(commands.every((command) => command.startsWith('locked '))).toBe(true);
    const commit = outcome.snapshot.commit;
    const show = (file: string) => git(root, '--git-dir', gitDir, 'show', `${commit}:${file}`);
    expect(show('a.txt')).toBe('two\n');
    expect(show('src/c.txt')).toBe('new\n');
    expect(show('src/b.txt')).toBe('b\n');
  });

  it('when the command fails before it snapshots, lets the scan finish and then lets go of the lock', async () => {
    const { root, env, lock, gitDir } = await projectWithSnapshot();
    traceStoreGit(lock);
    startSnapshotEarly(['snapshot'], env, () => root);
    expect(existsSync(lock)).toBe(true);
    // As the CLI does when its command ends, taken or not (src/cli.ts).
    dropEarlyGit();
    await releaseEarlyLocks();
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(path.join(gitDir, 'index.lock'))).toBe(false);
    expect(storeCommands()).toEqual(['locked status']);
  });

  it('leaves a store alone whose lock another holds, or that has no snapshot yet', async () => {
    const { root, env, lock } = await projectWithSnapshot();
    traceStoreGit(lock);
    await withFileLock(lock, async () => {
      const held = readFileSync(lock, 'utf8');
      startSnapshotEarly(['snapshot'], env, () => root);
      expect(readFileSync(lock, 'utf8')).toBe(held);
    });
    const fresh = realpathSync(createRepo({ committed: { 'a.txt': 'one\n' } }));
    startSnapshotEarly(['snapshot'], env, () => fresh);
    expect(existsSync(path.join(projectStoreDir(env.CHECKPOINT_STORE_DIR, fresh), 'lock'))).toBe(false);
    dropEarlyGit();
    await releaseEarlyLocks();
    expect(storeCommands()).toEqual([]);
  });

  it.each([
    ['--root', ['snapshot', '--root', '.']],
    ['--trigger', ['snapshot', '--trigger', 'prompt']],
    ['--help', ['snapshot', '--help']],
    ['another command', ['list']],
  ])('is not started for a command line with %s', async (_name, argv) => {
    const { root, env, lock } = await projectWithSnapshot();
    traceStoreGit(lock);
    startSnapshotEarly(argv, env, () => root);
    expect(existsSync(lock)).toBe(false);
    expect(storeCommands()).toEqual([]);
  });
});
