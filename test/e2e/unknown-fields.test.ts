import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import { connect } from '../helpers/mcp.js';

beforeAll(assertBuilt);

// biome-ignore lint/suspicious/noExplicitAny: the file as JSON, walked by the tests below
type Json = Record<string, any>;
const file = (root: string) => path.join(root, '.claude-checkpoint');
const stored = (root: string): Json => JSON.parse(readFileSync(file(root), 'utf8'));
// Assembled, so that no scanner takes this file for a leak.
const SECRET = ['ghp', '_', 'R8yKq2Lm5Nx7Pw3Tz9Vb4Hc6Jd1Fg0Sa2Ek'].join('');

/** A newer writer's additions at every level of the format, one of them holding a secret. */
function addFutureFields(root: string): void {
  const checkpoint = stored(root);
  checkpoint.futureField = { a: 1, leaked: `token ${SECRET}` };
  checkpoint.project.futureProject = 'p';
  checkpoint.generator.futureGenerator = 'g';
  checkpoint.git.futureGit = 'stale';
  checkpoint.goal.futureGoal = 2;
  checkpoint.goal.tasks[0].futureTask = 4;
  checkpoint.modifiedFiles[0].futureFile = 5;
  checkpoint.recentCommands[0].futureCommand = 6;
  checkpoint.meta.futureMeta = 3;
  writeFileSync(file(root), JSON.stringify(checkpoint, null, 2));
}

const KEPT_ALWAYS = {
  futureField: { a: 1, leaked: 'token «redacted»' },
  project: { name: expect.any(String), futureProject: 'p' },
  goal: { futureGoal: 2 },
  meta: { futureMeta: 3 },
};

function expectEntryFields(checkpoint: Json, kept: boolean): void {
  const has = (value: Json, name: string) => expect(Object.keys(value).includes(name)).toBe(kept);
  has(checkpoint.goal.tasks[0], 'futureTask');
  has(checkpoint.modifiedFiles[0], 'futureFile');
  has(checkpoint.recentCommands[0], 'futureCommand');
}

function expectRewrittenWhole(checkpoint: Json): void {
  expect(checkpoint.generator).not.toHaveProperty('futureGenerator');
  expect(checkpoint.git).not.toHaveProperty('futureGit');
  expect(JSON.stringify(checkpoint)).not.toContain(SECRET);
}

// Issue 26 (new-user trial, 2026-12-06): docs/checkpoint-file.md says unknown fields are kept when the
// file is rewritten; a save dropped them all but a task's.
describe('fields a newer writer added to .claude-checkpoint', () => {
  const first = ['save', '--goal', 'g', '--task', 'pending:t', '--file', 'a.js::main', '--command', 'make'];

  it('CLI, merge: kept at every level, redacted; generator and git rewritten whole', async () => {
    const root = createRepo({ committed: { 'a.js': 'a' }, dirty: { 'a.js': 'b' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    expect((await runCli(first, { cwd: root, env })).code).toBe(0);
    addFutureFields(root);
    const saved = await runCli(['save', '--goal', 'g2', '--merge', '--json'], { cwd: root, env });
    expect(saved.code, saved.stderr).toBe(0);
    expect(JSON.parse(saved.stdout).warnings).toContain('Redacted 1 secret-looking value(s).');
    const checkpoint = stored(root);
    expect(checkpoint).toMatchObject({ ...KEPT_ALWAYS, goal: { primary: 'g2', futureGoal: 2 } });
    expectEntryFields(checkpoint, true);
    expectRewrittenWhole(checkpoint);
    // Still kept by the next save, redacted once.
    await runCli(['save', '--goal', 'g3', '--merge'], { cwd: root, env });
    expect(stored(root)).toMatchObject({ ...KEPT_ALWAYS, meta: { redactions: 1, futureMeta: 3 } });
  });

  it('CLI, replace: kept on the file, project, goal and meta; a new list keeps none of the old entries', async () => {
    const root = createRepo({ committed: { 'a.js': 'a' }, dirty: { 'a.js': 'b' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    expect((await runCli(first, { cwd: root, env })).code).toBe(0);
    addFutureFields(root);
    const replaced = ['save', '--goal', 'g2', '--task', 'pending:t', '--file', 'a.js', '--command', 'make'];
    expect((await runCli(replaced, { cwd: root, env })).code).toBe(0);
    const checkpoint = stored(root);
    expect(checkpoint).toMatchObject(KEPT_ALWAYS);
    expectEntryFields(checkpoint, false);
    expectRewrittenWhole(checkpoint);
  });

  it('MCP, merge and replace: the same', async () => {
    const root = createRepo({ committed: { 'a.js': 'a' }, dirty: { 'a.js': 'b' } });
    const { call } = await connect();
    const input = {
      projectRoot: root,
      goal: 'g',
      tasks: [{ description: 't', status: 'pending' }],
      modifiedFiles: [{ path: 'a.js', note: 'main' }],
      recentCommands: [{ command: 'make', exitCode: 0 }],
    };
    expect((await call('save_session_checkpoint', input)).isError).toBeFalsy();
    addFutureFields(root);
    const merged = await call('save_session_checkpoint', { projectRoot: root, goal: 'g2', mode: 'merge' });
    expect(merged.isError, merged.text).toBeFalsy();
    expect(stored(root)).toMatchObject(KEPT_ALWAYS);
    expectEntryFields(stored(root), true);
    expectRewrittenWhole(stored(root));

    const replaced = await call('save_session_checkpoint', input);
    expect(replaced.isError, replaced.text).toBeFalsy();
    expect(stored(root)).toMatchObject(KEPT_ALWAYS);
    expectEntryFields(stored(root), false);
  });

  it('never stand in for a field this version writes, nor bring back one it left out', async () => {
    const root = createRepo({ committed: { 'a.js': 'a' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    expect((await runCli(['save', '--goal', 'g', '--summary', 'old'], { cwd: root, env })).code).toBe(0);
    const checkpoint = stored(root);
    checkpoint.meta.flagged = { since: checkpoint.updatedAt, paths: ['a.js'], futureFlag: 1 };
    writeFileSync(file(root), JSON.stringify(checkpoint, null, 2));
    // A replace without a summary has none; the agent's own save clears the flags.
    expect((await runCli(['save', '--goal', 'g2'], { cwd: root, env })).code).toBe(0);
    expect(stored(root)).not.toHaveProperty('summary');
    expect(stored(root).meta).not.toHaveProperty('flagged');
    expect(stored(root).goal.primary).toBe('g2');
  });

  it('count toward the 64 KB cap: dropped when nothing else would make the file fit', async () => {
    const root = createRepo({ committed: { 'a.js': 'a' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    expect((await runCli(['save', '--goal', 'g', '--command', 'make'], { cwd: root, env })).code).toBe(0);
    const checkpoint = stored(root);
    checkpoint.futureField = 'x'.repeat(70 * 1024);
    writeFileSync(file(root), JSON.stringify(checkpoint));
    const saved = await runCli(['save', '--goal', 'g2', '--merge', '--json'], { cwd: root, env });
    expect(saved.code, saved.stderr).toBe(0);
    expect(readFileSync(file(root)).byteLength).toBeLessThanOrEqual(64 * 1024);
    expect(stored(root)).not.toHaveProperty('futureField');
    expect(stored(root)).toMatchObject({ recentCommands: [{ command: 'make' }], meta: { truncated: true } });
  });

  // Review of 2026-12-06: each name and value was redacted on its own, so a secret known only by its name
  // (a password, an AWS secret key) was written back as it was.
  it('a secret known only by its field’s name is redacted', async () => {
    const root = createRepo({ committed: { 'a.js': 'a' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    expect((await runCli(['save', '--goal', 'g'], { cwd: root, env })).code).toBe(0);
    const awsSecret = 'kV9pQ2xR7mT4wZ8yB3nC6dF1gH5jL0sAeU2iO8qW';
    const checkpoint = stored(root);
    checkpoint.deploy = {
      db_password: 'hunter2hunter2',
      aws_secret_access_key: awsSecret,
      region: 'eu-west-1',
    };
    writeFileSync(file(root), JSON.stringify(checkpoint, null, 2));
    expect((await runCli(['save', '--goal', 'g2', '--merge'], { cwd: root, env })).code).toBe(0);
    const text = readFileSync(file(root), 'utf8');
    expect(text).not.toContain('hunter2hunter2');
    expect(text).not.toContain(awsSecret);
    expect(stored(root).deploy).toEqual({
      db_password: '«redacted»',
      aws_secret_access_key: '«redacted»',
      region: 'eu-west-1',
    });
  });
});
