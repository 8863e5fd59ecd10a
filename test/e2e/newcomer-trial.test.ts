import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { assertBuilt, CLI, cliProject, runCli, sendPrompt } from '../helpers/cli.js';
import { createRepo, git, tempDir, writeTree } from '../helpers/fixtures.js';
import { bareRemote, machine, cli as onMachine } from '../helpers/handoff.js';
import { connect } from '../helpers/mcp.js';

/** What a read-only newcomer trial of the product found (2026-12-07), each pinned as it was reproduced. */

beforeAll(assertBuilt);

describe('an empty string option is refused, not taken for its default (item 1)', () => {
  it.each([
    [['handoff', 'push', '--remote', ''], '--remote must name a git remote'],
    [['handoff', 'pull', '--remote', ''], '--remote must name a git remote'],
    [['handoff', 'list', '--remote', ''], '--remote must name a git remote'],
    [['handoff', 'drop', 'x', '--remote', '', '--yes'], '--remote must name a git remote'],
    [['diff', 'latest', '--against', ''], '--against must name a snapshot'],
  ])('%j', async (args, message) => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    expect((await onMachine(a, 'snapshot')).code).toBe(0);
    const refused = await onMachine(a, ...args);
    expect(refused.stderr).toContain(`claude-checkpoint: ${message}: got ''`);
    expect(refused.code).toBe(2);
    expect(git(bare, 'for-each-ref', 'refs/claude-checkpoint')).toBe('');
  });
});

describe('handoff errors read as sentences on both surfaces, with their own field names (items 3 and 11)', () => {
  it('pull_handoff and handoff pull of a handoff that is not there', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    const { call } = await connect({ deps: { env: a.env } });
    const named = await call('pull_handoff', { projectRoot: a.root, name: 'nosuch' });
    expect(named.text).toBe(
      "name: no handoff 'nosuch' on remote 'origin': a person can see the handoffs there with `claude-checkpoint handoff list`",
    );
    const byBranch = await call('pull_handoff', { projectRoot: a.root });
    expect(byBranch.text).toBe(
      "name: no handoff 'main' on remote 'origin' (without name, the handoff of the current branch): a person can see the handoffs there with `claude-checkpoint handoff list`; to pull another, pass name",
    );
    expect((await onMachine(a, 'handoff', 'pull')).stderr).toBe(
      "claude-checkpoint: --name: no handoff 'main' on remote 'origin' (without --name, the handoff of the current branch): see the handoffs there with `claude-checkpoint handoff list`; to pull another, pass --name\n",
    );
  });

  it('a detached HEAD names --name at the CLI, name over MCP', async () => {
    const { root, env, cli } = cliProject();
    git(root, 'checkout', '-q', '--detach');
    expect((await cli('handoff', 'push')).stderr).toBe(
      'claude-checkpoint: --name: HEAD is detached, so there is no branch to name the handoff after: pass --name\n',
    );
    const { call } = await connect({ deps: { env } });
    expect((await call('push_handoff', { projectRoot: root })).text).toBe(
      'name: HEAD is detached, so there is no branch to name the handoff after: pass name',
    );
  });

  it('--checkout on a dirty tree names --checkout, the flag that asked for it', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    writeTree(a.root, { 'src/feature.ts': 'on A only\n' });
    git(a.root, 'add', '-A');
    git(a.root, 'commit', '-q', '-m', 'A, unpushed');
    expect((await onMachine(a, 'handoff', 'push')).code).toBe(0);
    writeTree(b.root, { 'README.md': '# Edited here\n' });
    const refused = await onMachine(b, 'handoff', 'pull', '--checkout', '--yes');
    expect(refused.stderr).toBe(
      'claude-checkpoint: --checkout: the working tree has uncommitted changes; commit or stash them first (nothing was changed)\n',
    );
    expect(refused.code).toBe(2);
  });

  it('a branch that cannot name a handoff names --name at the CLI', async () => {
    const { root, cli } = cliProject();
    git(root, 'switch', '-q', '-c', 'fix+1');
    expect((await cli('handoff', 'push')).stderr).toMatch(
      /^claude-checkpoint: --name: the current branch 'fix\+1' cannot name a handoff .*: pass --name\n$/,
    );
  });
});

/** Two clones of one remote: Alice saved, changed a file and pushed a handoff; Bob's clone, to pull it. */
async function bobWithAlicesHandoff() {
  const { bare } = bareRemote();
  const a = machine(`file://${bare}`, 'Alice');
  const b = machine(`file://${bare}`, 'Bob');
  expect((await onMachine(a, 'save', '--goal', 'Add the login form')).code).toBe(0);
  writeTree(a.root, { 'src/app.ts': 'export const app = 2;\n' });
  expect((await onMachine(a, 'handoff', 'push')).code).toBe(0);
  return b;
}

describe('a pull that is only a plan says so, and one that changes nothing takes no snapshot (items 2 and 10)', () => {
  it('handoff pull --dry-run and pull_handoff are headed as a plan and say how to apply it', async () => {
    const b = await bobWithAlicesHandoff();

    const dry = await onMachine(b, 'handoff', 'pull', '--dry-run');
    expect(dry.code).toBe(0);
    const lines = dry.stdout.split('\n');
    expect(lines[1]).toBe(
      'Dry run: pulling it would change 1 file(s) and the checkpoint. Nothing was changed.',
    );
    expect(lines.at(-2)).toBe('Apply it with: claude-checkpoint handoff pull --name main --yes');
    const viaRemote = await onMachine(b, 'handoff', 'pull', '--dry-run', '--remote', 'origin');
    expect(viaRemote.stdout).toContain(
      'Apply it with: claude-checkpoint handoff pull --remote origin --name main --yes',
    );

    const { call } = await connect({ deps: { env: b.env } });
    const plan = await call('pull_handoff', { projectRoot: b.root });
    expect(plan.text.split('\n')[1]).toBe(
      'Dry run: pulling it would change 1 file(s) and the checkpoint. Nothing was changed.',
    );
    expect(plan.text.split('\n').at(-1)).toBe('Run pull_handoff again with dryRun: false to apply it.');
    expect(plan.text).not.toContain('claude-checkpoint handoff pull');
  });

  it('handoff pull --yes twice: the second changes nothing, takes no snapshot and prints no undo', async () => {
    const b = await bobWithAlicesHandoff();
    const first = await onMachine(b, 'handoff', 'pull', '--yes');
    expect(first.stdout).toContain('To undo: ');
    const snapshots = async () =>
      (JSON.parse((await onMachine(b, 'list', '--json')).stdout) as { total: number }).total;
    const before = await snapshots();

    const again = await onMachine(b, 'handoff', 'pull', '--yes');
    expect(again.code).toBe(0);
    expect(again.stdout.split('\n')[1]).toBe(
      'Nothing was changed: the working tree and the checkpoint here already match the handoff.',
    );
    expect(again.stdout).not.toContain('To undo');
    expect(await snapshots()).toBe(before);
    const json = JSON.parse((await onMachine(b, 'handoff', 'pull', '--yes', '--json')).stdout);
    expect(json).toMatchObject({ applied: true, undo: null, checkpoint: 'unchanged' });
    expect(await snapshots()).toBe(before);
  });
});

describe('a rewind of the code that changes nothing takes no snapshot (sibling of item 10)', () => {
  it('rewind latest --code --yes on a tree that matches the prompt: no pre-restore snapshot, no undo', async () => {
    const { root, env, cli } = cliProject();
    const input = JSON.stringify({
      session_id: 'aaaaaaaa-1111-4222-8333-444444444444',
      cwd: root,
      hook_event_name: 'UserPromptSubmit',
      prompt: 'Fix the build',
    });
    expect((await runCli(['hook', 'UserPromptSubmit'], { cwd: root, env, input })).code).toBe(0);
    const rewound = await cli('rewind', 'latest', '--code', '--yes');
    expect(rewound.stdout).toContain(
      'Code: the working tree already matches this prompt; nothing to restore.',
    );
    expect(rewound.code).toBe(0);
    expect((JSON.parse((await cli('list', '--json')).stdout) as { total: number }).total).toBe(1);
  });
});

describe('a file no snapshot holds is named so by restore and diff, never "already matches" (item 4)', () => {
  const CHECKPOINT_FILE_NOT_HELD =
    "path '.claude-checkpoint' is the checkpoint's own file, which snapshots never hold: it keeps the session's notes (save and load write and read it), not the project's files";

  it.each([
    [['restore', 'latest', '.claude-checkpoint', '--yes'], CHECKPOINT_FILE_NOT_HELD],
    [['restore', 'latest', '.claude-checkpoint', '--dry-run'], CHECKPOINT_FILE_NOT_HELD],
    [['diff', 'latest', '.claude-checkpoint'], CHECKPOINT_FILE_NOT_HELD],
    [['restore', 'latest', 'build.log', '--yes'], "path 'build.log' is in neither snapshot"],
  ])('%j', async (args, message) => {
    const { root, cli } = cliProject({ '.gitignore': '*.log\n.claude-checkpoint*\n', 'a.txt': 'one\n' });
    writeTree(root, { 'build.log': 'ignored\n' });
    expect((await cli('save', '--goal', 'Ship it')).code).toBe(0);
    expect((await cli('snapshot')).code).toBe(0);
    const refused = await cli(...args);
    expect(refused.stderr).toContain(`claude-checkpoint: ${message}`);
    expect(refused.stdout).not.toContain('already matches');
    expect(refused.code).toBe(2);
    expect((await cli('list', '--json')).stdout).toContain('"total": 1');
  });

  it('an empty folder made since the snapshot is named as a folder snapshots do not hold, not as a file (review)', async () => {
    const { root, cli } = cliProject();
    expect((await cli('snapshot')).code).toBe(0);
    mkdirSync(path.join(root, 'empty'));
    const refused = await cli('restore', 'latest', 'empty', '--yes');
    expect(refused.stderr).toContain('snapshots hold files, not empty folders');
    expect(refused.stderr).not.toContain('the file is there');
    expect(refused.code).toBe(2);
  });

  it('a file the snapshot left out (over the size cap) is still named as that, with exit 0', async () => {
    const { root, env } = cliProject();
    const run = { cwd: root, env: { ...env, CHECKPOINT_SNAPSHOT_MAX_FILE_MB: '0.001' } };
    writeTree(root, { 'big.bin': 'x'.repeat(4096) });
    expect((await runCli(['snapshot'], run)).code).toBe(0);
    const restore = await runCli(['restore', 'latest', 'big.bin', '--yes'], run);
    expect(restore.stdout).toContain('so no restore from it brings back: `big.bin`');
    expect(restore.code).toBe(0);
    // diff says the same of it, where it said the path was in neither side (review).
    const diff = await runCli(['diff', 'latest', 'big.bin'], run);
    expect(diff.stdout).toMatch(/Not compared: snapshot \S+ leaves out `big.bin`/);
    expect(diff.code, diff.stderr).toBe(0);
  });

  it('a file made since the snapshot is still restored by deleting it', async () => {
    const { root, cli } = cliProject();
    expect((await cli('snapshot')).code).toBe(0);
    writeTree(root, { 'new.txt': 'made since\n' });
    const plan = await cli('restore', 'latest', 'new.txt', '--dry-run');
    expect(plan.stdout).toContain('Delete (1):\n  new.txt');
  });
});

describe('with no prompt recorded, rewind says how prompts get recorded and where the snapshots are (item 6)', () => {
  const HINT =
    "the agent's hooks record them (the plugin, or `claude-checkpoint setup <agent>`); `claude-checkpoint list` shows the snapshots there are, which restore can use";

  it.each([
    ['no store yet', false],
    ['a manual snapshot, no prompt', true],
  ])('%s', async (_title, withSnapshot) => {
    const { cli } = cliProject();
    if (withSnapshot) expect((await cli('snapshot')).code).toBe(0);
    expect((await cli('rewind', '--list')).stdout).toBe(
      `No prompts recorded for this project yet: ${HINT}.\n`,
    );
    const code = await cli('rewind', 'latest', '--code', '--yes');
    expect(code.stderr).toBe(`claude-checkpoint: there are no prompts in this project yet: ${HINT}\n`);
    expect(code.code).toBe(2);
  });
});

describe('rewind --list --all gives every session its resume command (item 9)', () => {
  it('the session that prompted last too, as the picker and --json do', async () => {
    const { root, env } = cliProject();
    for (const [session, prompt] of [
      ['aaaaaaaa-1111-4222-8333-444444444444', 'First'],
      ['bbbbbbbb-1111-4222-8333-444444444444', 'Second'],
    ] as const)
      expect((await sendPrompt(root, env, session, prompt)).code).toBe(0);
    const listed = await runCli(['rewind', '--list', '--all'], { cwd: root, env });
    const resumes = listed.stdout.split('\n').filter((line) => line.startsWith('  resume it: '));
    expect(resumes).toEqual([
      '  resume it: claude --resume bbbbbbbb-1111-4222-8333-444444444444',
      '  resume it: claude --resume aaaaaaaa-1111-4222-8333-444444444444',
    ]);
    // In the session one is in (named), its own resume command is left out.
    const named = await runCli(['rewind', '--list', '--all', '--session', 'bbbbbbbb'], { cwd: root, env });
    expect(named.stdout.split('\n').filter((line) => line.startsWith('  resume it: '))).toEqual([
      '  resume it: claude --resume aaaaaaaa-1111-4222-8333-444444444444',
    ]);
  });
});

describe('after git commit --amend, no surface counts new commits (item 7)', () => {
  it('status after a branch checked out from an older commit says the saved commit is not in its history, not that history was rewritten (review)', async () => {
    const { root, cli } = cliProject();
    git(root, 'commit', '-q', '--allow-empty', '-m', 'second');
    expect((await cli('save', '--goal', 'Ship it')).code).toBe(0);
    git(root, 'checkout', '-q', '-b', 'feature', 'HEAD~1');
    git(root, 'commit', '-q', '--allow-empty', '-m', 'on feature');
    const status = await cli('status');
    expect(status.stdout).toContain("saved commit not in HEAD's history, branch now feature");
    expect(status.stdout).not.toContain('rewritten');
  });

  it('brief, status, load_session_checkpoint and the SessionStart brief say the history was rewritten', async () => {
    const { root, env, cli } = cliProject();
    expect((await cli('save', '--goal', 'Ship it')).code).toBe(0);
    git(root, 'commit', '-q', '--amend', '-m', 'amended');

    const brief = await cli('brief');
    expect(brief.stdout).toContain('is no longer reachable (history rewritten or reset');
    expect(brief.stdout).not.toContain('new commit');
    const status = await cli('status');
    expect(status.stdout).toContain("saved commit not in HEAD's history");
    expect(status.stdout).not.toContain('new commit');
    const { call } = await connect({ deps: { env } });
    const loaded = await call('load_session_checkpoint', { projectRoot: root });
    expect(loaded.structured?.drift).toMatchObject({ commitsSince: null, savedHeadReachable: false });
    expect(loaded.text).not.toContain('new commit');
    const input = JSON.stringify({
      session_id: 'aaaaaaaa-1111-4222-8333-444444444444',
      cwd: root,
      hook_event_name: 'SessionStart',
      source: 'startup',
    });
    // The brief itself at session start (the default is a notice that points to it).
    const hook = await runCli(['hook', 'SessionStart'], {
      cwd: root,
      env: { ...env, CHECKPOINT_HOOK_STARTUP: 'brief' },
      input,
    });
    expect(hook.stdout).toContain('is no longer reachable');
    expect(hook.stdout).not.toContain('new commit');
  });
});

describe('a wrong value only in the environment (item 14)', () => {
  it('names every word the environment takes, and the fix names the variable, not a file that lacks it', async () => {
    const { root, env } = cliProject();
    const run = { cwd: root, env: { ...env, HOME: tempDir('home-'), CHECKPOINT_HOOK_RELAY: 'maybe' } };
    const doctor = await runCli(['doctor', '--json'], run);
    const check = JSON.parse(doctor.stdout).checks.find((entry: { detail: string }) =>
      entry.detail.startsWith('CHECKPOINT_HOOK_RELAY'),
    );
    expect(check.detail).toBe(
      "CHECKPOINT_HOOK_RELAY must be true or false (in the environment: 1, true, on, yes; or 0, false, off, no): got 'maybe'",
    );
    expect(check.fix).toMatch(/^Correct or unset CHECKPOINT_HOOK_RELAY in the environment\. /);
    expect(check.fix).not.toContain('config.json');
  });
});

describe('save --stdin with --root and another projectRoot in the JSON (item 12)', () => {
  it('is refused, naming both, and nothing is saved in either folder', async () => {
    const { root, input } = cliProject();
    const other = createRepo({ committed: { 'b.txt': 'b\n' } });
    const json = JSON.stringify({ goal: 'Ship it', projectRoot: other });
    const refused = await input(json, 'save', '--stdin', '--root', root);
    expect(refused.stderr).toBe(
      `claude-checkpoint: --root and projectRoot (in the JSON on stdin) name different folders: --root '${root}', projectRoot '${other}'; give the folder once (or the same folder in both)\n`,
    );
    expect(refused.code).toBe(2);
    expect(existsSync(path.join(root, '.claude-checkpoint'))).toBe(false);
    expect(existsSync(path.join(other, '.claude-checkpoint'))).toBe(false);
    const same = await input(
      JSON.stringify({ goal: 'Ship it', projectRoot: `${root}/` }),
      'save',
      '--stdin',
      '--root',
      root,
    );
    expect(same.code, same.stderr).toBe(0);
    // The same folder through a link is the same folder (review).
    const link = path.join(tempDir('newcomer-link-'), 'project');
    symlinkSync(root, link);
    const linked = await input(
      JSON.stringify({ goal: 'Ship it', projectRoot: link }),
      'save',
      '--stdin',
      '--root',
      root,
    );
    expect(linked.code, linked.stderr).toBe(0);
  });
});

describe('scan with no file on a terminal says it reads standard input (item 13)', () => {
  it('and how to end it; what is typed is scanned', async () => {
    const { root, env } = cliProject();
    const child = spawn('script', ['-q', '-e', '-c', `'${process.execPath}' '${CLI}' scan`, '/dev/null'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', TERM: 'xterm', NO_COLOR: '1', HOME: tempDir('home-'), ...env },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const exit = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
    onTestFinished(() => {
      child.kill();
    });
    // Without the note, scan waits in silence: the test fails at the deadline rather than hanging.
    const deadline = Date.now() + 30_000;
    while (!output.includes('reading standard input')) {
      if (Date.now() > deadline) throw new Error(`never said it reads standard input:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(output).toContain('end it with Ctrl-D');
    child.stdin.write('nothing secret here\n\u0004');
    expect(await exit).toBe(0);
  }, 60_000);
});
