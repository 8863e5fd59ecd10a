import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, git, tempDir, writeTree } from '../helpers/fixtures.js';
import { bareRemote, machine, cli as onMachine } from '../helpers/handoff.js';
import { connect } from '../helpers/mcp.js';

/**
 * Issue 26's wording round: what a new user read on 2026-12-06 that was untrue, named the other surface's
 * words, or gave advice that does not work as printed.
 */

beforeAll(assertBuilt);

function inProject(committed: Record<string, string> = { 'a.txt': 'one\n' }) {
  const root = createRepo({ committed });
  const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: tempDir('home-') };
  return {
    root,
    env,
    cli: (...args: string[]) => runCli(args, { cwd: root, env }),
  };
}

/** The command a line of output gives after `prefix`, split into the CLI's arguments (ids and flags only). */
function printedCommand(output: string, prefix: string): string[] {
  const line = output.split('\n').find((each) => each.startsWith(prefix));
  if (!line) throw new Error(`no line starting with ${JSON.stringify(prefix)} in:\n${output}`);
  const command = line.slice(prefix.length).replace(/\.$/, '').trim().split(/\s+/);
  expect(command[0]).toBe('claude-checkpoint');
  return command.slice(1);
}

describe('the MCP tools never name a CLI flag (bug 1)', () => {
  it('push_handoff refused because the remote handoff moved: says who can replace it, not "--force"', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    writeTree(a.root, { 'src/app.ts': 'A\n' });
    expect((await onMachine(a, 'handoff', 'push', '--name', 'shared')).code).toBe(0);
    writeTree(b.root, { 'src/app.ts': 'B\n' });
    const { call } = await connect({ deps: { env: b.env } });
    const refused = await call('push_handoff', { projectRoot: b.root, name: 'shared' });
    expect(refused.isError).toBe(true);
    // Bob never pushed or pulled 'shared': another machine's handoff, in the tools' words (issue 26).
    expect(refused.text).toContain("another machine pushed a handoff named 'shared'");
    expect(refused.text).toContain('pass name <other>), call pull_handoff first');
    // push_handoff has no `force`: a person replaces it, with the CLI.
    expect(refused.text).not.toContain('pass --force');
    expect(refused.text).toContain('a person can replace it with `claude-checkpoint handoff push --force`');
    // The CLI keeps its flag.
    const cli = await onMachine(b, 'handoff', 'push', '--name', 'shared');
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain(
      'pass --name <other>), run `claude-checkpoint handoff pull --name shared` first to continue from it, or pass --force to replace it',
    );
  });

  it('a remote named "-x": the tool says to pass another as remote, not "--remote"', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a\n' } });
    const { call } = await connect({ deps: { env: { CHECKPOINT_STORE_DIR: tempDir('store-') } } });
    const refused = await call('push_handoff', { projectRoot: root, remote: '-x' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('starts with "-"');
    expect(refused.text).not.toContain('--remote');
    expect(refused.text).toContain('another remote as remote');
    const cli = await runCli(['handoff', 'push', '--remote', '-x'], {
      cwd: root,
      env: { CHECKPOINT_STORE_DIR: tempDir('store-') },
    });
    expect(cli.stderr).toContain('pass another with --remote');
  });

  it('a detached HEAD: the tool says to pass name, the CLI --name', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a\n' } });
    git(root, 'checkout', '-q', '--detach');
    const env = { CHECKPOINT_STORE_DIR: tempDir('store-') };
    const { call } = await connect({ deps: { env } });
    const refused = await call('push_handoff', { projectRoot: root });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('no branch to name the handoff after: pass name');
    expect(refused.text).not.toContain('--name');
    const cli = await runCli(['handoff', 'push'], { cwd: root, env });
    expect(cli.stderr).toContain('no branch to name the handoff after: pass --name');
  });
});

describe('handoff pull on another commit than the base (bug 2)', () => {
  it('the base was never pushed: the advice is --checkout, which works as printed, not git fetch', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    writeTree(a.root, { 'src/feature.ts': 'on A only\n' });
    git(a.root, 'add', '-A');
    git(a.root, 'commit', '-q', '-m', 'A, unpushed');
    expect((await onMachine(a, 'handoff', 'push', '--name', 'unpushed')).code).toBe(0);
    const refused = await onMachine(b, 'handoff', 'pull', '--name', 'unpushed', '--yes');
    expect(refused.code).toBe(1);
    expect(refused.stderr).not.toContain('git fetch');
    expect(refused.stderr).not.toContain('git checkout');
    expect(refused.stderr).toContain('pull again with --checkout');
    // Without --yes and no terminal: what it would do is the checkout and the pull, not the advice above.
    const unconfirmed = await onMachine(b, 'handoff', 'pull', '--name', 'unpushed', '--checkout');
    expect(unconfirmed.code).toBe(3);
    expect(unconfirmed.stderr).toContain('is checked out first (clean tree only), as a detached HEAD');
    expect(unconfirmed.stderr).toContain('then the working tree is made equal to the handoff');
    expect(unconfirmed.stderr).not.toContain('pull again with --checkout');
    expect(unconfirmed.stderr).toContain('Not applied: pass --yes');
    expect(unconfirmed.stderr).not.toContain('Dry run');
    const pulled = await onMachine(b, 'handoff', 'pull', '--name', 'unpushed', '--yes', '--checkout');
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(readFileSync(path.join(b.root, 'src/feature.ts'), 'utf8')).toBe('on A only\n');
  });
});

describe('restore --dry-run says the command that applies it (bug 3)', () => {
  it.each([
    ['--dry-run', ['--dry-run'], 'stdout'],
    ['--dry-run --yes', ['--dry-run', '--yes'], 'stdout'],
    ['no terminal, no --yes', [], 'stderr'],
  ] as const)('%s: the printed command applies the plan', async (_name, flags, stream) => {
    const { root, cli } = inProject();
    const snapshot = JSON.parse((await cli('snapshot', '--json')).stdout).snapshot.id as string;
    writeTree(root, { 'a.txt': 'changed\n' });
    const planned = await cli('restore', snapshot, 'a.txt', ...flags);
    expect(planned[stream]).not.toContain('Run the same command with --yes');
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('changed\n');
    const command = printedCommand(planned[stream], 'Apply it with: ');
    expect(command).toEqual(['restore', snapshot, '--yes', '--', 'a.txt']);
    expect((await cli(...command)).code).toBe(0);
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\n');
  });
});

describe('the home folder refused (bug 4)', () => {
  it('snapshot --root $HOME does not advise passing --root: it says to name a project instead', async () => {
    const home = tempDir('home-');
    const env = { CHECKPOINT_STORE_DIR: tempDir('store-'), HOME: home };
    const given = await runCli(['snapshot', '--root', home], { cwd: home, env });
    expect(given.code).not.toBe(0);
    expect(given.stderr).toContain('it is the home folder, not a project');
    expect(given.stderr).not.toMatch(/Pass --root/i);
    expect(given.stderr).toContain("Give --root a project's folder instead.");
    // Run in the home folder with no --root: passing one is the advice.
    const here = await runCli(['snapshot'], { cwd: home, env });
    expect(here.stderr).toContain("Pass --root with a project's folder, or set CHECKPOINT_PROJECT_ROOT.");
  });
});

describe('every undo hint is the same command, and works as printed (bug 5)', () => {
  it('restore, rewind and handoff pull all print "To undo: claude-checkpoint restore <id> --yes"', async () => {
    const { root, env, cli } = inProject();
    const hook = (event: string, fields: Record<string, unknown>) =>
      runCli(['hook', event], {
        cwd: root,
        env,
        input: JSON.stringify({ session_id: 'aaaaaaaa-1111-4222-8333-444444444444', cwd: root, ...fields }),
      });
    expect((await hook('UserPromptSubmit', { hook_event_name: 'UserPromptSubmit', prompt: 'Go' })).code).toBe(
      0,
    );
    writeTree(root, { 'a.txt': 'after the prompt\n' });
    const rewound = await cli('rewind', 'latest', '--code', '--yes');
    expect(rewound.code, rewound.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\n');
    const undo = printedCommand(rewound.stdout, 'To undo: ');
    expect(undo).toEqual(['restore', expect.stringMatching(/^\d{8}-\d{6}-[0-9a-f]{6}$/), '--yes']);
    const undone = await cli(...undo);
    expect(undone.code, undone.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('after the prompt\n');
    // The restore just run says it the same way.
    expect(printedCommand(undone.stdout, 'To undo: ')).toEqual([
      'restore',
      expect.stringMatching(/^\d{8}-\d{6}-[0-9a-f]{6}$/),
      '--yes',
    ]);
  });

  it('handoff pull says it the same way', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    writeTree(a.root, { 'src/app.ts': 'A\n' });
    expect((await onMachine(a, 'handoff', 'push', '--name', 'undo')).code).toBe(0);
    const pulled = await onMachine(b, 'handoff', 'pull', '--name', 'undo', '--yes');
    expect(pulled.code, pulled.stderr).toBe(0);
    const undo = printedCommand(pulled.stdout, 'To undo: ');
    expect(undo).toEqual(['restore', expect.stringMatching(/^\d{8}-\d{6}-[0-9a-f]{6}$/), '--yes']);
    expect((await onMachine(b, ...undo)).code).toBe(0);
    expect(readFileSync(path.join(b.root, 'src/app.ts'), 'utf8')).toBe('export const app = 1;\n');
  });
});

describe('every limit error names the field, the limit and what was given (bug 8)', () => {
  it.each([
    [
      'restore_snapshot',
      'paths',
      { snapshotId: 'latest', paths: Array(101).fill('a.txt') },
      'paths: must have at most 100 items (got 101)',
    ],
    [
      'restore_snapshot',
      'paths.0',
      { snapshotId: 'latest', paths: ['p'.repeat(1025)] },
      'paths.0: must be at most 1024 characters (got 1025)',
    ],
    [
      'snapshot_files',
      'label',
      { label: 'l'.repeat(201) },
      'label: must be at most 200 characters (got 201)',
    ],
    [
      'diff_snapshot',
      'snapshotId',
      { snapshotId: 's'.repeat(65) },
      'snapshotId: must be at most 64 characters (got 65)',
    ],
    [
      'diff_snapshot',
      'path',
      { snapshotId: 'latest', path: 'p'.repeat(1025) },
      'path: must be at most 1024 characters (got 1025)',
    ],
    ['list_snapshots', 'limit', { limit: 1001 }, 'limit: must be at most 1000 (got 1001)'],
    ['list_snapshots', 'limit', { limit: 0 }, 'limit: must be at least 1 (got 0)'],
    [
      'push_handoff',
      'remote',
      { remote: 'r'.repeat(201) },
      'remote: must be at most 200 characters (got 201)',
    ],
    ['pull_handoff', 'name', { name: 'n'.repeat(101) }, 'name: must be at most 100 characters (got 101)'],
    [
      'load_session_checkpoint',
      'projectRoot',
      { projectRoot: `/${'r'.repeat(4096)}` },
      'projectRoot: must be at most 4096 characters (got 4097)',
    ],
  ] as const)('%s, %s', async (tool, _field, args, message) => {
    const root = createRepo({ committed: { 'a.txt': 'a\n' } });
    const { call } = await connect({ deps: { env: { CHECKPOINT_STORE_DIR: tempDir('store-') } } });
    const result = await call(tool, { projectRoot: root, ...args });
    expect(result.isError).toBe(true);
    expect(result.text).toContain(message);
  });

  it('snapshot --label over the limit is refused like the tool refuses it, not cut short unseen', async () => {
    const { cli } = inProject();
    const long = await cli('snapshot', '--label', 'l'.repeat(201));
    expect(long.code).toBe(2);
    expect(long.stderr).toBe('claude-checkpoint: --label: must be at most 200 characters (got 201)\n');
    expect(JSON.parse((await cli('list', '--json')).stdout).snapshots).toEqual([]);
  });

  it('save --stdin names every field one way: tasks.0.status and modifiedFiles.0.path', async () => {
    const { root, env } = inProject();
    const save = (input: unknown) =>
      runCli(['save', '--stdin'], { cwd: root, env, input: JSON.stringify(input) });
    const status = await save({ goal: 'g', tasks: [{ description: 'd', status: 'later' }] });
    expect(status.stderr).toContain('tasks.0.status: must be one of');
    const outside = await save({ goal: 'g', modifiedFiles: [{ path: '../elsewhere.txt' }] });
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('modifiedFiles.0.path');
    expect(outside.stderr).not.toContain('modifiedFiles[0]');
  });
});

describe('a handoff pushed with no git identity (bug 9)', () => {
  it('handoff list and pull say the pusher had no git identity, never "unknown"', async () => {
    const { bare } = bareRemote();
    const a = tempDir('handoff-anon-');
    execFileSync('git', ['clone', '-q', `file://${bare}`, a], { stdio: 'ignore' });
    const anon = { root: a, env: { CHECKPOINT_STORE_DIR: tempDir('store-anon-'), HOME: tempDir('home-') } };
    writeTree(a, { 'src/app.ts': 'anonymous\n' });
    const pushed = await onMachine(anon, 'handoff', 'push', '--name', 'anon');
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stdout).toContain('no git identity');
    const b = machine(`file://${bare}`, 'Bob');
    const list = await onMachine(b, 'handoff', 'list');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).not.toContain('unknown');
    expect(list.stdout).toContain('(no git identity)');
    const pulled = await onMachine(b, 'handoff', 'pull', '--name', 'anon', '--dry-run');
    expect(pulled.stdout).not.toContain('by unknown');
    expect(pulled.stdout).toContain('by (no git identity)');
  });
});

describe('gc --all says what was copied in (bug 10)', () => {
  it('per project, as plain gc does', async () => {
    const big = randomBytes(30_000).toString('hex');
    const { root, env } = inProject({ 'big.txt': big });
    writeTree(root, { 'a.txt': 'changed\n' });
    expect((await runCli(['snapshot'], { cwd: root, env })).code).toBe(0);
    const gc = await runCli(['gc', '--all'], { cwd: root, env });
    expect(gc.code, gc.stderr).toBe(0);
    expect(gc.stdout).toMatch(
      /: removed 0, kept 1; .* → .* \(.* of it copied in from the project's repository/,
    );
  });
});

describe('the hook command and its docs (bug 11)', () => {
  it('hook --help names every agent it serves, not only Claude Code', async () => {
    const help = await runCli(['hook', '--help'], { cwd: tempDir() });
    expect(help.stdout).not.toMatch(/run as a Claude Code hook/);
    expect(help.stdout).toMatch(/Claude Code, Codex, Copilot CLI, Gemini CLI or OpenCode/);
  });

  it('docs/hooks.md shows the JSON a hook reads on stdin', () => {
    const doc = readFileSync(new URL('../../docs/hooks.md', import.meta.url), 'utf8');
    const block = /```json\n(\{[\s\S]*?\})\n```/.exec(doc)?.[1];
    expect(block).toBeDefined();
    expect(JSON.parse(block ?? '{}')).toMatchObject({
      hook_event_name: 'UserPromptSubmit',
      session_id: expect.any(String),
    });
  });

  it('the JSON shown in docs/hooks.md is one the hook takes', async () => {
    const doc = readFileSync(new URL('../../docs/hooks.md', import.meta.url), 'utf8');
    const example = JSON.parse(/```json\n(\{[\s\S]*?\})\n```/.exec(doc)?.[1] ?? '{}');
    const root = createRepo({ committed: { 'a.txt': 'a\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('store-'), HOME: tempDir('home-') };
    const run = await runCli(['hook', 'UserPromptSubmit'], {
      cwd: root,
      env,
      input: JSON.stringify({ ...example, cwd: root }),
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const list = JSON.parse((await runCli(['list', '--json'], { cwd: root, env })).stdout);
    expect(list.snapshots).toEqual([expect.objectContaining({ trigger: 'prompt' })]);
  });
});

describe("status after a hook's refresh (new-user trial 3)", () => {
  it('says the refresh saved it, and since when the flagged files changed, not "since the save"', async () => {
    const { root, env, cli } = inProject();
    expect((await cli('save', '--goal', 'Words')).code).toBe(0);
    writeTree(root, { 'a.txt': 'changed\n' });
    // PreCompact with no transcript refreshes the checkpoint's facts: a.txt is recorded, and stays flagged.
    const refresh = await runCli(['hook', 'PreCompact'], {
      cwd: root,
      env,
      input: JSON.stringify({ session_id: 's', cwd: root, trigger: 'manual' }),
    });
    expect(refresh.code).toBe(0);
    const status = (await cli('status')).stdout;
    expect(status).toContain("Checkpoint: saved just now (a hook's refresh)");
    expect(status).toMatch(
      /Drift: 1 file\(s\) changed since .+, flagged until the agent saves again, 0 new commit/,
    );
    expect(status).not.toContain('since the save');
  });
});

describe('a replace that drops recorded commands says so (new-user trial 3)', () => {
  it('the CLI names how many and --merge; the MCP tool names mode "merge"', async () => {
    const { root, env, cli } = inProject();
    for (const command of ['npm test', 'npm run build', 'ls'])
      await runCli(['hook', 'PostToolUse'], {
        cwd: root,
        env,
        input: JSON.stringify({ cwd: root, tool_name: 'Bash', tool_input: { command }, tool_response: {} }),
      });
    const replaced = await cli('save', '--goal', 'Fresh', '--command', 'ls');
    expect(replaced.code).toBe(0);
    expect(replaced.stdout).toContain('1 command(s)');
    expect(replaced.stdout + replaced.stderr).toContain(
      'This save replaced the checkpoint: 2 command(s) recorded before it (by hooks or earlier saves) are no longer in it; save with --merge to keep them.',
    );
    const merged = await cli('save', '--goal', 'Fresh', '--merge');
    expect(merged.stdout + merged.stderr).not.toContain('no longer in it');

    const { call } = await connect({ deps: { env: { ...env, XDG_STATE_HOME: tempDir('state-') } } });
    await runCli(['hook', 'PostToolUse'], {
      cwd: root,
      env,
      input: JSON.stringify({
        cwd: root,
        tool_name: 'Bash',
        tool_input: { command: 'make' },
        tool_response: {},
      }),
    });
    const saved = await call('save_session_checkpoint', { goal: 'Model', projectRoot: root });
    expect(saved.isError).toBeFalsy();
    expect(saved.text).toContain('2 command(s) recorded before it');
    expect(saved.text).toContain('save with mode "merge" to keep them');
    expect(saved.text).not.toContain('--merge');
  });
});
