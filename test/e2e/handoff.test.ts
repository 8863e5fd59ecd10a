import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journalId, serializeJournalRecord } from '../../src/core/journal.js';
import { CheckpointStore } from '../../src/store/checkpoint-store.js';
import { nodeFs } from '../../src/store/fs-seam.js';
import { assertBuilt } from '../helpers/cli.js';
import { freePort, git, tempDir, writeTree } from '../helpers/fixtures.js';
import { bareRemote, cli, forgeHandoffMeta, forgerEnv, machine } from '../helpers/handoff.js';
import { repoState as gitState, readTree } from '../helpers/tree.js';

beforeAll(assertBuilt);

/**
 * Handoffs through real remotes: a bare repository, reached over file:// and over git:// (a `git daemon`
 * on a free loopback port), and clones of it as machines A, B and C, each with its own snapshot store.
 */

/** The working tree, byte for byte, without our own files (and without ignored logs, compared apart). */
const treeState = (root: string) =>
  readTree(root, (file) => file.startsWith('.claude-checkpoint') || file.endsWith('.log'));

/** What must not change in a clone: its refs, HEAD, index and config, and no FETCH_HEAD written. */
const repoState = (root: string) => ({
  ...gitState(root),
  fetchHead: String(existsSync(path.join(root, '.git', 'FETCH_HEAD'))),
});

const remoteBranches = (bare: string) =>
  execFileSync('git', ['for-each-ref', 'refs/heads', 'refs/tags'], { cwd: bare, encoding: 'utf8' });

describe.each(['file', 'git'] as const)('handoff over %s://', (scheme) => {
  let bare: string;
  let url: string;
  let daemon: ReturnType<typeof spawn> | undefined;

  beforeAll(async () => {
    ({ bare } = bareRemote());
    if (scheme === 'file') {
      url = `file://${bare}`;
      return;
    }
    const port = await freePort();
    const base = path.dirname(bare);
    daemon = spawn(
      'git',
      [
        'daemon',
        '--reuseaddr',
        '--listen=127.0.0.1',
        `--port=${port}`,
        `--base-path=${base}`,
        '--export-all',
        '--enable=receive-pack',
        base,
      ],
      { stdio: 'ignore' },
    );
    url = `git://127.0.0.1:${port}/project.git`;
    // Ready once it answers.
    for (let tries = 0; tries < 100; tries++) {
      try {
        execFileSync('git', ['ls-remote', url], { stdio: 'ignore' });
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    throw new Error('git daemon did not start');
  });

  afterAll(() => {
    daemon?.kill();
  });

  it('A pushes, B pulls: the same tree byte for byte, the brief with nothing flagged, and no git state changed; then back again', async () => {
    const a = machine(url, 'Alice');
    const b = machine(url, 'Bob');
    const branchesBefore = remoteBranches(bare);
    // A: tracked edits, a deletion, untracked files in new folders, a binary, an exec bit, a symlink.
    writeTree(a.root, {
      'src/app.ts': 'export const app = 2;\n',
      'src/new/deep/util.ts': 'export const util = true;\n',
      'assets/logo.bin': Buffer.from([0, 1, 2, 250, 255, 0, 7]),
      'bin/run.sh': '#!/bin/sh\necho run\n',
      'debug.log': 'ignored on A\n',
    });
    chmodSync(path.join(a.root, 'bin/run.sh'), 0o755);
    symlinkSync('../src/app.ts', path.join(a.root, 'assets/app-link.ts'));
    unlinkSync(path.join(a.root, 'src/old.ts'));
    writeFileSync(path.join(b.root, 'debug.log'), 'ignored on B\n');
    const saved = await cli(a, 'save', '--goal', 'Ship the parser', '--next', 'Run the tests');
    expect(saved.code, saved.stderr).toBe(0);
    const aRepo = repoState(a.root);

    const pushed = await cli(a, 'handoff', 'push', '--json');
    expect(pushed.code, pushed.stderr).toBe(0);
    const outcome = JSON.parse(pushed.stdout);
    expect(outcome).toMatchObject({
      remote: 'origin',
      ref: 'refs/claude-checkpoint/handoff/main',
      base: git(a.root, 'rev-parse', 'HEAD').trim(),
      branch: 'main',
    });
    expect(outcome.files.deleted).toEqual(['src/old.ts']);
    expect(outcome.files.modified).toEqual(['src/app.ts']);
    expect(outcome.files.added).toEqual(
      expect.arrayContaining(['src/new/deep/util.ts', 'assets/logo.bin', 'bin/run.sh', 'assets/app-link.ts']),
    );
    expect(outcome.files.added).not.toContain('debug.log');
    expect(repoState(a.root)).toEqual(aRepo);
    expect(remoteBranches(bare)).toBe(branchesBefore);

    const bRepo = repoState(b.root);
    const listed = JSON.parse((await cli(b, 'handoff', 'list', '--json')).stdout);
    expect(listed.handoffs).toEqual([
      expect.objectContaining({ name: 'main', author: 'Alice <alice@example.com>', goal: 'Ship the parser' }),
    ]);
    const unconfirmed = await cli(b, 'handoff', 'pull');
    expect(unconfirmed.code).toBe(3);
    // Showing the plan leaves no trace: no snapshot is taken or recorded.
    expect(JSON.parse((await cli(b, 'list', '--json')).stdout).total).toBe(0);
    const pulled = await cli(b, 'handoff', 'pull', '--yes', '--json');
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(JSON.parse(pulled.stdout)).toMatchObject({ commit: outcome.commit, applied: true });
    expect(treeState(b.root)).toEqual(treeState(a.root));
    expect(readFileSync(path.join(b.root, 'debug.log'), 'utf8')).toBe('ignored on B\n');
    expect(readFileSync(path.join(a.root, 'debug.log'), 'utf8')).toBe('ignored on A\n');
    expect(repoState(b.root)).toEqual(bRepo);
    const brief = await cli(b, 'brief');
    expect(brief.stdout).toContain('Ship the parser');
    expect(brief.stdout).toContain('No file changed after the checkpoint');

    // And back: B works on, pushes; A pulls.
    writeTree(b.root, { 'src/app.ts': 'export const app = 3;\n' });
    await cli(b, 'save', '--goal', 'Ship the parser', '--next', 'Review the diff', '--merge');
    const back = await cli(b, 'handoff', 'push');
    expect(back.code, back.stderr).toBe(0);
    const again = await cli(a, 'handoff', 'pull', '--yes');
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(path.join(a.root, 'src/app.ts'), 'utf8')).toBe('export const app = 3;\n');
    expect((await cli(a, 'brief')).stdout).toContain('Review the diff');
    expect(remoteBranches(bare)).toBe(branchesBefore);
    // About 20 CLI runs: on 2 busy cores (load 16) this takes 50 s, past the default 30 s.
  }, 180_000);

  it('carries the commands still waiting in the command journal', async () => {
    const a = machine(url, 'Alice');
    expect((await cli(a, 'save', '--goal', 'Journal to handoff')).code).toBe(0);
    // What a Bash hook leaves when another process holds the checkpoint's lock.
    const record = serializeJournalRecord({ redactions: 0, commands: [{ command: 'make journaled-step' }] });
    new CheckpointStore(a.root, nodeFs).addToJournal(journalId(new Date(), 'e2e-1'), record);
    expect((await cli(a, 'handoff', 'push', '--name', 'journaled')).code).toBe(0);
    const message = execFileSync(
      'git',
      ['log', '-1', '--format=%B', 'refs/claude-checkpoint/handoff/journaled'],
      {
        cwd: bare,
        encoding: 'utf8',
      },
    );
    expect(message).toContain('make journaled-step');
  });

  it('refuses to push a secret (printing where, never what), and the remote is unchanged', async () => {
    const a = machine(url, 'Alice');
    const refsBefore = execFileSync('git', ['for-each-ref'], { cwd: bare, encoding: 'utf8' });
    const secret = `AKIA${'Z7Q2M4N6P8R1T3V5'}`;
    writeTree(a.root, { 'config/aws.ts': `export const key = "${secret}";\n` });
    const result = await cli(a, 'handoff', 'push', '--name', 'with-secret');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/config\/aws\.ts:1 \S+/);
    expect(result.stderr + result.stdout).not.toContain(secret);
    expect(execFileSync('git', ['for-each-ref'], { cwd: bare, encoding: 'utf8' })).toBe(refsBefore);
  });

  it("never overwrites someone else's handoff without --force", async () => {
    const a = machine(url, 'Alice');
    const c = machine(url, 'Carol');
    writeTree(a.root, { 'src/app.ts': 'from Alice\n' });
    expect((await cli(a, 'handoff', 'push', '--name', 'shared')).code).toBe(0);
    writeTree(c.root, { 'src/app.ts': 'from Carol\n' });
    // Carol never pushed or pulled 'shared': someone else's handoff, not one that "changed" (issue 26).
    const refused = await cli(c, 'handoff', 'push', '--name', 'shared');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('another machine pushed a handoff named');
    expect(refused.stderr).not.toContain('since this machine last');
    expect(refused.stderr).toMatch(/--name <other>.*handoff pull.*--force/);
    const forced = await cli(c, 'handoff', 'push', '--name', 'shared', '--force');
    expect(forced.code, forced.stderr).toBe(0);
    // Alice's own next push is now the one refused: hers changed since she pushed it.
    const changed = await cli(a, 'handoff', 'push', '--name', 'shared');
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain('changed since this machine last pushed or pulled it');
    // Dropping Carol's handoff asks first, as a push over it does: without a terminal, --yes (issue 26).
    const unconfirmed = await cli(a, 'handoff', 'drop', 'shared');
    expect(unconfirmed.code).toBe(3);
    expect(unconfirmed.stderr).toContain('--yes');
    expect(unconfirmed.stderr).toContain('Carol');
    expect(
      execFileSync('git', ['for-each-ref', 'refs/claude-checkpoint'], { cwd: bare, encoding: 'utf8' }),
    ).toContain('shared');
    const asJson = await cli(a, 'handoff', 'drop', 'shared', '--json');
    expect(asJson.code).toBe(3);
    expect(JSON.parse(asJson.stdout)).toMatchObject({
      dropped: false,
      ref: 'refs/claude-checkpoint/handoff/shared',
    });
    expect((await cli(a, 'handoff', 'drop', 'shared', '--yes')).code).toBe(0);
    expect(
      execFileSync('git', ['for-each-ref', 'refs/claude-checkpoint'], { cwd: bare, encoding: 'utf8' }),
    ).not.toContain('shared');
  });
});

describe('handoff pull, where it must change nothing or be undone', () => {
  let bare: string;
  beforeAll(() => {
    ({ bare } = bareRemote());
  });
  /** git in the remote itself: how a test forges what another machine pushed. */
  const inBare = (args: string[], input?: string) =>
    execFileSync('git', args, {
      cwd: bare,
      encoding: 'utf8',
      ...(input === undefined ? {} : { input }),
    }).trim();

  it('onto a dirty tree: restoring the undo snapshot gives the tree back exactly', async () => {
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    writeTree(a.root, { 'src/app.ts': 'A\n', 'notes.md': 'from A\n' });
    expect((await cli(a, 'handoff', 'push', '--name', 'dirty')).code).toBe(0);
    writeTree(b.root, { 'src/app.ts': 'B local\n', 'scratch.txt': 'B only\n' });
    const before = treeState(b.root);
    const pulled = JSON.parse((await cli(b, 'handoff', 'pull', '--name', 'dirty', '--yes', '--json')).stdout);
    expect(readFileSync(path.join(b.root, 'notes.md'), 'utf8')).toBe('from A\n');
    expect(existsSync(path.join(b.root, 'scratch.txt'))).toBe(false);
    const undo = await cli(b, 'restore', pulled.undo, '--yes');
    expect(undo.code, undo.stderr).toBe(0);
    expect(treeState(b.root)).toEqual(before);
  });

  it('--json without --yes and no terminal: the plan as JSON on stdout, exit 3, nothing changed (as restore)', async () => {
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    writeTree(a.root, { 'src/app.ts': 'A\n', 'notes.md': 'from A\n' });
    expect((await cli(a, 'handoff', 'push', '--name', 'unconfirmed')).code).toBe(0);
    const before = treeState(b.root);
    const result = await cli(b, 'handoff', 'pull', '--name', 'unconfirmed', '--json');
    expect(result.code, result.stderr).toBe(3);
    const plan = JSON.parse(result.stdout);
    expect(plan).toMatchObject({ applied: false, checkout: false });
    expect(plan.changed.create).toEqual(['notes.md']);
    expect(plan.changed.overwrite).toEqual(['src/app.ts']);
    expect(result.stderr).toContain('Not applied: pass --yes');
    expect(treeState(b.root)).toEqual(before);
  });

  it("never destroys what the receiver's undo snapshot cannot hold: an ignored .env, an ignored node_modules/, a nested repository (issue 22)", async () => {
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    // On A, three plain files; on B the same names are an ignored file, an ignored folder, a nested repo.
    writeTree(a.root, { '.env': 'PORT=3000\n', node_modules: 'a file on A\n', nested: 'a file on A\n' });
    expect((await cli(a, 'handoff', 'push', '--name', 'unheld')).code).toBe(0);
    writeFileSync(path.join(b.root, '.git', 'info', 'exclude'), '.env\nnode_modules/\n');
    writeTree(b.root, {
      '.env': 'PORT=4000\nLOCAL_ONLY=1\n',
      'node_modules/pkg/index.js': 'module.exports = 1;\n',
      'nested/code.ts': 'nested work\n',
    });
    git(path.join(b.root, 'nested'), 'init', '-q', '-b', 'main');
    git(path.join(b.root, 'nested'), 'add', '-A');
    git(path.join(b.root, 'nested'), 'commit', '-q', '-m', 'nested work');
    const everything = () => ({
      tree: readTree(b.root, (file) => file.startsWith('.claude-checkpoint')),
      nestedGit: readTree(path.join(b.root, 'nested', '.git')),
    });
    const before = everything();

    // The plan, before anything: no "Create" for what exists, each kept-aside or refused path with why.
    const plan = JSON.parse(
      (await cli(b, 'handoff', 'pull', '--name', 'unheld', '--dry-run', '--json')).stdout,
    );
    expect(plan.changed.create).toEqual([]);
    expect(plan.changed.overwrite).toEqual(['.env', 'node_modules']);
    expect(plan.changed.keptAside).toEqual([
      { path: '.env', reason: expect.stringContaining('ignored') },
      { path: 'node_modules/pkg/index.js', reason: expect.stringContaining('ignored') },
    ]);
    expect(plan.changed.refused).toEqual([
      { path: 'nested', reason: expect.stringContaining('nested git repository') },
    ]);
    const text = await cli(b, 'handoff', 'pull', '--name', 'unheld', '--dry-run');
    expect(text.stdout).toMatch(/Kept aside first.*\n {2}\.env: ignored/);
    expect(text.stdout).toMatch(/Refused, left as they are \(1\):\n {2}nested: a nested git repository/);

    const pulled = await cli(b, 'handoff', 'pull', '--name', 'unheld', '--yes', '--json');
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(readFileSync(path.join(b.root, '.env'), 'utf8')).toBe('PORT=3000\n');
    expect(readFileSync(path.join(b.root, 'node_modules'), 'utf8')).toBe('a file on A\n');
    expect(everything().nestedGit).toEqual(before.nestedGit);
    expect(readFileSync(path.join(b.root, 'nested/code.ts'), 'utf8')).toBe('nested work\n');

    const undo = await cli(b, 'restore', JSON.parse(pulled.stdout).undo, '--yes');
    expect(undo.code, undo.stderr).toBe(0);
    expect(everything()).toEqual(before);
  }, 120_000);

  it('a pull whose rename fails leaves no temp file, and says what it put back (audit item 13)', async () => {
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    writeTree(a.root, { 'a-first.txt': 'from A\n' });
    expect((await cli(a, 'save', '--goal', 'A goal')).code).toBe(0);
    expect((await cli(a, 'handoff', 'push', '--name', 'long-rename')).code).toBe(0);
    // Folders whose path stays under the system's limit with a temp file's name in it, but not with
    // the file's own 200-byte name: the temp file is written, and its rename fails (ENAMETOOLONG).
    const ref = 'refs/claude-checkpoint/handoff/long-rename';
    const folders: string[] = [];
    let length = b.root.length;
    while (3970 - length > 241) {
      folders.push(`${'y'.repeat(239)}${folders.length % 10}`);
      length += 241;
    }
    if (3970 - length > 1) folders.push('x'.repeat(3970 - length - 1));
    let entry = `100644 blob ${inBare(['hash-object', '-w', '--stdin'], 'deep\n')}\t${'f'.repeat(200)}`;
    for (const folder of folders.reverse())
      entry = `040000 tree ${inBare(['mktree'], `${entry}\n`)}\t${folder}`;
    const original = inBare(['cat-file', 'commit', ref]);
    const tree = inBare(['mktree'], `${inBare(['ls-tree', `${ref}^{tree}`])}\n${entry}\n`);
    inBare([
      'update-ref',
      ref,
      inBare(
        ['hash-object', '-w', '-t', 'commit', '--stdin'],
        `${original.replace(/^tree .*/, `tree ${tree}`)}\n`,
      ),
    ]);

    const before = treeState(b.root);
    const failed = await cli(b, 'handoff', 'pull', '--name', 'long-rename', '--yes');
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/ENAMETOOLONG/);
    expect(failed.stderr).toContain(
      'the 1 file(s) it had changed were put back as they were; nothing else was changed',
    );
    expect(treeState(b.root)).toEqual(before);
    const temps = execFileSync('find', [b.root, '-name', '.claude-checkpoint-restore-*'], {
      encoding: 'utf8',
    });
    expect(temps).toBe('');
  }, 120_000);

  it('a pull that fails midway (a path longer than the system allows) puts the tree back and leaves no journal (issue 26)', async () => {
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    writeTree(a.root, { 'a-first.txt': 'from A\n', 'src/app.ts': 'A\n' });
    expect((await cli(a, 'save', '--goal', 'A goal')).code).toBe(0);
    expect((await cli(a, 'handoff', 'push', '--name', 'too-long')).code).toBe(0);
    // The remote's handoff gains a path of 18 names of 240 bytes (each name allowed, the whole not),
    // sorted after the others, so the pull has written them when it fails.
    const ref = 'refs/claude-checkpoint/handoff/too-long';
    let entry = `100644 blob ${inBare(['hash-object', '-w', '--stdin'], 'deep\n')}\tfile.txt`;
    for (let depth = 0; depth < 18; depth++)
      entry = `040000 tree ${inBare(['mktree'], `${entry}\n`)}\t${'z'.repeat(239)}${depth % 10}`;
    const original = inBare(['cat-file', 'commit', ref]);
    const tree = inBare(['mktree'], `${inBare(['ls-tree', `${ref}^{tree}`])}\n${entry}\n`);
    const message = original.slice(original.indexOf('\n\n') + 2);
    const parent = /^parent (\S+)$/m.exec(original)?.[1] ?? '';
    const forged = execFileSync('git', ['commit-tree', tree, '-p', parent, '-F', '-'], {
      cwd: bare,
      encoding: 'utf8',
      input: message,
      env: forgerEnv(),
    }).trim();
    inBare(['update-ref', ref, forged]);

    writeTree(b.root, { 'src/app.ts': 'B local\n' });
    expect((await cli(b, 'save', '--goal', 'B goal')).code).toBe(0);
    const checkpointBefore = readFileSync(path.join(b.root, '.claude-checkpoint'), 'utf8');
    const before = treeState(b.root);
    const failed = await cli(b, 'handoff', 'pull', '--name', 'too-long', '--yes');
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('were put back as they were; nothing else was changed');
    expect(treeState(b.root)).toEqual(before);
    // The checkpoint too: the pull replaced it before the files, and the rollback wrote B's back.
    expect(readFileSync(path.join(b.root, '.claude-checkpoint'), 'utf8')).toBe(checkpointBefore);
    expect(existsSync(path.join(b.root, 'a-first.txt'))).toBe(false);
    expect(existsSync(path.join(b.root, 'z'.repeat(239).concat('7')))).toBe(false);
    expect(existsSync(path.join(b.env.CHECKPOINT_STORE_DIR as string))).toBe(true);
    const journals = execFileSync(
      'find',
      [b.env.CHECKPOINT_STORE_DIR as string, '-name', 'restore-journal.json'],
      {
        encoding: 'utf8',
      },
    );
    expect(journals).toBe('');
  }, 120_000);

  it('on another commit than the base: nothing changes, and the message names the commit', async () => {
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    writeTree(a.root, { 'src/app.ts': 'A\n' });
    expect((await cli(a, 'handoff', 'push', '--name', 'elsewhere')).code).toBe(0);
    writeTree(b.root, { 'local.txt': 'B\n' });
    git(b.root, 'add', '-A');
    git(b.root, 'commit', '-q', '-m', 'B moves on');
    const before = treeState(b.root);
    const repo = repoState(b.root);
    const result = await cli(b, 'handoff', 'pull', '--name', 'elsewhere', '--yes');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(git(a.root, 'rev-parse', 'HEAD').trim());
    expect(treeState(b.root)).toEqual(before);
    expect(repoState(b.root)).toEqual(repo);

    // --checkout: refused on a dirty tree, then on a clean one HEAD goes to the base and the handoff applies.
    writeTree(b.root, { 'local.txt': 'B, uncommitted\n' });
    const dirty = await cli(b, 'handoff', 'pull', '--name', 'elsewhere', '--yes', '--checkout');
    expect(dirty.code).toBe(2);
    expect(dirty.stderr).toContain('uncommitted changes');
    expect(git(b.root, 'rev-parse', 'HEAD')).toBe(git(b.root, 'rev-parse', 'main'));
    git(b.root, 'checkout', '--quiet', '--', 'local.txt');
    const switched = await cli(b, 'handoff', 'pull', '--name', 'elsewhere', '--yes', '--checkout');
    expect(switched.code, switched.stderr).toBe(0);
    expect(git(b.root, 'rev-parse', 'HEAD')).toBe(git(a.root, 'rev-parse', 'HEAD'));
    expect(readFileSync(path.join(b.root, 'src/app.ts'), 'utf8')).toBe('A\n');
    expect(existsSync(path.join(b.root, 'local.txt'))).toBe(false);
  });

  // Trial report, 2026-12-06, item 6: the question before a --checkout pull showed no file plan (an
  // ignored file replaced and kept aside went unsaid), and named the other machine's branch although the
  // checkout here would leave HEAD detached.
  it('--checkout shows the file plan and where HEAD ends up before it asks', async () => {
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    writeTree(a.root, { '.gitignore': '.claude-checkpoint*\n', 'debug.log': 'A log\n', 'notes.md': 'A\n' });
    expect((await cli(a, 'handoff', 'push', '--name', 'planned')).code).toBe(0);
    writeTree(b.root, { 'local.txt': 'B\n' });
    git(b.root, 'add', '-A');
    git(b.root, 'commit', '-q', '-m', 'B moves on');
    writeTree(b.root, { 'debug.log': 'B log, ignored here\n' });
    const base = git(a.root, 'rev-parse', 'HEAD').trim();
    const expectPlan = (text: string) => {
      expect(text).toContain(
        `commit ${base} is checked out first (clean tree only), as a detached HEAD: branch main here is at another commit`,
      );
      expect(text).toMatch(/Create \(1\):\n {2}notes\.md/);
      expect(text).toMatch(/Delete \(1\):\n {2}local\.txt/);
      expect(text).toMatch(/Kept aside first, .*\n {2}debug\.log: /);
    };
    const dry = await cli(b, 'handoff', 'pull', '--name', 'planned', '--checkout', '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expectPlan(dry.stdout);
    expect(dry.stdout).toContain('Dry run: nothing was changed.');
    const json = JSON.parse(
      (await cli(b, 'handoff', 'pull', '--name', 'planned', '--checkout', '--dry-run', '--json')).stdout,
    );
    expect(json).toMatchObject({ checkout: true, checkoutBranch: null });
    const asked = await cli(b, 'handoff', 'pull', '--name', 'planned', '--checkout');
    expect(asked.code).toBe(3);
    expectPlan(asked.stderr);
    expect(readFileSync(path.join(b.root, 'debug.log'), 'utf8')).toBe('B log, ignored here\n');
  });

  it("--checkout onto a base this clone never fetched: one step, with the handoff's own objects and no ref written (issue 26)", async () => {
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    // A commits without pushing the branch: the base exists only on A and in the handoff.
    writeTree(a.root, { 'src/feature.ts': 'committed on A only\n' });
    git(a.root, 'add', '-A');
    git(a.root, 'commit', '-q', '-m', 'A, unpushed');
    writeTree(a.root, { 'src/app.ts': 'A, uncommitted\n' });
    expect((await cli(a, 'handoff', 'push', '--name', 'unfetched')).code).toBe(0);
    const base = git(a.root, 'rev-parse', 'HEAD').trim();
    const refsBefore = git(b.root, 'for-each-ref');
    const configBefore = readFileSync(path.join(b.root, '.git', 'config'), 'utf8');

    const pulled = await cli(b, 'handoff', 'pull', '--name', 'unfetched', '--yes', '--checkout');
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(git(b.root, 'rev-parse', 'HEAD').trim()).toBe(base);
    expect(readFileSync(path.join(b.root, 'src/feature.ts'), 'utf8')).toBe('committed on A only\n');
    expect(readFileSync(path.join(b.root, 'src/app.ts'), 'utf8')).toBe('A, uncommitted\n');
    // Objects only: no branch, tag, remote-tracking ref, FETCH_HEAD or config of A's came along.
    expect(git(b.root, 'for-each-ref')).toBe(refsBefore);
    expect(readFileSync(path.join(b.root, '.git', 'config'), 'utf8')).toBe(configBefore);
    expect(existsSync(path.join(b.root, '.git', 'FETCH_HEAD'))).toBe(false);
    expect(git(b.root, 'fsck', '--connectivity-only', '--no-dangling')).toBe('');
  });

  it('a handoff whose checkpoint is damaged (or crafted) is refused before anything is applied', async () => {
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    writeTree(a.root, { 'src/app.ts': 'A\n' });
    expect((await cli(a, 'handoff', 'push', '--name', 'crafted')).code).toBe(0);
    // Rewrite the handoff on the remote with a checkpoint that is not one, as a hostile remote could.
    forgeHandoffMeta(bare, 'crafted', (meta) => ({ ...meta, checkpoint: '{"version": 1, "goal": 42' }));
    const before = treeState(b.root);
    const result = await cli(b, 'handoff', 'pull', '--name', 'crafted', '--yes');
    expect(result.code).toBe(1);
    expect(treeState(b.root)).toEqual(before);
    expect(existsSync(path.join(b.root, '.claude-checkpoint'))).toBe(false);
  });

  it('a forged handoff whose base or branch starts with "-" is refused with a clear error, and runs nothing', async () => {
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    writeTree(a.root, { 'src/app.ts': 'A\n' });
    git(a.root, 'commit', '-q', '-am', 'A moves on');
    expect((await cli(a, 'handoff', 'push', '--name', 'dashes')).code).toBe(0);
    const original = execFileSync('git', ['rev-parse', 'refs/claude-checkpoint/handoff/dashes'], {
      cwd: bare,
      encoding: 'utf8',
    }).trim();
    const marker = path.join(tempDir('markers-'), 'ran');
    const forgeries: Array<[Record<string, string>, RegExp]> = [
      [{ base: `--upload-pack=touch ${marker}` }, /its base '--upload-pack=touch .*' is not a commit id/],
      [
        { branch: `--upload-pack=touch\${IFS}${marker}` },
        /its branch '--upload-pack=touch.*' is not a plain branch name/,
      ],
    ];
    // B is on another commit than the base: --checkout would run git checkout with what the handoff says.
    const before = treeState(b.root);
    const repo = repoState(b.root);
    for (const [change, message] of forgeries) {
      forgeHandoffMeta(bare, 'dashes', (meta) => ({ ...meta, ...change }), original);
      for (const args of [
        ['handoff', 'pull', '--name', 'dashes', '--dry-run'],
        ['handoff', 'pull', '--name', 'dashes', '--yes'],
        ['handoff', 'pull', '--name', 'dashes', '--yes', '--checkout'],
      ]) {
        const result = await cli(b, ...args);
        const what = `${args.join(' ')} with ${JSON.stringify(change)}`;
        expect(result.code, what).toBe(1);
        expect(result.stderr, what).toMatch(message);
        expect(result.stderr, what).toContain('nothing was run or changed');
      }
      // Nor is it listed as a handoff.
      const listed = await cli(b, 'handoff', 'list', '--json');
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).not.toContain('dashes');
    }
    expect(existsSync(marker)).toBe(false);
    expect(treeState(b.root)).toEqual(before);
    expect(repoState(b.root)).toEqual(repo);
  }, 120_000);

  it('with the remote unreachable: a one-line error, exit 1, nothing changed locally', async () => {
    const a = machine(`file://${bare}`, 'Alice');
    git(a.root, 'remote', 'set-url', 'origin', `file://${path.join(tempDir('gone-'), 'missing.git')}`);
    writeTree(a.root, { 'src/app.ts': 'A\n' });
    const before = treeState(a.root);
    const repo = repoState(a.root);
    for (const args of [
      ['handoff', 'push'],
      ['handoff', 'pull', '--yes'],
      ['handoff', 'list'],
    ]) {
      const result = await cli(a, ...args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain("could not reach remote 'origin'");
    }
    expect(treeState(a.root)).toEqual(before);
    expect(repoState(a.root)).toEqual(repo);
  });

  it('bad input names the field: an unknown remote, a bad name', async () => {
    const a = machine(`file://${bare}`, 'Alice');
    const unknown = await cli(a, 'handoff', 'push', '--remote', 'nowhere');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("remote 'nowhere' does not exist here");
    const bad = await cli(a, 'handoff', 'push', '--name', '../x');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--name must be');
    // Trial report, 2026-12-06, item 12: the flag by its name, and the way to the handoffs that are there.
    const badPull = await cli(a, 'handoff', 'pull', '--name', 'bad name..');
    expect(badPull.code).toBe(2);
    expect(badPull.stderr).toContain(
      '--name must be 1-100 characters of letters, digits and . _ - / (no "..", no part beginning with "." or ending in ".lock", not ending in "/" or "."): got \'bad name..\'',
    );
    git(a.root, 'switch', '-q', '-c', 'feature');
    const byBranch = await cli(a, 'handoff', 'pull');
    expect(byBranch.code).toBe(2);
    expect(byBranch.stderr).toContain(
      "claude-checkpoint: --name: no handoff 'feature' on remote 'origin' (without --name, the handoff of the current branch): see the handoffs there with `claude-checkpoint handoff list`; to pull another, pass --name",
    );
    const named = await cli(a, 'handoff', 'pull', '--name', 'nosuch');
    expect(named.stderr).toContain(
      "--name: no handoff 'nosuch' on remote 'origin': see the handoffs there with `claude-checkpoint handoff list`",
    );
    const dropped = await cli(a, 'handoff', 'drop', 'nosuch', '--yes');
    expect(dropped.code).toBe(1);
    expect(dropped.stdout).toContain(
      "No handoff 'nosuch' on origin: see the handoffs there with `claude-checkpoint handoff list`.",
    );
  });

  // A review: the person confirms dropping the handoff they were shown; one pushed over it while they
  // answered must stay (the delete only goes through while the ref is still the one shown).
  it('handoff drop deletes only the handoff the person was shown', async () => {
    const { dropHandoff } = await import('../../src/app/handoff.js');
    const { defaultDeps } = await import('../../src/app/deps.js');
    const { bare } = bareRemote();
    const a = machine(bare, 'Alice');
    expect((await cli(a, 'save', '--goal', 'Drop race')).code).toBe(0);
    expect((await cli(a, 'handoff', 'push', '--name', 'race')).code).toBe(0);
    const refs = () =>
      execFileSync('git', ['for-each-ref', 'refs/claude-checkpoint'], { cwd: bare, encoding: 'utf8' });
    const deps = defaultDeps({ env: { ...a.env, HOME: tempDir('drop-home-') }, cwd: () => a.root });
    const shown = await dropHandoff(deps, { name: 'race', dryRun: true });
    expect(shown.commit).toMatch(/^[0-9a-f]{40}$/);
    // Pushed over while the question was open.
    writeTree(a.root, { 'later.txt': 'later\n' });
    expect((await cli(a, 'handoff', 'push', '--name', 'race', '--force')).code).toBe(0);
    await expect(
      dropHandoff(deps, { name: 'race', expectCommit: shown.commit ?? undefined }),
    ).rejects.toThrow(/changed since it was listed .*nothing was deleted/);
    expect(refs()).toContain('race');
    // What is there now, shown and confirmed, goes.
    const now = await dropHandoff(deps, { name: 'race', dryRun: true });
    expect(await dropHandoff(deps, { name: 'race', expectCommit: now.commit ?? undefined })).toMatchObject({
      dropped: true,
    });
    expect(refs()).not.toContain('race');
  });
});
