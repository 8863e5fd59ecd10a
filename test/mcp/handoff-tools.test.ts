import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, tempDir, writeTree } from '../helpers/fixtures.js';
import { forgeHandoffMeta, withTasksDamaged } from '../helpers/handoff.js';
import { connect } from '../helpers/mcp.js';

/** A bare remote with one commit, and a clone of it as one machine. */
function clone(bare: string, user: string): string {
  const root = tempDir(`mcp-handoff-${user}-`);
  execFileSync('git', ['clone', '-q', `file://${bare}`, root], { stdio: 'ignore' });
  git(root, 'config', 'user.name', user);
  git(root, 'config', 'user.email', `${user}@example.com`);
  return root;
}

function remote(): string {
  const seed = tempDir('mcp-handoff-seed-');
  git(seed, 'init', '-q', '-b', 'main');
  writeTree(seed, { '.gitignore': '.claude-checkpoint*\n', 'app.ts': 'v1\n' });
  git(seed, 'add', '-A');
  git(seed, '-c', 'user.name=Seed', '-c', 'user.email=seed@example.com', 'commit', '-q', '-m', 'initial');
  const bare = path.join(tempDir('mcp-handoff-remote-'), 'p.git');
  execFileSync('git', ['clone', '-q', '--bare', seed, bare], { stdio: 'ignore' });
  return bare;
}

describe('push_handoff and pull_handoff over MCP', () => {
  it('push on one machine, a plan then the pull on the other, with pull_handoff marked destructive', async () => {
    const bare = remote();
    const a = clone(bare, 'alice');
    const b = clone(bare, 'bob');
    const machineA = await connect({ deps: { env: { CHECKPOINT_STORE_DIR: tempDir('store-a-') } } });
    const machineB = await connect({ deps: { env: { CHECKPOINT_STORE_DIR: tempDir('store-b-') } } });
    const { tools } = await machineB.client.listTools();
    expect(tools.find((tool) => tool.name === 'pull_handoff')?.annotations).toMatchObject({
      destructiveHint: true,
      openWorldHint: true,
    });

    writeFileSync(path.join(a, 'app.ts'), 'v2 from alice\n');
    const saved = await machineA.call('save_session_checkpoint', {
      projectRoot: a,
      goal: 'Finish the importer',
      nextSteps: ['Wire the CLI'],
    });
    expect(saved.isError).toBeFalsy();
    const pushed = await machineA.call('push_handoff', { projectRoot: a });
    expect(pushed.isError, pushed.text).toBeFalsy();
    expect(pushed.structured).toMatchObject({
      pushed: true,
      ref: 'refs/claude-checkpoint/handoff/main',
      files: { modified: ['app.ts'] },
    });

    const plan = await machineB.call('pull_handoff', { projectRoot: b });
    // A plan writes no checkpoint, and says it would (it said "written").
    expect(plan.structured).toMatchObject({
      applied: false,
      changed: { overwrite: ['app.ts'] },
      checkpoint: 'would be written',
    });
    expect(existsSync(path.join(b, '.claude-checkpoint'))).toBe(false);
    expect(readFileSync(path.join(b, 'app.ts'), 'utf8')).toBe('v1\n');
    const pulled = await machineB.call('pull_handoff', { projectRoot: b, dryRun: false });
    expect(pulled.structured).toMatchObject({ applied: true, checkpoint: 'written' });
    expect(readFileSync(path.join(b, 'app.ts'), 'utf8')).toBe('v2 from alice\n');
    const brief = await machineB.call('load_session_checkpoint', { projectRoot: b });
    expect(brief.text).toContain('Finish the importer');
    expect(brief.text).toContain('No file changed after the checkpoint');
  });

  it('a secret stops the push, and the result says where, never what', async () => {
    const bare = remote();
    const a = clone(bare, 'alice');
    const machine = await connect({ deps: { env: { CHECKPOINT_STORE_DIR: tempDir('store-') } } });
    const token = `ghp_${'k3Jm9Qx2Lp7Wv4Rt8Yz1Bn6Cd5Fg0Hs2Aq9E'}`;
    writeTree(a, { 'deploy.sh': `export GITHUB_TOKEN=${token}\n` });
    const refused = await machine.call('push_handoff', { projectRoot: a, name: 'leak' });
    expect(refused.structured).toMatchObject({ pushed: false, secrets: [{ file: 'deploy.sh', line: 1 }] });
    expect(JSON.stringify(refused)).not.toContain(token);
    expect(
      execFileSync('git', ['for-each-ref', 'refs/claude-checkpoint'], { cwd: bare, encoding: 'utf8' }),
    ).toBe('');
  });

  it('a secret only in an unpushed commit is refused, and the result names that commit (in its text and its fields)', async () => {
    const bare = remote();
    const a = clone(bare, 'alice');
    const machine = await connect({ deps: { env: { CHECKPOINT_STORE_DIR: tempDir('store-') } } });
    const token = `ghp_${'k3Jm9Qx2Lp7Wv4Rt8Yz1Bn6Cd5Fg0Hs2Aq9E'}`;
    writeTree(a, { 'deploy.sh': `export GITHUB_TOKEN=${token}\n` });
    git(a, 'add', 'deploy.sh');
    git(a, 'commit', '-q', '-m', 'add deploy');
    const added = git(a, 'rev-parse', '--short=12', 'HEAD').trim();
    git(a, 'rm', '-q', 'deploy.sh');
    git(a, 'commit', '-q', '-m', 'remove deploy');
    const refused = await machine.call('push_handoff', { projectRoot: a, name: 'history' });
    expect(refused.structured).toMatchObject({
      pushed: false,
      secrets: [{ file: 'deploy.sh', line: 1, commit: added }],
    });
    expect(refused.text).toContain(`in commit ${added}`);
    expect(JSON.stringify(refused)).not.toContain(token);
  });

  it("the project's pre-push hook runs and can stop the push; skipping it is left to a person (issue 26)", async () => {
    const bare = remote();
    const a = clone(bare, 'alice');
    const hook = path.join(a, '.git', 'hooks', 'pre-push');
    writeFileSync(hook, '#!/bin/sh\necho "pre-push: not today" >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    const machine = await connect({ deps: { env: { CHECKPOINT_STORE_DIR: tempDir('store-') } } });
    const refused = await machine.call('push_handoff', { projectRoot: a, name: 'hooked' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('pre-push: not today');
    expect(refused.text).toContain('`claude-checkpoint handoff push --no-verify`');
    expect(refused.text).not.toMatch(/pass --no-verify/);
    expect(
      execFileSync('git', ['for-each-ref', 'refs/claude-checkpoint'], { cwd: bare, encoding: 'utf8' }),
    ).toBe('');
  });

  // Bad-input trial: a hand-damaged checkpoint went out as it was, and the handoff could not be pulled.
  it('a damaged checkpoint: push sends the backup and says so, or refuses naming the field; a damaged handoff is named as such', async () => {
    const bare = remote();
    const a = clone(bare, 'alice');
    const b = clone(bare, 'bob');
    const machineA = await connect({ deps: { env: { CHECKPOINT_STORE_DIR: tempDir('store-a-') } } });
    const machineB = await connect({ deps: { env: { CHECKPOINT_STORE_DIR: tempDir('store-b-') } } });
    const file = path.join(a, '.claude-checkpoint');
    const damage = () => {
      const checkpoint = JSON.parse(readFileSync(file, 'utf8'));
      checkpoint.goal.tasks = 'oops';
      writeFileSync(file, JSON.stringify(checkpoint));
    };
    await machineA.call('save_session_checkpoint', { projectRoot: a, goal: 'First goal' });
    damage();
    const refused = await machineA.call('push_handoff', { projectRoot: a, name: 'qa2' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('nothing was pushed');
    expect(refused.text).toContain('checkpoint field goal.tasks is invalid: expected array');
    expect(
      execFileSync('git', ['for-each-ref', 'refs/claude-checkpoint'], { cwd: bare, encoding: 'utf8' }),
    ).toBe('');

    writeFileSync(file, '');
    await machineA.call('save_session_checkpoint', { projectRoot: a, goal: 'Second goal' });
    await machineA.call('save_session_checkpoint', { projectRoot: a, goal: 'Third goal' });
    damage();
    const pushed = await machineA.call('push_handoff', { projectRoot: a, name: 'qa2' });
    expect(pushed.isError, pushed.text).toBeFalsy();
    expect(pushed.structured).toMatchObject({ pushed: true, checkpoint: 'backup' });
    expect(pushed.text).toContain('the handoff carries its backup .claude-checkpoint.prev instead');
    const plan = await machineB.call('pull_handoff', { projectRoot: b, name: 'qa2' });
    expect(plan.structured).toMatchObject({ checkpoint: 'would be written' });
    expect(plan.text).toContain('Second goal');

    const forged = forgeHandoffMeta(bare, 'qa2', withTasksDamaged);
    const damaged = await machineB.call('pull_handoff', { projectRoot: b, name: 'qa2' });
    expect(damaged.isError).toBe(true);
    expect(damaged.text).toContain(
      `handoff 'qa2' on remote 'origin' (commit ${forged.slice(0, 12)}) carries a damaged checkpoint: checkpoint field goal.tasks is invalid: expected array`,
    );
  });
});
