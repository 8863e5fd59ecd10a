import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';

/**
 * A fresh temp folder (symlinks resolved), removed when the current test finishes, or when the worker
 * exits for one made in a `beforeAll` that several tests share.
 */
export function tempDir(prefix = 'checkpoint-test-'): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  // A git of the test may still be ending as the folder goes: a hook that gave up leaves its git to
  // finish, as designed (docs/hooks.md). Node's own retries (maxRetries) retry each folder's rmdir, never
  // its listing, so one entry that git wrote after the listing failed them all about 11 s later (CI,
  // 2026-12-07: ENOTEMPTY on a store's git folder). Each try here lists the folder again. What still will
  // not go is left to the suite's own temp folder, which the global teardown removes: a test's clean-up
  // never fails the test it follows.
  const remove = async () => {
    for (let attempt = 0; attempt < 40; attempt++) {
      try {
        rmSync(dir, { recursive: true, force: true });
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  };
  try {
    onTestFinished(remove);
  } catch {
    process.once('exit', () => {
      try {
        rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
      } catch {
        // Left for the global teardown (test/global-setup.ts).
      }
    });
  }
  return dir;
}

let workerState: string | undefined;

/**
 * A state folder of this test worker's own, for code that would otherwise put its store under the real
 * home folder (`~/.local/state`): tests never write outside their temp folders.
 */
export function workerStateHome(): string {
  if (workerState === undefined) {
    const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'checkpoint-state-')));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    workerState = dir;
  }
  return workerState;
}

export type Tree = Record<string, string | Buffer>;

export function writeTree(root: string, tree: Tree): void {
  for (const [file, content] of Object.entries(tree)) {
    const absolute = path.join(root, file);
    mkdirSync(path.dirname(absolute), { recursive: true });
    writeFileSync(absolute, content);
  }
}

/** Runs git in `cwd` with a fixed identity and none of the caller's GIT_* variables. */
export function git(cwd: string, ...args: string[]): string {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GIT_')) env[key] = value;
  return execFileSync(
    'git',
    ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args],
    { cwd, env: { ...env, GIT_CONFIG_NOSYSTEM: '1' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

/**
 * A real git repository in a temp folder: `committed` files in a first commit (unless empty), then
 * `dirty` files written on top without committing.
 */
export function createRepo(
  options: { committed?: Tree; dirty?: Tree; branch?: string; ignore?: string } = {},
): string {
  const root = tempDir('checkpoint-repo-');
  git(root, 'init', '-q', '-b', options.branch ?? 'main');
  writeTree(root, { '.gitignore': options.ignore ?? '.claude-checkpoint*\n', ...options.committed });
  if (options.committed !== undefined) {
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'initial');
  }
  if (options.dirty) writeTree(root, options.dirty);
  return root;
}

export function commitAll(root: string, message = 'change'): string {
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '--allow-empty', '-m', message);
  return git(root, 'rev-parse', 'HEAD').trim();
}

/** A TCP port free on the loopback interface right now, for a server a test starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A 200-byte folder name: 22 of them nested make a path longer than Linux's PATH_MAX (4,096). */
export const DEEP_SEGMENT = 'd'.repeat(200);

/** A file under a path of 22 folders of 200 bytes (4,422 bytes), longer than Linux's PATH_MAX (4,096). */
export function deepFile(root: string): void {
  // coreutils' rm walks the tree relative to each folder; Node's rmSync would meet ENAMETOOLONG.
  onTestFinished(() => {
    execFileSync('rm', ['-rf', DEEP_SEGMENT], { cwd: root });
  });
  // One folder at a time, relative: no single system call sees the whole path.
  const script = `const fs = require('node:fs');
for (let i = 0; i < 22; i++) { fs.mkdirSync(${JSON.stringify(DEEP_SEGMENT)}); process.chdir(${JSON.stringify(DEEP_SEGMENT)}); }
fs.writeFileSync('f.txt', 'deep\\n');`;
  execFileSync(process.execPath, ['-e', script], { cwd: root });
}
