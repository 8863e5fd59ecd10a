import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';
import { connect } from '../helpers/mcp.js';

/**
 * Trial of 2026-12-07: in a fresh `git init`, before the first commit, drift was never checked (the
 * checkpoint's `git` is null then, as the spec says), though the files' oids were saved; `status` said "no
 * git at save time", and outside git the brief said nothing of drift at all.
 */

beforeAll(assertBuilt);

/** A fresh repository with no commit, and `a.ts` in it. */
function freshRepo() {
  const root = createRepo({ dirty: { 'a.ts': 'a\n' } });
  const env = { CHECKPOINT_STORE_DIR: tempDir('first-commit-store-'), HOME: tempDir('first-commit-home-') };
  return { root, env, cli: (...args: string[]) => runCli(args, { cwd: root, env }) };
}

describe('drift before the first commit and outside git', () => {
  it('an edit after the save is flagged in the brief and in status, with the true reason', async () => {
    const { root, cli } = freshRepo();
    expect((await cli('save', '--goal', 'g', '--file', 'a.ts')).code).toBe(0);
    const clean = await cli('brief');
    expect(clean.stdout).toContain('## Since this checkpoint');
    expect(clean.stdout).toContain('- No listed file changed after the checkpoint');
    appendFileSync(path.join(root, 'a.ts'), 'b\n');
    const brief = await cli('brief');
    expect(brief.code, brief.stderr).toBe(0);
    expect(brief.stdout).toContain('the repository has no commit yet');
    expect(brief.stdout).toContain('- ⚠ Changed after the checkpoint, re-read before editing: `a.ts`');
    const status = await cli('status');
    expect(status.stdout).toMatch(/Drift: 1 listed file\(s\) changed since the save; .*no commit yet/);
    expect(status.stdout).not.toContain('no git at save time');
    const json = JSON.parse((await cli('load', '--json')).stdout);
    expect(json.drift).toMatchObject({
      changedSince: ['a.ts'],
      listedOnly: 'the repository has no commit yet',
    });
  });

  it('the MCP load tool and the SessionStart hook flag it too', async () => {
    const { root, env, cli } = freshRepo();
    expect((await cli('save', '--goal', 'g', '--file', 'a.ts')).code).toBe(0);
    appendFileSync(path.join(root, 'a.ts'), 'b\n');
    const { call } = await connect({ deps: { env: { XDG_STATE_HOME: tempDir(), ...env } } });
    const loaded = await call('load_session_checkpoint', { projectRoot: root });
    expect(loaded.isError).toBeFalsy();
    expect(loaded.structured?.drift).toMatchObject({ changedSince: ['a.ts'] });
    expect(loaded.text).toContain('re-read before editing: `a.ts`');
    const hook = await runCli(['hook', 'SessionStart'], {
      cwd: root,
      env,
      input: JSON.stringify({ session_id: 's', cwd: root, hook_event_name: 'SessionStart', source: 'clear' }),
    });
    expect(hook.code).toBe(0);
    const context = JSON.parse(hook.stdout).hookSpecificOutput.additionalContext as string;
    expect(context).toContain('re-read before editing: `a.ts`');
  });

  it('outside git: listed files are compared; with none, the brief says drift could not be checked, and why', async () => {
    const root = tempDir('no-git-');
    const env = { CHECKPOINT_STORE_DIR: tempDir('no-git-store-'), HOME: tempDir('no-git-home-') };
    const cli = (...args: string[]) => runCli(args, { cwd: root, env });
    mkdirSync(path.join(root, 'src'));
    writeTree(root, { 'src/a.ts': 'a\n' });
    expect((await cli('save', '--goal', 'g', '--file', 'src/a.ts')).code).toBe(0);
    appendFileSync(path.join(root, 'src/a.ts'), 'b\n');
    const brief = await cli('brief');
    expect(brief.stdout).toContain('the project is not a git repository');
    expect(brief.stdout).toContain('re-read before editing: `src/a.ts`');
    expect((await cli('save', '--goal', 'g')).code).toBe(0);
    const none = await cli('brief');
    expect(none.stdout).toContain('- ⚠ Drift could not be checked: the project is not a git repository');
    const status = await cli('status');
    expect(status.stdout).toContain('Drift: not checked (the project is not a git repository)');
  });
});
