import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, runNodeScript, SHIPPED_HOOK_ENTRY } from '../helpers/cli.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';

/**
 * Who changed a file after a prompt, as the rewind plan says before writing anything, told apart
 * through the hooks the agents run: a turn runs from its prompt to the end-of-turn hook (Claude Code's
 * Stop, Codex's Stop), and what changes while no turn runs was done outside any agent session.
 */

beforeAll(assertBuilt);

const CLAUDE = 'aaaaaaaa-1111-4222-8333-444444444444';
const CODEX = 'bbbbbbbb-1111-4222-8333-444444444444';

function project() {
  const root = createRepo({ committed: { 'a.txt': 'a0\n', 'build/out.js': 'built\n' } });
  const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: tempDir('home-') };
  /** Claude Code's hooks through the plugin's bundle, as it runs them; Codex's through `hook --agent codex`. */
  const hook = async (agent: 'claude' | 'codex', event: string, fields: Record<string, unknown>) => {
    const session = agent === 'claude' ? CLAUDE : CODEX;
    const input = JSON.stringify({ session_id: session, cwd: root, hook_event_name: event, ...fields });
    const run =
      agent === 'claude'
        ? await runNodeScript(SHIPPED_HOOK_ENTRY, [event], { cwd: root, env, input })
        : await runCli(['hook', event, '--agent', 'codex'], { cwd: root, env, input });
    expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
  };
  const cli = async (...args: string[]) => {
    const run = await runCli([...args, '--root', root], { cwd: root, env });
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout);
  };
  return { root, env, hook, cli };
}

describe('the end of a turn marks where the session’s work stopped', () => {
  it('a hand edit after a turn ended is outside any agent; the other session’s edits, its pre-command stretch included, are that session’s', async () => {
    const { root, hook, cli } = project();
    // Claude Code's first turn: it edits a.txt; the turn ends.
    await hook('claude', 'UserPromptSubmit', { prompt: 'Alpha 1' });
    writeTree(root, { 'a.txt': 'a1 by claude\n' });
    await hook('claude', 'Stop', { stop_hook_active: false });
    // A person edits a file while no turn runs.
    writeTree(root, { 'hand.txt': 'typed by a person\n' });
    // Codex's turn: it writes b.txt, then runs a destructive command (a pre-command snapshot) that removes build/.
    await hook('codex', 'UserPromptSubmit', { prompt: 'Beta 1' });
    writeTree(root, { 'b.txt': 'by codex\n' });
    await hook('codex', 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'rm -rf build' } });
    rmSync(path.join(root, 'build'), { recursive: true });
    await hook('codex', 'Stop', {});
    // Claude Code's second turn.
    await hook('claude', 'UserPromptSubmit', { prompt: 'Alpha 2' });
    writeTree(root, { 'a.txt': 'a2 by claude\n' });
    await hook('claude', 'Stop', {});

    const triggers = (await cli('list', '--json')).snapshots.map(
      (snapshot: { trigger: string; sessionId?: string }) => [snapshot.trigger, snapshot.sessionId],
    );
    expect(triggers).toEqual([
      ['turn-end', CLAUDE],
      ['prompt', CLAUDE],
      ['turn-end', CODEX],
      ['pre-command', CODEX],
      ['prompt', CODEX],
      ['turn-end', CLAUDE],
      ['prompt', CLAUDE],
    ]);
    // The turn ends are no prompts to go back to.
    const listed = await cli('rewind', '--list', '--all', '--json');
    expect(
      listed.sessions.map((session: { entries: Array<{ prompt: string }> }) =>
        session.entries.map((entry) => entry.prompt),
      ),
    ).toEqual([['Alpha 2', 'Alpha 1'], ['Beta 1']]);

    const plan = await cli('rewind', 'latest~1', '--code', '--dry-run', '--json');
    expect(plan.entry.prompt).toBe('Alpha 1');
    expect(plan.code.plan).toMatchObject({
      overwrite: ['a.txt'],
      create: ['build/out.js'],
      delete: ['b.txt', 'hand.txt'],
    });
    // a.txt is Claude Code's own work, which going back to its prompt is meant to undo.
    expect(plan.code.conflicts).toEqual([
      { path: 'b.txt', changedBy: [`session ${CODEX} (codex)`] },
      { path: 'build/out.js', changedBy: [`session ${CODEX} (codex)`] },
      { path: 'hand.txt', changedBy: ['outside any agent session'] },
    ]);
  }, 120_000);

  it('a second end of the same turn takes no snapshot, and a project with no snapshots gets no store', async () => {
    const { root, env, hook, cli } = project();
    await hook('claude', 'Stop', {});
    // No prompt ever snapshotted here: no store is made just to mark the end of a turn.
    expect(readdirSync(env.CHECKPOINT_STORE_DIR)).not.toContain('projects');
    await hook('claude', 'UserPromptSubmit', { prompt: 'Alpha 1' });
    await hook('claude', 'Stop', {});
    // Nothing changed in the turn: the end is marked all the same, the tree shared with the prompt.
    const [end, prompt] = (await cli('list', '--json')).snapshots;
    expect([end.trigger, prompt.trigger]).toEqual(['turn-end', 'prompt']);
    expect(end.changes).toEqual({ added: 0, modified: 0, deleted: 0 });
    // `list` says what it is.
    const text = (await runCli(['list', '--root', root], { cwd: root, env })).stdout;
    expect(text).toMatch(/\[turn-end\] \+0 ~0 -0 \S+ — end of a turn of session aaaaaaaa \(claude\)\n/);
    await hook('claude', 'SessionEnd', { reason: 'other' });
    await hook('claude', 'Stop', {});
    expect((await cli('list', '--json')).snapshots).toHaveLength(2);
  }, 120_000);
});

// Helper task (issue 26): after a rewind and then its printed undo (`restore <id> --yes`, typed by the
// person between turns), what the undo brought back, the session's own work, was credited to
// "outside any agent session": the undo's safety snapshot named no session, as the rewind's did.
describe('a rewind, then its undo', () => {
  it('the session’s work the undo brings back stays the session’s', async () => {
    const { root, hook, cli } = project();
    await hook('claude', 'UserPromptSubmit', { prompt: 'Alpha 1' });
    writeTree(root, { 'a.txt': 'a1 by claude\n' });
    await hook('claude', 'Stop', {});
    await hook('claude', 'UserPromptSubmit', { prompt: 'Alpha 2' });
    writeTree(root, { 'a.txt': 'a2 by claude\n', 'new.txt': 'by claude\n' });
    await hook('claude', 'Stop', {});

    const rewound = await cli('rewind', 'latest', '--code', '--yes', '--json');
    const undo = rewound.code.undoSnapshotId as string;
    expect(undo).toBeTruthy();
    await cli('restore', undo, '--yes', '--json');
    const undone = (await cli('list', '--json')).snapshots[0] as { trigger: string; sessionId?: string };
    expect(undone).toMatchObject({ trigger: 'pre-restore', sessionId: CLAUDE });

    // The session goes on; going back to its first prompt now undoes only its own work.
    await hook('claude', 'UserPromptSubmit', { prompt: 'Alpha 3' });
    const plan = await cli('rewind', 'latest~2', '--code', '--dry-run', '--json');
    expect(plan.entry.prompt).toBe('Alpha 1');
    expect(plan.code.plan).toMatchObject({ overwrite: ['a.txt'], delete: ['new.txt'] });
    expect(plan.code.conflicts).toEqual([]);
  }, 120_000);
});

// Daily-use trial: a far rewind asked git for each stretch since the prompt in a process of its own, 730
// after a week (seconds); the stretches now go to one `git diff-tree --stdin`, as the rewind list does.
describe('who changed what since a far prompt', () => {
  it('is read from one git diff-tree however many snapshots followed the prompt', async () => {
    const { root, env, hook } = project();
    await hook('claude', 'UserPromptSubmit', { prompt: 'Long ago' });
    writeTree(root, { 'a.txt': 'by claude\n' });
    await hook('claude', 'Stop', {});
    // Ten edits outside any agent session, each with a snapshot of its own.
    for (let i = 0; i < 10; i++) {
      writeTree(root, { [`hand${i}.txt`]: `typed ${i}\n`, 'a.txt': `edit ${i}\n` });
      expect((await runCli(['snapshot', '--root', root], { cwd: root, env })).code).toBe(0);
    }
    // git on PATH through a wrapper that notes each diff-tree it runs.
    const bin = tempDir('git-wrapper-');
    const log = path.join(bin, 'calls.log');
    writeFileSync(
      path.join(bin, 'git'),
      `#!/bin/sh\nfor a in "$@"; do [ "$a" = diff-tree ] && echo diff-tree >> '${log}'; done\nexec '${execFileSync('which', ['git'], { encoding: 'utf8' }).trim()}' "$@"\n`,
      { mode: 0o755 },
    );
    const run = await runCli(['rewind', 'latest', '--code', '--dry-run', '--json', '--root', root], {
      cwd: root,
      env: { ...env, PATH: `${bin}:${process.env.PATH ?? ''}` },
    });
    expect(run.code, run.stderr).toBe(0);
    const plan = JSON.parse(run.stdout);
    expect(plan.code.conflicts).toContainEqual({ path: 'a.txt', changedBy: ['outside any agent session'] });
    expect(plan.code.conflicts).toHaveLength(11);
    const calls = readFileSync(log, 'utf8').trim().split('\n').length;
    // The plan's own diff and the conflicts' one, whatever the history's length (eleven before).
    expect(calls).toBeLessThanOrEqual(3);
  }, 60_000);
});
