import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI, childEnv, cliProject, runCli, runNodeScript } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

// Issue 26, the third new-user trial (2026-12-07): the CLI's edges it found, each as the user met it.

/** Runs the CLI from a folder the shell entered and then removed: the process's current folder is gone. */
function runInDeletedFolder(args: string[], env: Record<string, string>) {
  const parent = tempDir('cli-gone-');
  return spawnSync(
    'sh',
    ['-c', 'mkdir gone && cd gone && rmdir ../gone && exec "$@"', 'sh', process.execPath, CLI, ...args],
    { cwd: parent, encoding: 'utf8', env: childEnv(env) },
  );
}

describe('a named project root works from a deleted current folder', () => {
  // status, list and snapshot run their own bundles (cli-fast, cli-snapshot); the rest the whole CLI.
  const commands = [
    ['status'],
    ['list'],
    ['snapshot'],
    ['brief'],
    ['rewind', '--list'],
    ['restore', 'latest', '--dry-run'],
  ];

  it.each(commands)('%s with --root', async (...command) => {
    const { root, env, cli } = cliProject();
    expect((await cli('snapshot')).code).toBe(0);
    const result = runInDeletedFolder([...command, '--root', root], env);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it.each(commands)('%s with CHECKPOINT_PROJECT_ROOT', async (...command) => {
    const { root, env, cli } = cliProject();
    expect((await cli('snapshot')).code).toBe(0);
    const result = runInDeletedFolder(command, { ...env, CHECKPOINT_PROJECT_ROOT: root });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('a relative --root needs the current folder: then the error says it is gone', () => {
    const result = runInDeletedFolder(['status', '--root', 'project'], {});
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('the current folder no longer exists');
  });
});

describe('save --stdin with field flags', () => {
  it('is refused, naming the flags, and saves nothing', async () => {
    const { input, cli } = cliProject();
    const result = await input(
      '{"goal":"g"}',
      'save',
      '--stdin',
      '--goal',
      'x',
      '--next',
      'n',
      '--task',
      'done:t',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'claude-checkpoint: --stdin takes every field from the JSON on stdin: --goal, --task, --next cannot be combined with it (put them in the JSON, or leave --stdin out)\n',
    );
    expect((await cli('brief')).stdout).toContain('No checkpoint');
  });

  it('--merge and --root still go with it', async () => {
    const { root, input } = cliProject();
    const result = await input('{"goal":"g"}', 'save', '--stdin', '--merge', '--root', root);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});

describe('claude-checkpoint-mcp run by hand', () => {
  const SERVER = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
  // stdin is left open, as a terminal leaves it: the server would wait on it for a client.
  const server = (...args: string[]) => runNodeScript(SERVER, args, { cwd: tempDir(), keepStdinOpen: true });

  it('--help says what it is, that an MCP client starts it, and where its setup is', async () => {
    const result = await server('--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^claude-checkpoint-mcp \d+\.\d+\.\d+: the MCP server/);
    expect(result.stdout).toContain('An MCP client');
    expect(result.stdout).toContain('claude-checkpoint setup <agent>');
    expect(result.stdout).toContain('docs/agents/README.md');
    expect(result.stderr).toBe('');
  });

  it('--version prints the version', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const result = await server('--version');
    expect(result).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('an unknown argument is an error that names it', async () => {
    const result = await server('--root', '/tmp');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      "claude-checkpoint: unknown argument '--root': the server takes none but --help and --version (an MCP client starts it; see claude-checkpoint-mcp --help)\n",
    );
  });
});

describe('a git on PATH that is not executable', () => {
  /** PATH with only a `git` that may not be run (the CLI runs under process.execPath, not from PATH). */
  function unusableGit(): Record<string, string> {
    const dir = tempDir('git-not-executable-');
    writeFileSync(path.join(dir, 'git'), '#!/bin/sh\nexit 0\n');
    chmodSync(path.join(dir, 'git'), 0o644);
    return { PATH: dir, CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
  }

  it('is git missing where a missing git is tolerated: a folder without git works', async () => {
    const env = unusableGit();
    const cwd = tempDir('no-git-project-');
    for (const args of [['save', '--goal', 'g'], ['status'], ['brief'], ['list']]) {
      const result = await runCli(args, { cwd, env });
      expect(result.stderr, args.join(' ')).toBe('');
      expect(result.code, args.join(' ')).toBe(0);
    }
  });

  it('is said in words where git is needed, and by doctor', async () => {
    const env = unusableGit();
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const snapshot = await runCli(['snapshot'], { cwd: root, env });
    expect(snapshot.code).toBe(1);
    expect(snapshot.stderr).toBe(
      'claude-checkpoint: git cannot be run: the git on PATH is not executable (permission denied); make it executable, or put a working git earlier on PATH\n',
    );
    const doctor = await runCli(['doctor'], { cwd: root, env });
    expect(doctor.stdout).toContain(
      '! git: the git on PATH is not executable (permission denied): checkpoints work, but without drift detection',
    );
    expect(doctor.stdout).not.toContain('EACCES');
    expect(doctor.stderr).not.toContain('EACCES');
    // Review of 2026-12-07: the later checks called such a git "not installed", and said to install it.
    expect(doctor.stdout).not.toContain('not installed');
    expect(doctor.stdout).not.toContain('Install git');
    const status = await runCli(['status'], { cwd: root, env });
    expect(status.stdout).toContain('the git on PATH is not executable');
    expect(status.stdout).not.toContain('not installed');
  });
});

describe("a path in git's own folder", () => {
  it.each([
    [['restore', 'latest', '.git', '--yes'], '.git'],
    [['restore', 'latest', 'a.txt', '.git/HEAD', '--dry-run'], '.git/HEAD'],
    [['diff', 'latest', '.git/config'], '.git/config'],
    [['diff', 'latest', 'sub/.git/config'], 'sub/.git/config'],
  ])('%s is refused with the reason', async (args, file) => {
    const { cli } = cliProject();
    expect((await cli('snapshot')).code).toBe(0);
    const result = await cli(...args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `claude-checkpoint: path '${file}' is in git's own folder (.git): snapshots never hold git's own folder, so there is nothing there to compare or restore\n`,
    );
  });
});

describe('flag values', () => {
  it.each(['0x10', '1e2', '0b11', ' 5', '5.0', '0'])(
    'list --limit %s is refused: plain decimal digits only',
    async (value) => {
      const { cli } = cliProject();
      const result = await cli('list', '--limit', value);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `claude-checkpoint: --limit must be a whole number of at least 1, in decimal digits: got '${value}'\n`,
      );
    },
  );

  it('list --limit 007 is 7', async () => {
    const { cli } = cliProject();
    expect((await cli('list', '--limit', '007')).code).toBe(0);
  });

  it("rewind --session '' is refused, as --root '' is", async () => {
    const { cli } = cliProject();
    const result = await cli('rewind', '--list', '--session', '');
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "claude-checkpoint: --session must name a session, by its id or a unique prefix: got '' (leave --session out for the agent's, else the one that prompted last)\n",
    );
  });
});

describe("the CLI's code cache", () => {
  it('is named after the command word, not after a --root value before it', async () => {
    const { root, env, cli } = cliProject();
    expect((await cli('snapshot')).code).toBe(0);
    const other = createRepo({ committed: { 'b.txt': 'two\n' } });
    for (const args of [
      [`--root=${root}`, 'status'],
      [`--root=${other}`, 'status'],
      ['--root', root, 'list'],
    ])
      expect((await cli(...args)).code, args.join(' ')).toBe(0);
    const cacheDir = path.join(env.CHECKPOINT_STORE_DIR, 'cache');
    const names = existsSync(cacheDir) ? readdirSync(cacheDir).map((name) => name.split('-')[1]) : [];
    // Each command's bundle keeps one, and so does the loader's start (dist/cli-start.cjs), per command.
    expect(names.sort()).toEqual(['list', 'snapshot', 'startlist', 'startsnapshot', 'startstatus', 'status']);
  });
});

describe('words the trial found wrong', () => {
  it('the first snapshot of a project says so, not "since the previous one"', async () => {
    const { cli } = cliProject();
    const first = await cli('snapshot');
    expect(first.stdout).toMatch(
      /^Snapshot \S+ taken \(manual; the project's first, holding \d+ file\(s\)\)\.\n$/,
    );
  });

  it('a file skipped over the size cap shows a size visibly over it', async () => {
    const { root, env } = cliProject();
    writeFileSync(path.join(root, 'big.bin'), Buffer.alloc(1_050_000));
    const result = await runCli(['snapshot'], {
      cwd: root,
      env: { ...env, CHECKPOINT_SNAPSHOT_MAX_FILE_MB: '1' },
    });
    expect(result.stdout).toContain('⚠ Skipped 1 file(s) over the size cap: `big.bin` (1.01 MB)');
  });

  it('handoff push without --remote, in a repository with none, names no remote field', async () => {
    const { cli } = cliProject();
    expect((await cli('handoff', 'push')).stderr).toBe(
      'claude-checkpoint: this repository has no remote to hand off through (add one with `git remote add`)\n',
    );
    expect((await cli('handoff', 'push', '--remote', 'origin')).stderr).toBe(
      "claude-checkpoint: remote 'origin' does not exist here: this repository has no remote to hand off through (add one with `git remote add`)\n",
    );
  });

  it('snapshot --help says what a trigger is and which names it takes', async () => {
    const { cli } = cliProject();
    const help = (await cli('snapshot', '--help')).stdout.replace(/\s+/g, ' ');
    expect(help).toContain(
      '--trigger <name> why it was taken, shown in `list`: any name of lowercase letters, digits and dashes, at most 40 characters, such as pre-deploy',
    );
  });

  it('a folder where the checkpoint file belongs is said once, not nested', async () => {
    const { root, cli } = cliProject();
    mkdirSync(path.join(root, '.claude-checkpoint'));
    const sentence = `${root}/.claude-checkpoint is unusable (it is a folder, not a regular file) and there is no backup: fix it by hand, or delete it and save a new checkpoint`;
    expect((await cli('status')).stdout).toContain(`Checkpoint: ${sentence}\n`);
    expect((await cli('brief')).stderr).toBe(`claude-checkpoint: ${sentence}\n`);
    // Input audit: a save said only "EISDIR: illegal operation on a directory, rename '…tmp-…' -> '…'".
    const saved = await cli('save', '--goal', 'g');
    expect(saved.code).toBe(1);
    expect(saved.stderr).toBe(
      `claude-checkpoint: ${root}/.claude-checkpoint is a folder, where the checkpoint file goes: nothing was written; move it aside, then save again\n`,
    );
  });
});

describe('snapshot --label on an unchanged tree', () => {
  it('says no snapshot was taken, so the label was not kept', async () => {
    const { cli } = cliProject();
    expect((await cli('snapshot')).code).toBe(0);
    const result = await cli('snapshot', '--label', 'x');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Nothing changed since snapshot \S+: no snapshot was taken, so the label was not kept\.\n$/,
    );
    const json = JSON.parse((await cli('snapshot', '--label', 'x', '--json')).stdout) as Record<
      string,
      unknown
    >;
    expect(json).toMatchObject({ created: false, labelKept: false });
    const unlabelled = JSON.parse((await cli('snapshot', '--json')).stdout) as Record<string, unknown>;
    expect(unlabelled).not.toHaveProperty('labelKept');
  });

  it('a label on a snapshot taken is kept', async () => {
    const { cli } = cliProject();
    const json = JSON.parse((await cli('snapshot', '--label', 'x', '--json')).stdout) as Record<
      string,
      unknown
    >;
    expect(json).toMatchObject({ created: true, labelKept: true, snapshot: { label: 'x' } });
  });
});
