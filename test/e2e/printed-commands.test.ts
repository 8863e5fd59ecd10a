import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI, type CliResult, childEnv, runCli, sendPrompt } from '../helpers/cli.js';
import { git, tempDir, writeTree } from '../helpers/fixtures.js';
import { bareRemote, machine, cli as onMachine } from '../helpers/handoff.js';
import { connect } from '../helpers/mcp.js';

/**
 * Review of 2026-12-06: every command the CLI prints for the user to run works as printed, from the
 * folder the user ran it in. Each test pastes the printed line into bash, with `claude-checkpoint` the
 * built CLI.
 */

beforeAll(assertBuilt);

const ID = /\d{8}-\d{6}-[0-9a-f]{6}/;

/** A project whose folder needs quoting in a shell: a space and a quote. */
function awkwardProject(committed: Record<string, string>) {
  const root = path.join(tempDir('printed-'), "my project's");
  mkdirSync(root);
  git(root, 'init', '-q', '-b', 'main');
  writeTree(root, { '.gitignore': '.claude-checkpoint*\n', ...committed });
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'initial');
  const env = { CHECKPOINT_STORE_DIR: tempDir('printed-store-'), HOME: tempDir('printed-home-') };
  return { root, env };
}

/** The rest of the first line of `output` that starts with `prefix`. */
function printedLine(output: string, prefix: string): string {
  const line = output.split('\n').find((each) => each.startsWith(prefix));
  if (!line) throw new Error(`no line starting with ${JSON.stringify(prefix)} in:\n${output}`);
  return line.slice(prefix.length);
}

/** Runs a printed command line as a person pastes it into bash, in `cwd`. */
function runPrinted(line: string, options: { cwd: string; env: Record<string, string> }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    // `claude` stands for the agent: it says where it was started and with what.
    const functions = `claude-checkpoint() { "$NODE" "$CHECKPOINT_CLI" "$@"; }\nclaude() { echo "claude in $PWD: $*"; }`;
    const child = spawn('bash', ['-c', `${functions}\n${line}`], {
      cwd: options.cwd,
      env: childEnv({ NODE: process.execPath, CHECKPOINT_CLI: CLI, ...options.env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const read = (root: string, file: string) => readFileSync(path.join(root, file), 'utf8');

describe('the commands the CLI prints work as printed', () => {
  it('restore --dry-run of a path that starts with a dash: the apply line puts it after --', async () => {
    const { root, env } = awkwardProject({ '-dash': 'one\n', 'b.txt': 'b\n' });
    expect((await runCli(['snapshot'], { cwd: root, env })).code).toBe(0);
    writeTree(root, { '-dash': 'two\n', 'b.txt': 'changed\n' });
    const planned = await runCli(['restore', '--dry-run', 'latest', '--', '-dash'], { cwd: root, env });
    expect(planned.code, planned.stderr).toBe(0);
    const apply = printedLine(planned.stdout, 'Apply it with: ');
    expect(apply).toMatch(new RegExp(`^claude-checkpoint restore ${ID.source} --yes -- -dash$`));
    const applied = await runPrinted(apply, { cwd: root, env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(read(root, '-dash')).toBe('one\n');
    expect(read(root, 'b.txt')).toBe('changed\n');
  });

  it('restore --root from another folder: the apply and undo lines carry --root, quoted', async () => {
    const { root, env } = awkwardProject({ 'a.txt': 'one\n' });
    const elsewhere = tempDir('printed-elsewhere-');
    expect((await runCli(['snapshot', '--root', root], { cwd: elsewhere, env })).code).toBe(0);
    writeTree(root, { 'a.txt': 'two\n' });
    const planned = await runCli(['restore', '--root', root, '--dry-run', 'latest'], { cwd: elsewhere, env });
    expect(planned.code, planned.stderr).toBe(0);
    const apply = printedLine(planned.stdout, 'Apply it with: ');
    expect(apply).toContain(`--root '${root.replaceAll("'", `'\\''`)}'`);
    const applied = await runPrinted(apply, { cwd: elsewhere, env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(read(root, 'a.txt')).toBe('one\n');
    const undone = await runPrinted(printedLine(applied.stdout, 'To undo: '), { cwd: elsewhere, env });
    expect(undone.code, undone.stderr).toBe(0);
    expect(read(root, 'a.txt')).toBe('two\n');
  });

  it('restore of a path in a subfolder: the apply and undo lines name it from there, as it was typed', async () => {
    const { root, env } = awkwardProject({ 'src/a.ts': 'one\n', 'b.txt': 'b\n' });
    const src = path.join(root, 'src');
    expect((await runCli(['snapshot', '--root', '..'], { cwd: src, env })).code).toBe(0);
    writeTree(root, { 'src/a.ts': 'two\n', 'b.txt': 'changed\n' });
    const planned = await runCli(['restore', '--root', '..', '--dry-run', 'latest', 'a.ts'], {
      cwd: src,
      env,
    });
    expect(planned.code, planned.stderr).toBe(0);
    const apply = printedLine(planned.stdout, 'Apply it with: ');
    expect(apply).toMatch(/ -- a\.ts$/);
    const applied = await runPrinted(apply, { cwd: src, env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(read(root, 'src/a.ts')).toBe('one\n');
    const undone = await runPrinted(printedLine(applied.stdout, 'To undo: '), { cwd: src, env });
    expect(undone.code, undone.stderr).toBe(0);
    expect(read(root, 'src/a.ts')).toBe('two\n');
    expect(read(root, 'b.txt')).toBe('changed\n');
  });

  it('an unknown snapshot with --root: the command that lists them lists this project', async () => {
    const { root, env } = awkwardProject({ 'a.txt': 'one\n' });
    const elsewhere = tempDir('printed-elsewhere-');
    expect((await runCli(['snapshot', '--root', root], { cwd: elsewhere, env })).code).toBe(0);
    const missing = await runCli(['diff', '--root', root, 'nosuch'], { cwd: elsewhere, env });
    expect(missing.code).not.toBe(0);
    const list = /see them with `([^`]+)`/.exec(missing.stderr)?.[1];
    expect(list, missing.stderr).toBeDefined();
    const listed = await runPrinted(list ?? '', { cwd: elsewhere, env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^1 snapshot\(s\)/);
  });

  it('brief --root from another folder: the restore it names plans a restore of this project', async () => {
    const { root, env } = awkwardProject({ 'a.txt': 'one\n' });
    const elsewhere = tempDir('printed-elsewhere-');
    const cli = (...args: string[]) => runCli([...args, '--root', root], { cwd: elsewhere, env });
    expect((await cli('save', '--goal', 'Ship it')).code).toBe(0);
    expect((await cli('snapshot')).code).toBe(0);
    writeTree(root, { 'a.txt': 'two\n' });
    const brief = await cli('brief');
    expect(brief.code, brief.stderr).toBe(0);
    const restore = /Latest snapshot .*: `([^`]+)` can bring the files back/.exec(brief.stdout)?.[1];
    expect(restore, brief.stdout).toBeDefined();
    const planned = await runPrinted(`${restore} --dry-run`, { cwd: elsewhere, env });
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toMatch(/would change 1 file\(s\)/);
  });

  it('rewind --root from another folder: its undo line works there', async () => {
    const { root, env } = awkwardProject({ 'a.txt': 'one\n' });
    const elsewhere = tempDir('printed-elsewhere-');
    const hook = await runCli(['hook', 'UserPromptSubmit', '--root', root], {
      cwd: elsewhere,
      env,
      input: JSON.stringify({
        session_id: 'aaaaaaaa-1111-4222-8333-444444444444',
        cwd: root,
        hook_event_name: 'UserPromptSubmit',
        prompt: 'Go',
      }),
    });
    expect(hook.code).toBe(0);
    writeTree(root, { 'a.txt': 'after the prompt\n' });
    const listing = await runCli(['rewind', '--root', root, '--list'], { cwd: elsewhere, env });
    expect(printedLine(listing.stdout, 'Go back with: ')).toContain(`--root '`);
    const rewound = await runCli(['rewind', '--root', root, 'latest', '--code', '--yes'], {
      cwd: elsewhere,
      env,
    });
    expect(rewound.code, rewound.stderr).toBe(0);
    expect(read(root, 'a.txt')).toBe('one\n');
    const undone = await runPrinted(printedLine(rewound.stdout, 'To undo: '), { cwd: elsewhere, env });
    expect(undone.code, undone.stderr).toBe(0);
    expect(read(root, 'a.txt')).toBe('after the prompt\n');
  });

  it('rewind --list --all --root from another folder: an agent resume command starts in the project', async () => {
    const { root, env } = awkwardProject({ 'a.txt': 'one\n' });
    const elsewhere = tempDir('printed-elsewhere-');
    for (const [session, prompt] of [
      ['aaaaaaaa-1111-4222-8333-444444444444', 'First'],
      ['bbbbbbbb-1111-4222-8333-444444444444', 'Second'],
    ] as const) {
      const hook = await sendPrompt(root, env, session, prompt, elsewhere);
      expect(hook.code).toBe(0);
      writeTree(root, { 'a.txt': `${prompt}\n` });
    }
    const listing = await runCli(['rewind', '--root', root, '--list', '--all'], { cwd: elsewhere, env });
    expect(listing.code, listing.stderr).toBe(0);
    const resumed = await runPrinted(printedLine(listing.stdout, '  resume it: '), { cwd: elsewhere, env });
    expect(resumed.code, resumed.stderr).toBe(0);
    // The first resume command listed is the session that prompted last's (newcomer trial: it had none).
    expect(resumed.stdout).toBe(`claude in ${root}: --resume bbbbbbbb-1111-4222-8333-444444444444\n`);
  });

  it('handoff pull --root from another folder: its undo line works there', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    writeTree(a.root, { 'src/app.ts': 'from Alice\n' });
    expect((await onMachine(a, 'handoff', 'push', '--name', 'work')).code).toBe(0);
    writeTree(b.root, { 'src/app.ts': "Bob's own\n" });
    const elsewhere = tempDir('printed-elsewhere-');
    const pulled = await runCli(['handoff', 'pull', '--root', b.root, '--name', 'work', '--yes'], {
      cwd: elsewhere,
      env: b.env,
    });
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(read(b.root, 'src/app.ts')).toBe('from Alice\n');
    const undone = await runPrinted(printedLine(pulled.stdout, 'To undo: '), { cwd: elsewhere, env: b.env });
    expect(undone.code, undone.stderr).toBe(0);
    expect(read(b.root, 'src/app.ts')).toBe("Bob's own\n");
  });

  it('handoff push: the pull line for elsewhere works as printed in another clone', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    writeTree(a.root, { 'src/app.ts': 'from Alice\n' });
    const pushed = await onMachine(a, 'handoff', 'push', '--name', 'alice/work');
    expect(pushed.code, pushed.stderr).toBe(0);
    const pull = printedLine(pushed.stdout, 'To continue elsewhere: ');
    expect(pull).toBe('claude-checkpoint handoff pull --name alice/work');
    const pulled = await runPrinted(`${pull} --yes`, { cwd: b.root, env: b.env });
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(read(b.root, 'src/app.ts')).toBe('from Alice\n');
  });
  it('doctor --root from another folder: a project set-up fix sets up that project when run there', async () => {
    const { root, env } = awkwardProject({ 'a.txt': 'one\n' });
    const elsewhere = tempDir('printed-elsewhere-');
    const first = await runCli(['setup', 'copilot', '--project', '--root', root], { cwd: elsewhere, env });
    expect(first.code, first.stderr).toBe(0);
    // The server entry lost since (an edit by hand): doctor says to run setup again.
    writeTree(root, { '.mcp.json': '{}\n' });
    const doctor = await runCli(['doctor', '--root', root], { cwd: elsewhere, env });
    const fix = /fix: Run `(claude-checkpoint setup copilot [^`]+)` again/.exec(doctor.stdout)?.[1];
    expect(fix, doctor.stdout).toBeDefined();
    const setUp = await runPrinted(fix ?? '', { cwd: elsewhere, env });
    expect(setUp.code, setUp.stderr).toBe(0);
    expect(read(root, '.mcp.json')).toContain('"claude-checkpoint"');
  });
});

describe('the undo of a path-limited restore (new-user trial 2026-12-06)', () => {
  it('names the same paths, so running it as printed brings back only what the restore changed', async () => {
    const { root, env } = awkwardProject({ 'src/auth/session.ts': 'v1\n', 'NOTES.md': 'notes v0\n' });
    expect((await runCli(['snapshot', '--label', 'base'], { cwd: root, env })).code).toBe(0);
    writeTree(root, { 'src/auth/session.ts': 'v2\n', 'NOTES.md': 'notes v1\n' });
    const restored = await runCli(['restore', 'latest', 'src/', '--yes'], { cwd: root, env });
    expect(restored.code, restored.stderr).toBe(0);
    expect(read(root, 'src/auth/session.ts')).toBe('v1\n');
    const undo = printedLine(restored.stdout, 'To undo: ');
    expect(undo).toMatch(new RegExp(`^claude-checkpoint restore ${ID.source} --yes -- src$`));
    // Work done after the restore, outside its paths: the undo must leave it alone.
    writeTree(root, { 'NOTES.md': 'notes v2 - my later work\n' });
    const undone = await runPrinted(undo, { cwd: root, env });
    expect(undone.code, undone.stderr).toBe(0);
    expect(read(root, 'src/auth/session.ts')).toBe('v2\n');
    expect(read(root, 'NOTES.md')).toBe('notes v2 - my later work\n');
  });

  it('--json: the undo carries the snapshot and the paths', async () => {
    const { root, env } = awkwardProject({ 'src/a.ts': 'one\n', 'b.txt': 'b\n' });
    expect((await runCli(['snapshot'], { cwd: root, env })).code).toBe(0);
    writeTree(root, { 'src/a.ts': 'two\n', 'b.txt': 'b2\n' });
    const restored = await runCli(['restore', 'latest', 'src/a.ts', '--yes', '--json'], { cwd: root, env });
    expect(restored.code, restored.stderr).toBe(0);
    const json = JSON.parse(restored.stdout);
    expect(json.undo).toEqual({ snapshotId: json.undoSnapshotId, paths: ['src/a.ts'] });
    expect(json.undoSnapshotId).toMatch(ID);
    // A whole-tree restore's undo names no paths: the whole tree.
    const whole = await runCli(['restore', 'latest~1', '--yes', '--json'], { cwd: root, env });
    expect(JSON.parse(whole.stdout).undo).toEqual({ snapshotId: expect.stringMatching(ID), paths: [] });
  });
});

describe('handoff pull --checkout --dry-run on another base (review 2026-12-06)', () => {
  it('shows the checkout it would make, exits 0 and changes nothing', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    writeTree(a.root, { 'src/app.ts': 'on a new commit\n' });
    git(a.root, 'commit', '-q', '-am', 'local only');
    writeTree(a.root, { 'src/app.ts': 'and a change on it\n' });
    expect((await onMachine(a, 'handoff', 'push', '--name', 'work')).code).toBe(0);
    const head = git(b.root, 'rev-parse', 'HEAD');
    const status = git(b.root, 'status', '--porcelain');
    const planned = await onMachine(b, 'handoff', 'pull', '--name', 'work', '--checkout', '--dry-run');
    expect(planned.code, planned.stderr).toBe(0);
    expect(`${planned.stdout}${planned.stderr}`).not.toContain('pull again with --checkout');
    expect(planned.stdout).toContain('is checked out first (clean tree only)');
    expect(planned.stdout).toContain('Dry run: nothing was changed.');
    // Newcomer trial: a dry run ends with the command that applies it; run as printed, it does.
    expect(planned.stdout.trimEnd().split('\n').at(-1)).toBe(
      'Apply it with: claude-checkpoint handoff pull --name work --checkout --yes',
    );
    expect(git(b.root, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(b.root, 'status', '--porcelain')).toBe(status);
    expect(read(b.root, 'src/app.ts')).toBe('export const app = 1;\n');
    const json = await onMachine(b, 'handoff', 'pull', '--name', 'work', '--checkout', '--dry-run', '--json');
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ applied: false, checkout: true });
    const applied = await runPrinted(printedLine(planned.stdout, 'Apply it with: '), {
      cwd: b.root,
      env: b.env,
    });
    expect(applied.code, applied.stderr).toBe(0);
    expect(read(b.root, 'src/app.ts')).toBe('and a change on it\n');
  });
});

describe('the undo of handoff pull --checkout (new-user trial 2026-12-06)', () => {
  it.each([
    ['on a branch', false],
    ['on a detached HEAD', true],
  ])(
    '%s: says how to put HEAD back, without doing it; run as printed, both lines undo the pull',
    async (_name, detached) => {
      const { bare } = bareRemote();
      const a = machine(`file://${bare}`, 'Alice');
      const b = machine(`file://${bare}`, 'Bob');
      writeTree(a.root, { 'src/app.ts': 'on a new commit\n' });
      git(a.root, 'commit', '-q', '-am', 'local only');
      writeTree(a.root, { 'src/app.ts': 'and a change on it\n' });
      expect((await onMachine(a, 'handoff', 'push', '--name', 'work')).code).toBe(0);
      if (detached) git(b.root, 'checkout', '-q', '--detach');
      writeTree(b.root, { 'notes.txt': "Bob's untracked notes\n" });
      const head = git(b.root, 'rev-parse', 'HEAD').trim();
      const branch = git(b.root, 'branch', '--show-current').trim();
      const status = git(b.root, 'status', '--porcelain');
      const pulled = await onMachine(b, 'handoff', 'pull', '--name', 'work', '--checkout', '--yes');
      expect(pulled.code, pulled.stderr).toBe(0);
      expect(read(b.root, 'src/app.ts')).toBe('and a change on it\n');
      const moved = git(b.root, 'rev-parse', 'HEAD').trim();
      expect(moved).not.toBe(head);
      const undo = printedLine(pulled.stdout, 'To undo: ');
      const switchBack = printedLine(pulled.stdout, 'Then put HEAD back where it was before --checkout: ');
      expect(switchBack).toBe(detached ? `git switch --detach ${head}` : 'git switch main');
      // Only said: HEAD stays where --checkout put it.
      expect(git(b.root, 'rev-parse', 'HEAD').trim()).toBe(moved);
      const json = await onMachine(b, 'handoff', 'pull', '--name', 'work', '--dry-run', '--json');
      expect(JSON.parse(json.stdout)).toMatchObject({ checkedOutFrom: null });
      expect((await runPrinted(undo, { cwd: b.root, env: b.env })).code).toBe(0);
      const switched = await runPrinted(switchBack, { cwd: b.root, env: b.env });
      expect(switched.code, switched.stderr).toBe(0);
      expect(git(b.root, 'rev-parse', 'HEAD').trim()).toBe(head);
      expect(git(b.root, 'branch', '--show-current').trim()).toBe(branch);
      expect(git(b.root, 'status', '--porcelain')).toBe(status);
      expect(read(b.root, 'src/app.ts')).toBe('export const app = 1;\n');
      expect(read(b.root, 'notes.txt')).toBe("Bob's untracked notes\n");
    },
  );

  it('--json: checkedOutFrom names where HEAD was', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    writeTree(a.root, { 'src/app.ts': 'on a new commit\n' });
    git(a.root, 'commit', '-q', '-am', 'local only');
    expect((await onMachine(a, 'handoff', 'push', '--name', 'work')).code).toBe(0);
    const head = git(b.root, 'rev-parse', 'HEAD').trim();
    const pulled = await onMachine(b, 'handoff', 'pull', '--name', 'work', '--checkout', '--yes', '--json');
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(JSON.parse(pulled.stdout)).toMatchObject({ checkedOutFrom: { branch: 'main', head } });
  });
});

describe('push_handoff and the pusher (review 2026-12-06)', () => {
  it('over MCP, the way to continue elsewhere names pull_handoff, not a CLI command', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    writeTree(a.root, { 'src/app.ts': 'from Alice\n' });
    const { call } = await connect({ deps: { env: a.env } });
    const pushed = await call('push_handoff', { projectRoot: a.root, name: 'work' });
    expect(pushed.isError, pushed.text).toBeFalsy();
    expect(pushed.text).toContain('To continue elsewhere: pull_handoff with name "work"');
    expect(pushed.text).not.toContain('claude-checkpoint handoff pull');
  });

  it('an identity only in GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL is the author, as in the user own commits', async () => {
    const { bare } = bareRemote();
    const root = tempDir('handoff-envid-');
    execFileSync('git', ['clone', '-q', `file://${bare}`, root], { stdio: 'ignore' });
    const env = {
      CHECKPOINT_STORE_DIR: tempDir('store-envid-'),
      HOME: tempDir('home-'),
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Ann Env',
      GIT_AUTHOR_EMAIL: 'ann@example.com',
    };
    writeTree(root, { 'src/app.ts': 'from Ann\n' });
    const pushed = await runCli(['handoff', 'push', '--name', 'ann'], { cwd: root, env });
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stdout).not.toContain('no git identity');
    const b = machine(`file://${bare}`, 'Bob');
    const list = await onMachine(b, 'handoff', 'list');
    expect(list.stdout).toContain('Ann Env <ann@example.com>');
  });
});

/** The command line a message names between backticks, starting with `claude-checkpoint <command>`. */
function namedCommand(output: string, command: string): string {
  const found = new RegExp(`\`(claude-checkpoint ${command}[^\`]*)\``).exec(output)?.[1];
  if (!found) throw new Error(`no \`claude-checkpoint ${command}…\` in:\n${output}`);
  return found;
}

// Issue 26: two messages named a command without the --root the running one was given.
describe('the commands errors name carry --root (issue 26)', () => {
  /** A project whose first snapshot borrowed a commit the user then pruned for good. */
  async function prunedSnapshot() {
    const { root, env } = awkwardProject({ 'a.txt': 'one\n' });
    writeTree(root, { 'b.txt': 'b\n' });
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'b');
    const elsewhere = tempDir('printed-elsewhere-');
    const taken = await runCli(['snapshot', '--root', root, '--json'], { cwd: elsewhere, env });
    expect(taken.code, taken.stderr).toBe(0);
    git(root, 'reset', '-q', '--hard', 'HEAD~1');
    git(root, 'reflog', 'expire', '--expire=now', '--all');
    git(root, 'gc', '-q', '--prune=now');
    return { root, env, elsewhere, id: JSON.parse(taken.stdout).snapshot.id as string };
  }

  it('a snapshot that can no longer be restored, with --root from another folder: its gc line works there', async () => {
    const { root, env, elsewhere, id } = await prunedSnapshot();
    const restore = await runCli(['restore', '--root', root, id, '--yes'], { cwd: elsewhere, env });
    expect(restore.code).toBe(1);
    const gc = namedCommand(restore.stderr, 'gc');
    expect(gc).toBe(`claude-checkpoint gc --root '${root.replaceAll("'", `'\\''`)}'`);
    const collected = await runPrinted(gc, { cwd: elsewhere, env });
    expect(collected.code, collected.stderr).toBe(0);
    const listed = await runCli(['list', '--root', root, '--json'], { cwd: elsewhere, env });
    expect(JSON.parse(listed.stdout).snapshots.map((each: { id: string }) => each.id)).not.toContain(id);
  }, 60_000);

  it('over MCP, the same error tells a person the gc command, in words for the model', async () => {
    const { root, env, id } = await prunedSnapshot();
    const { call } = await connect({ deps: { env: { ...childEnv(), ...env } } });
    const restored = await call('restore_snapshot', { projectRoot: root, snapshotId: id, dryRun: false });
    expect(restored.isError).toBe(true);
    expect(restored.text).toContain('can no longer be restored');
    expect(restored.text).toContain('a person can remove such snapshots with `claude-checkpoint gc`');
    expect(restored.text).not.toContain('--root');
  }, 60_000);

  /** A user setting with a value no command takes. */
  function badSetting(env: Record<string, string>) {
    const configDir = tempDir('printed-config-');
    writeTree(configDir, { 'config.json': '{"snapshotMaxCount": 0}\n' });
    return { ...env, CHECKPOINT_CONFIG_DIR: configDir };
  }

  it('a wrong setting, with --root from another folder: the doctor it names looks at that project', async () => {
    const { root, env: base } = awkwardProject({ 'a.txt': 'one\n' });
    const env = badSetting(base);
    const elsewhere = tempDir('printed-elsewhere-');
    const snapshot = await runCli(['snapshot', '--root', root], { cwd: elsewhere, env });
    expect(snapshot.code).not.toBe(0);
    expect(snapshot.stderr).toContain('snapshotMaxCount must be a whole number');
    const doctor = namedCommand(snapshot.stderr, 'doctor');
    expect(doctor).toBe(`claude-checkpoint doctor --root '${root.replaceAll("'", `'\\''`)}'`);
    const ran = await runPrinted(doctor, { cwd: elsewhere, env });
    expect(ran.stdout).toContain(`project root: ${root} (from --root)`);
    expect(ran.stdout).toMatch(/✗ settings: .*snapshotMaxCount must be a whole number/);
  });

  it('over MCP, a wrong setting tells a person the doctor command, in words for the model', async () => {
    const { root, env: base } = awkwardProject({ 'a.txt': 'one\n' });
    const env = badSetting(base);
    const { call } = await connect({ deps: { env: { ...childEnv(), ...env } } });
    const snapshot = await call('snapshot_files', { projectRoot: root });
    expect(snapshot.isError).toBe(true);
    expect(snapshot.text).toContain('snapshotMaxCount must be a whole number');
    expect(snapshot.text).toContain('a person can see every setting with `claude-checkpoint doctor`');
    expect(snapshot.text).not.toContain('--root');
  });
});
