import { appendFileSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, git, tempDir, workerStateHome, writeTree } from '../helpers/fixtures.js';

// Issue 26 (new-user trial): in a repository, git missing from PATH made nearly every command fail with
// "git is not installed or not on PATH", and a `.git/config` git cannot parse made status and doctor
// exit 1 and the brief say the project was no longer a git repository.

beforeAll(assertBuilt);

const SERVER = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

/** A PATH holding only `node`: git cannot run. */
function pathWithoutGit(): string {
  const bin = path.join(tempDir('checkpoint-nogit-'), 'bin');
  mkdirSync(bin);
  symlinkSync(process.execPath, path.join(bin, 'node'));
  return bin;
}

/** A repository with a checkpoint saved while git worked, then a file changed. */
async function savedRepo(env: Record<string, string>) {
  const root = createRepo({ committed: { 'a.ts': 'a' } });
  expect((await runCli(['save', '--goal', 'Ship it'], { cwd: root, env })).code).toBe(0);
  writeTree(root, { 'a.ts': 'changed' });
  return root;
}

describe('git missing from PATH in a repository', () => {
  it('save, brief, status and doctor work as without git and say git is missing; snapshot fails clearly', async () => {
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const root = await savedRepo(env);
    const noGit = { ...env, PATH: pathWithoutGit() };

    const status = await runCli(['status'], { cwd: root, env: noGit });
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('Drift: not checked (git is not installed or not on PATH)');
    expect(status.stdout).toContain('Git ignore: unknown (git is not installed or not on PATH)');

    const brief = await runCli(['brief'], { cwd: root, env: noGit });
    expect(brief.code).toBe(0);
    expect(brief.stdout).toContain('## Goal\nShip it');
    expect(brief.stdout).toContain('Drift could not be checked: git is not installed or not on PATH');
    expect(brief.stdout).not.toContain('no longer a git repository');

    const doctor = await runCli(['doctor'], { cwd: root, env: noGit });
    expect(doctor.code).toBe(0);
    expect(doctor.stdout).toContain('! git: git was not found on PATH');
    expect(doctor.stdout).toContain('snapshot store:');

    const save = await runCli(['save', '--goal', 'Again'], { cwd: root, env: noGit });
    expect(save.code).toBe(0);
    expect(save.stdout).toContain('Checkpoint saved');
    expect(save.stdout + save.stderr).toContain(
      'No git facts saved (branch, HEAD, uncommitted files): git is not installed or not on PATH',
    );

    for (const command of [['snapshot'], ['handoff', 'push']]) {
      const failed = await runCli(command, { cwd: root, env: noGit });
      expect(failed, command[0]).toMatchObject({ code: 1 });
      expect(failed.stderr, command[0]).toContain('git is not installed or not on PATH');
    }
  });

  it('the SessionStart hook still gives the brief', async () => {
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const root = await savedRepo(env);
    const input = JSON.stringify({
      session_id: 's',
      cwd: root,
      hook_event_name: 'SessionStart',
      source: 'clear',
    });
    const result = await runCli(['hook', 'SessionStart'], {
      cwd: root,
      env: { ...env, PATH: pathWithoutGit() },
      input,
    });
    expect(result.code).toBe(0);
    const context = JSON.parse(result.stdout).hookSpecificOutput.additionalContext as string;
    expect(context).toContain('## Goal\nShip it');
    expect(context).toContain('git is not installed or not on PATH');
  });

  it('the MCP server saves and loads', async () => {
    const root = await savedRepo({ CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER],
      cwd: root,
      env: { PATH: pathWithoutGit(), HOME: process.env.HOME ?? '', XDG_STATE_HOME: workerStateHome() },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'git-unavailable', version: '1.0.0' });
    await client.connect(transport);
    onTestFinished(() => client.close());
    await client.listTools();
    const text = (result: { content: unknown }) =>
      (result.content as Array<{ text?: string }>)[0]?.text ?? '';

    const loaded = await client.callTool({ name: 'load_session_checkpoint', arguments: {} });
    expect(loaded.isError, text(loaded)).toBeFalsy();
    expect(text(loaded)).toContain('Drift could not be checked: git is not installed or not on PATH');
    const saved = await client.callTool({
      name: 'save_session_checkpoint',
      arguments: { goal: 'From the model' },
    });
    expect(saved.isError, text(saved)).toBeFalsy();
    expect(text(saved)).toContain('git is not installed or not on PATH');
  });
});

describe('git missing from PATH where `.git` is a file (a linked worktree, a submodule)', () => {
  it('is still a repository git cannot read, not a plain folder', async () => {
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const root = tempDir('checkpoint-repo-');
    git(root, 'init', '-q', '--separate-git-dir', path.join(tempDir('checkpoint-gitdir-'), 'git'));
    writeTree(root, { 'a.ts': 'a' });
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'initial');
    expect((await runCli(['save', '--goal', 'Ship it'], { cwd: root, env })).code).toBe(0);
    const noGit = { ...env, PATH: pathWithoutGit() };
    const status = await runCli(['status'], { cwd: root, env: noGit });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('Drift: not checked (git is not installed or not on PATH)');
    expect(status.stdout).toContain('Git ignore: unknown (git is not installed or not on PATH)');
    const save = await runCli(['save', '--goal', 'Again'], { cwd: root, env: noGit });
    expect(save.stdout + save.stderr).toContain('No git facts saved');
  });
});

describe('a .git/config git cannot parse', () => {
  it("status and doctor go on, the brief and a save give git's reason", async () => {
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const root = await savedRepo(env);
    appendFileSync(path.join(root, '.git', 'config'), '[core\n');
    const reason = 'git could not read the repository: fatal: bad config line';

    const status = await runCli(['status'], { cwd: root, env });
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`Drift: not checked (${reason}`);
    expect(status.stdout).toContain(`Git ignore: unknown (${reason}`);

    const doctor = await runCli(['doctor'], { cwd: root, env });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(
      `✗ git ignore: could not tell whether the checkpoint files are git-ignored: ${reason}`,
    );
    expect(doctor.stdout).toContain('snapshot store:');

    const brief = await runCli(['brief'], { cwd: root, env });
    expect(brief.code).toBe(0);
    expect(brief.stdout).toContain(`Drift could not be checked: ${reason}`);
    expect(brief.stdout).not.toContain('no longer a git repository');

    const save = await runCli(['save', '--goal', 'Again'], { cwd: root, env });
    expect(save.code).toBe(0);
    expect(save.stdout + save.stderr).toContain(
      `No git facts saved (branch, HEAD, uncommitted files): ${reason}`,
    );
  });
});
