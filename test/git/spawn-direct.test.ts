import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { allowDirectSpawn } from '../../src/git/direct-spawn-flag.js';
import { GitNotFoundError, runGit } from '../../src/git/run.js';
import { gitEnvironment, spawnGit } from '../../src/git/spawn.js';
import { spawnGitDirect } from '../../src/git/spawn-direct.js';
import { createRepo, git, tempDir } from '../helpers/fixtures.js';

// Issue 26: `claude-checkpoint status` spent about 6 ms loading node:child_process (with net, dgram and
// the stream modules) for its one git call. git now runs on the process and pipe handles child_process
// is built on (src/git/spawn-direct.ts), with the same outcome: checked here against the same git run
// through child_process, with real repositories and real git.

/** The same call through child_process, the way spawn.ts ran every call before. */
function throughChildProcess(args: string[], cwd: string, input?: Buffer) {
  const result = spawnSync('git', args, { cwd, env: gitEnvironment(), input, maxBuffer: 1 << 30 });
  return { stdout: result.stdout, stderr: result.stderr, code: result.status };
}

let savedPath: string | undefined;
beforeEach(() => {
  savedPath = process.env.PATH;
});
afterEach(() => {
  process.env.PATH = savedPath;
});

/** From here on, `git` on PATH is a process that answers nothing for `seconds` (a git stuck on a huge tree). */
function stuckGit(seconds: number): void {
  const dir = tempDir('stuck-git-');
  writeFileSync(path.join(dir, 'git'), `#!/bin/sh\nexec sleep ${seconds}\n`);
  chmodSync(path.join(dir, 'git'), 0o755);
  process.env.PATH = `${dir}${path.delimiter}${savedPath ?? ''}`;
}

const DIRECT_SPAWN = Symbol.for('claude-checkpoint.direct-spawn');

describe('who runs git on libuv’s handles', () => {
  it('only a process that asked (the CLI’s loader): the server and the hooks keep child_process', () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    delete (globalThis as Record<symbol, unknown>)[DIRECT_SPAWN];
    expect(spawnGitDirect(['status'], { cwd: root, timeoutMs: 10_000 }, gitEnvironment())).toBeNull();
  });
});

describe.skipIf(process.platform === 'win32')('git on libuv’s handles, without child_process', () => {
  beforeAll(allowDirectSpawn);
  afterAll(() => {
    delete (globalThis as Record<symbol, unknown>)[DIRECT_SPAWN];
  });

  it('is what spawnGit runs here (Node’s bindings have the shape it needs)', () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const direct = spawnGitDirect(['status'], { cwd: root, timeoutMs: 10_000 }, gitEnvironment());
    expect(direct).not.toBeNull();
    return direct?.exit;
  });

  it('gives what git writes, byte for byte: stdout over many reads, stderr and the exit code', async () => {
    const big = randomBytes(3 * 1024 * 1024);
    const root = createRepo({ committed: { 'big.bin': big, 'a.txt': 'one\n' }, dirty: { 'a.txt': 'two\n' } });
    const options = { cwd: root, timeoutMs: 60_000 };
    const cases = [
      ['cat-file', 'blob', 'HEAD:big.bin'],
      ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all'],
      ['rev-parse', '--verify', 'no-such-ref'],
      ['no-such-command'],
    ];
    for (const args of cases) {
      const chunks: Buffer[] = [];
      const exit = await spawnGit(args, { ...options, onStdout: (chunk) => chunks.push(chunk) }).exit;
      const expected = throughChildProcess(args, root);
      expect({ ...exit, stdout: exit.stdout.equals(expected.stdout) }).toEqual({
        stdout: true,
        stderr: expected.stderr,
        code: expected.code,
        timedOut: false,
      });
      expect(Buffer.concat(chunks).equals(exit.stdout)).toBe(true);
    }
    expect((await spawnGit(['cat-file', 'blob', 'HEAD:big.bin'], options).exit).stdout.equals(big)).toBe(
      true,
    );
  });

  it('writes the input whole, names whose bytes are not UTF-8 as those bytes', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const input = randomBytes(2 * 1024 * 1024);
    const options = { cwd: root, timeoutMs: 60_000 };
    const args = ['hash-object', '--stdin'];
    const exit = await spawnGit(args, { ...options, input }).exit;
    expect(exit.code).toBe(0);
    expect(exit.stdout.toString()).toBe(throughChildProcess(args, root, input).stdout.toString());
    // A name with the byte 0xff, as raw-path.ts writes it in a string (U+DCFF).
    const name = Buffer.from([0x6e, 0xff, 0x0a]);
    const byName = await spawnGit(['check-ignore', '--stdin', '-v', '-n'], {
      ...options,
      input: 'n\udcff\n',
    }).exit;
    expect(byName.stdout).toEqual(
      throughChildProcess(['check-ignore', '--stdin', '-v', '-n'], root, name).stdout,
    );
    // Empty input, and input git never reads (it exits first: the write fails, the exit code tells).
    expect((await spawnGit(args, { ...options, input: '' }).exit).stdout.toString()).toBe(
      throughChildProcess(args, root, Buffer.alloc(0)).stdout.toString(),
    );
    const unread = await spawnGit(['rev-parse', 'HEAD'], { ...options, input: randomBytes(8 * 1024 * 1024) })
      .exit;
    expect({ code: unread.code, head: unread.stdout.toString().trim() }).toEqual({
      code: 0,
      head: git(root, 'rev-parse', 'HEAD').trim(),
    });
  });

  it('tells the caller git’s process id', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const pids: number[] = [];
    const exit = await spawnGit(['--version'], {
      cwd: root,
      timeoutMs: 10_000,
      onSpawn: (pid) => pids.push(pid),
    }).exit;
    expect(exit.code).toBe(0);
    expect(pids).toHaveLength(1);
    expect(pids[0]).toBeGreaterThan(0);
  });

  it('without git on PATH: runGit says git is not installed', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    process.env.PATH = tempDir('no-git-');
    const exit = await spawnGit(['status'], { cwd: root, timeoutMs: 10_000 }).exit;
    expect(exit.spawnError?.code).toBe('ENOENT');
    await expect(runGit(['status'], { cwd: root })).rejects.toBeInstanceOf(GitNotFoundError);
  });

  it('ends a git past its timeout, and one abandoned', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    stuckGit(30);
    const started = Date.now();
    const late = await spawnGit(['status'], { cwd: root, timeoutMs: 300 }).exit;
    expect({ timedOut: late.timedOut, code: late.code }).toEqual({ timedOut: true, code: null });
    const abandoned = spawnGit(['status'], { cwd: root, timeoutMs: 60_000 });
    abandoned.abandon();
    expect((await abandoned.exit).code).toBeNull();
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('refuses a NUL byte in an argument, as child_process does, rather than cut it there', () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    expect(() => spawnGit(['rev-parse', 'HEAD\0--help'], { cwd: root, timeoutMs: 10_000 })).toThrow(
      /null bytes/,
    );
  });
});
