import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { shellWord } from '../../src/core/quote.js';
import { assertBuilt, CLI, runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

// Issue 26, "the CLI's edges": each case is what a new user typed and what they should have seen.
describe('the CLI at its edges', () => {
  const inProject = () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    return { root, cli: (...args: string[]) => runCli(args, { cwd: root, env }) };
  };

  it.each([
    [['frobnicate'], "error: unknown command 'frobnicate'", "(run 'claude-checkpoint --help' for usage)"],
    [
      ['list', '--bogus'],
      "error: unknown option '--bogus'",
      "(run 'claude-checkpoint list --help' for usage)",
    ],
    [
      ['handoff', 'bogus'],
      "error: unknown command 'bogus'",
      "(run 'claude-checkpoint handoff --help' for usage)",
    ],
    [
      ['help', 'frobnicate'],
      "error: unknown command 'frobnicate'",
      "(run 'claude-checkpoint --help' for usage)",
    ],
  ])('%j: the error and one hint, exit 2, not the whole help', async (args, error, hint) => {
    const { cli } = inProject();
    const result = await cli(...args);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([error, hint]);
    expect(result.stdout).toBe('');
  });

  it('help for a known command still prints that command’s help', async () => {
    const { cli } = inProject();
    const result = await cli('help', 'list');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: claude-checkpoint list/);
  });

  it('diff of a path in neither side is an error, not "No differences"', async () => {
    const { cli } = inProject();
    expect((await cli('snapshot')).code).toBe(0);
    const missing = await cli('diff', 'latest', 'no/such/file');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/path 'no\/such\/file' is in neither snapshot \S+ nor the working tree/);
    const unchanged = await cli('diff', 'latest', 'a.txt');
    expect(unchanged.code).toBe(0);
    expect(unchanged.stdout).toMatch(/^No differences/);
  });

  // Regression (issue 26, trial of 2026-12-06): `diff <id1> <id2>` read the second id as a path and said
  // only that no such path exists.
  it.each([['an id'], ['latest~1']])(
    'diff of two snapshots given as %s says to pass the second with --against',
    async (form) => {
      const { root, cli } = inProject();
      expect((await cli('snapshot')).code).toBe(0);
      writeFileSync(path.join(root, 'a.txt'), 'two\n');
      expect((await cli('snapshot')).code).toBe(0);
      const ids = JSON.parse((await cli('list', '--json')).stdout).snapshots.map(
        (snapshot: { id: string }) => snapshot.id,
      ) as string[];
      const second = form === 'an id' ? (ids[1] ?? '') : 'latest~1';
      const result = await cli('diff', 'latest', second);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`'${second}' names a snapshot`);
      // Shell-quoted where a shell would read it otherwise (latest~1).
      expect(result.stderr).toContain(`claude-checkpoint diff latest --against ${shellWord(second)}\``);
      expect((await cli('diff', 'latest', '--against', second)).stdout).toContain('a.txt');
      // restore takes one snapshot: the same mistake there says so.
      const restore = await cli('restore', 'latest', second);
      expect(restore.code).toBe(2);
      expect(restore.stderr).toContain(`'${second}' names a snapshot: restore takes one snapshot`);
    },
  );

  it('restore --json without --yes prints the plan as JSON, exits 3 and changes nothing', async () => {
    const { root, cli } = inProject();
    expect((await cli('snapshot')).code).toBe(0);
    writeFileSync(path.join(root, 'a.txt'), 'two\n');
    const result = await cli('restore', 'latest', '--json');
    expect(result.code).toBe(3);
    const plan = JSON.parse(result.stdout);
    expect(plan).toMatchObject({ dryRun: true, plan: { overwrite: ['a.txt'] } });
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('two\n');
  });

  it('brief --json carries the brief itself', async () => {
    const { cli } = inProject();
    expect((await cli('save', '--goal', 'Ship the parser')).code).toBe(0);
    const result = await cli('brief', '--json');
    expect(result.code).toBe(0);
    const view = JSON.parse(result.stdout);
    expect(view.found).toBe(true);
    expect(view.brief).toMatch(/^# Resuming: .*\n[\s\S]*Ship the parser/);
  });

  it('handoff list outside git says what push says, in one line', async () => {
    const folder = tempDir();
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const push = await runCli(['handoff', 'push'], { cwd: folder, env });
    for (const args of [
      ['handoff', 'list'],
      ['handoff', 'drop', 'x'],
    ]) {
      const result = await runCli(args, { cwd: folder, env });
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(push.stderr);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('list with no snapshots names the CLI command to take one, not the MCP tool', async () => {
    const { cli } = inProject();
    const result = await cli('list');
    expect(result.stdout).toContain('Take one with `claude-checkpoint snapshot`.');
    expect(result.stdout).not.toContain('snapshot_files');
  });

  it('a current folder deleted under it is a clear error, not a crash, for every command', async () => {
    const parent = tempDir('cli-gone-');
    for (const command of ['status', 'list', 'snapshot', 'brief']) {
      // The shell enters the folder, removes it, then runs the CLI there: the process's folder is gone.
      const result = spawnSync(
        'sh',
        ['-c', `mkdir gone && cd gone && rmdir ../gone && exec "$0" "$1" ${command}`, process.execPath, CLI],
        { cwd: parent, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: tempDir('cli-home-') } },
      );
      expect(result.status, command).toBe(2);
      expect(result.stderr).toBe(
        'claude-checkpoint: the current folder no longer exists (deleted or moved): run from the project folder, or name the project root\n',
      );
    }
  });
});

// Issue 26: the help said "3 restore not confirmed", while rewind, handoff pull and handoff drop exit 3 too.
describe('exit codes, as the help and docs/cli.md say them', () => {
  const NOT_CONFIRMED = ['restore', 'rewind', 'handoff pull', 'handoff drop'];

  it('the top-level help names every command that exits 3 when not confirmed, and each 1 that is not an error', async () => {
    const help = (await runCli(['--help'], { cwd: tempDir() })).stdout;
    const line = help.split('\n').find((text) => text.startsWith('Exit codes:')) ?? '';
    const three = line.slice(line.indexOf('· 3 '));
    for (const command of NOT_CONFIRMED) expect(three, command).toContain(command);
    for (const command of ['doctor', 'scan', 'handoff push', 'handoff pull', 'handoff drop'])
      expect(line.slice(0, line.indexOf('· 2 ')), command).toContain(command);
  });

  // Each of them is checked to exit 3: cli-rewind, cli-rewind-picker and handoff tests.
  it('docs/cli.md says the same', () => {
    const page = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    const paragraph = page.slice(page.indexOf('Exit codes: `0`'), page.indexOf('`hook` always exits'));
    const three = paragraph.slice(paragraph.indexOf('`3`'));
    for (const command of NOT_CONFIRMED) expect(three, command).toContain(`\`${command}\``);
  });
});

// Issue 26: docs/cli.md said every command takes --root, and `claude-checkpoint --root /x status` was
// "unknown option '--root'".
describe('--root before the command name', () => {
  it('names the project for any command, as after the name; after the name wins', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    const other = createRepo({ committed: { 'b.txt': 'b' } });
    const elsewhere = tempDir();
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    expect(
      (await runCli(['--root', root, 'save', '--goal', 'Rooted before'], { cwd: elsewhere, env })).code,
    ).toBe(0);
    const status = await runCli(['--root', root, 'status'], { cwd: elsewhere, env });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`Project ${root}`);
    expect(status.stdout).toContain('Goal: Rooted before');
    const both = await runCli([`--root=${other}`, 'status', '--root', root], { cwd: elsewhere, env });
    expect(both.stdout).toContain(`Project ${root}`);
    const missing = path.join(elsewhere, 'x');
    expect(await runCli(['--root', missing, 'status'], { cwd: elsewhere, env })).toMatchObject({
      code: 2,
      stderr: `claude-checkpoint: --root does not exist: ${missing}\n`,
    });
    // A group of commands, and the hook command.
    const handoff = await runCli(['--root', root, 'handoff', 'list'], { cwd: elsewhere, env });
    expect(handoff.stderr).toContain('this repository has no remote');
    const hook = await runCli(['--root', root, 'hook', 'SessionStart'], {
      cwd: elsewhere,
      env,
      input: JSON.stringify({ cwd: elsewhere, source: 'clear' }),
    });
    expect(JSON.parse(hook.stdout).hookSpecificOutput.additionalContext).toContain('Rooted before');
  });
});
