import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isCheckpointError } from '../../src/core/errors.js';
import { dropEarlyGit, keepEarlyGit } from '../../src/git/early-start.js';
import { GIT_SCAN_TIMEOUT_MS, runGit } from '../../src/git/run.js';
import { spawnGit } from '../../src/git/spawn.js';
import { STATUS_ARGS } from '../../src/git/status.js';
import { createRepo, git, tempDir } from '../helpers/fixtures.js';

// A git call the CLI's loader starts before the CLI has loaded (issue 26's start-up): the first
// identical runGit takes its outcome over, anything else runs its own git. git here is the system's,
// through a shim on PATH that writes down each command it runs.

let gitLog: string;
let savedPath: string | undefined;

/** From here on, the code under test finds the shim first on PATH (the fixtures' repos are made before). */
function traceGit(): void {
  const dir = tempDir('early-git-');
  gitLog = path.join(dir, 'git.log');
  writeFileSync(gitLog, '');
  const shim = path.join(dir, 'git');
  const realGit = path.join(git(process.cwd(), '--exec-path').trim(), 'git');
  // $SLOW_GIT makes the shim wait first, as a git stuck on a huge tree or a hook would.
  writeFileSync(
    shim,
    `#!/bin/sh\necho "$1 $2" >> ${JSON.stringify(gitLog)}\nif [ -n "$SLOW_GIT" ]; then sleep "$SLOW_GIT"; fi\nexec ${JSON.stringify(realGit)} "$@"\n`,
  );
  chmodSync(shim, 0o755);
  process.env.PATH = `${dir}${path.delimiter}${savedPath ?? ''}`;
}

beforeEach(() => {
  savedPath = process.env.PATH;
});

afterEach(() => {
  dropEarlyGit();
  process.env.PATH = savedPath;
  delete process.env.SLOW_GIT;
});

/** As the CLI's loader does (cli/early-status.ts). */
const startGitEarly = (args: readonly string[], options: { cwd: string; timeoutMs: number }) =>
  keepEarlyGit(args, options, spawnGit(args, options));

const gitCommands = () => readFileSync(gitLog, 'utf8').split('\n').filter(Boolean);

describe('a git call started early', () => {
  it('is taken over by the first identical call, which then gets what a call of its own would', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    writeFileSync(path.join(root, 'a.txt'), 'two\n');
    writeFileSync(path.join(root, 'new.txt'), 'new\n');
    traceGit();
    const options = { cwd: root, timeoutMs: GIT_SCAN_TIMEOUT_MS };
    startGitEarly(STATUS_ARGS, options);
    const early = await runGit(STATUS_ARGS, options);
    expect(gitCommands()).toEqual(['status --porcelain=v2']);
    const own = await runGit(STATUS_ARGS, options);
    expect(gitCommands()).toEqual(['status --porcelain=v2', 'status --porcelain=v2']);
    expect(early).toEqual(own);
    expect(early.stdout).toContain('a.txt');
    expect(early.stdout).toContain('new.txt');
  });

  it('is not taken by a call that differs in its folder, its timeout or its input', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const other = createRepo({ committed: { 'b.txt': 'one\n' } });
    traceGit();
    startGitEarly(STATUS_ARGS, { cwd: root, timeoutMs: GIT_SCAN_TIMEOUT_MS });
    const elsewhere = await runGit(STATUS_ARGS, { cwd: other, timeoutMs: GIT_SCAN_TIMEOUT_MS });
    await runGit(STATUS_ARGS, { cwd: root, timeoutMs: 1000 });
    await runGit(STATUS_ARGS, { cwd: root, timeoutMs: GIT_SCAN_TIMEOUT_MS, input: '' });
    expect(gitCommands()).toHaveLength(4);
    expect(elsewhere.stdout).not.toContain('a.txt');
    // Still there for the identical call.
    await runGit(STATUS_ARGS, { cwd: root, timeoutMs: GIT_SCAN_TIMEOUT_MS });
    expect(gitCommands()).toHaveLength(4);
  });

  it('fails as a call of its own would: outside a repository, exit 128 as a CheckpointError', async () => {
    const folder = tempDir('no-repo-');
    traceGit();
    const options = { cwd: folder, timeoutMs: GIT_SCAN_TIMEOUT_MS };
    startGitEarly(STATUS_ARGS, options);
    const failure = await runGit(STATUS_ARGS, options).catch((error: unknown) => error);
    expect(isCheckpointError(failure, 'GIT_FAILED')).toBe(true);
    expect((failure as Error).message).toMatch(
      /^git status failed in .* \(exit 128\): fatal: not a git repository/,
    );
    expect(gitCommands()).toEqual(['status --porcelain=v2']);
  });

  it('is ended when nothing took it; the identical call then runs its own', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    traceGit();
    startGitEarly(STATUS_ARGS, { cwd: root, timeoutMs: GIT_SCAN_TIMEOUT_MS });
    await expect.poll(gitCommands).toEqual(['status --porcelain=v2']);
    dropEarlyGit();
    await runGit(STATUS_ARGS, { cwd: root, timeoutMs: GIT_SCAN_TIMEOUT_MS });
    expect(gitCommands()).toEqual(['status --porcelain=v2', 'status --porcelain=v2']);
  });

  it('once ended, does not keep its process alive, even while a child of git holds its pipes', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    traceGit();
    // The shim waits a minute first (not with exec: the shell ends, its `sleep` keeps git's pipes);
    // the test's own limit is half of that.
    const dist = new URL('../../dist/git/', import.meta.url).href;
    const script = `import { dropEarlyGit, keepEarlyGit } from '${dist}early-start.js';
import { spawnGit } from '${dist}spawn.js';
const options = { cwd: process.argv[1], timeoutMs: 300000 };
const args = ['status', '--porcelain=v2'];
keepEarlyGit(args, options, spawnGit(args, options));
setTimeout(dropEarlyGit, 500);`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script, root], {
      env: { ...process.env, SLOW_GIT: '60' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.error).toBeUndefined();
    expect(result.status, result.stderr).toBe(0);
    expect(gitCommands()).toEqual(['status --porcelain=v2']);
  });
});
