import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { allowDirectSpawn } from '../../src/git/direct-spawn-flag.js';
import { GitNotFoundError, runGit } from '../../src/git/run.js';
import { gitEnvironment, spawnGit } from '../../src/git/spawn.js';
import { isTestedSpawn, spawnGitDirect } from '../../src/git/spawn-direct.js';
import { DIRECT_SPAWN_HERE } from '../helpers/direct-spawn.js';
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
/** The built module (a process of its own runs it). */
const built = (file: string) => fileURLToPath(new URL(`../../dist/${file}`, import.meta.url));

describe('who runs git on libuv’s handles', () => {
  it('only the Node majors and the binding shape it was tested on (Node 24 spawns otherwise, and aborts)', () => {
    // Node 20 and 22's process_wrap: no constants. Node 24's takes its options one by one and has them.
    expect(isTestedSpawn('20.20.2', {})).toBe(true);
    expect(isTestedSpawn('22.23.5', {})).toBe(true);
    expect(isTestedSpawn('22.99.0', { constants: { kProcessFlagDetached: 2 } })).toBe(false);
    expect(isTestedSpawn('24.22.3', { constants: { kProcessFlagDetached: 2 } })).toBe(false);
    expect(isTestedSpawn('24.0.0', {})).toBe(false);
    expect(isTestedSpawn('26.1.0', {})).toBe(false);
  });

  it('only a process that asked (the CLI’s loader): the server and the hooks keep child_process', () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    delete (globalThis as Record<symbol, unknown>)[DIRECT_SPAWN];
    expect(spawnGitDirect(['status'], { cwd: root, timeoutMs: 10_000 }, gitEnvironment())).toBeNull();
  });
});

describe.skipIf(!DIRECT_SPAWN_HERE)('git on libuv’s handles, without child_process', () => {
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

  it('times git out without a Node timer (a first one compiles some twenty of Node’s functions in a command)', () => {
    // A process of its own, with no timer of a test runner's: what is active while git runs.
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const script = `
      const { allowDirectSpawn } = await import(${JSON.stringify(built('git/direct-spawn-flag.js'))});
      const { spawnGit } = await import(${JSON.stringify(built('git/spawn.js'))});
      allowDirectSpawn();
      const quick = spawnGit(['--version'], { cwd: process.cwd(), timeoutMs: 60000 });
      const active = process.getActiveResourcesInfo();
      const { code, timedOut } = await quick.exit;
      process.env.PATH = process.env.STUCK_PATH;
      const late = await spawnGit(['status'], { cwd: process.cwd(), timeoutMs: 300 }).exit;
      console.log(JSON.stringify({ active, quick: { code, timedOut }, late: { code: late.code, timedOut: late.timedOut } }));`;
    stuckGit(30);
    const stuckPath = process.env.PATH ?? '';
    process.env.PATH = savedPath;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      env: { ...process.env, STUCK_PATH: stuckPath },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.stderr).toBe('');
    const { active, quick, late } = JSON.parse(result.stdout);
    expect(active).toContain('ProcessWrap');
    expect(active).not.toContain('Timeout');
    expect(quick).toEqual({ code: 0, timedOut: false });
    expect(late).toEqual({ code: null, timedOut: true });
  });

  it('closes git’s input when git exits: a child of git that holds it keeps no write pending (nor this process alive)', async () => {
    // A git that hands its input to a child of its own and exits at once; the child holds it a minute.
    const dir = tempDir('holding-git-');
    const marker = path.join(dir, 'child-done');
    writeFileSync(
      path.join(dir, 'git'),
      `#!/bin/sh
exec 3<&0
sh -c "sleep 60; touch '${marker}'" 0<&3 3<&- >/dev/null 2>&1 &
echo done
exit 0
`,
    );
    chmodSync(path.join(dir, 'git'), 0o755);
    const script = `
      const { allowDirectSpawn } = await import(${JSON.stringify(built('git/direct-spawn-flag.js'))});
      const { spawnGit } = await import(${JSON.stringify(built('git/spawn.js'))});
      allowDirectSpawn();
      const exit = await spawnGit(['hash-object', '--stdin'], { cwd: process.cwd(), timeoutMs: 120000, input: Buffer.alloc(8 << 20, 97) }).exit;
      console.log(JSON.stringify({ code: exit.code, stdout: exit.stdout.toString() }));`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: dir,
      env: { ...process.env, PATH: `${dir}${path.delimiter}${savedPath ?? ''}` },
      encoding: 'utf8',
      timeout: 90_000,
    });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ code: 0, stdout: 'done\n' });
    // The process ended while the child still held the input.
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses a NUL byte in an argument, as child_process does, rather than cut it there', () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    expect(() => spawnGit(['rev-parse', 'HEAD\0--help'], { cwd: root, timeoutMs: 10_000 })).toThrow(
      /null bytes/,
    );
  });
});
