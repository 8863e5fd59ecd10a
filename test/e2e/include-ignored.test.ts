import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, runNodeScript, SHIPPED_HOOK_ENTRY } from '../helpers/cli.js';
import { createRepo, git, tempDir, writeTree } from '../helpers/fixtures.js';
import { bareRemote, cli, machine } from '../helpers/handoff.js';

beforeAll(assertBuilt);

const ENV_FILE = 'DATABASE_URL=postgres://localhost/dev\nFEATURE_FLAG=on\n';

/** Opted in through the user's settings file, which the agent's hooks read too. */
function optIn(patterns: string[]): Record<string, string> {
  const config = tempDir('checkpoint-config-');
  writeFileSync(path.join(config, 'config.json'), JSON.stringify({ snapshotIncludeIgnored: patterns }));
  return { CHECKPOINT_CONFIG_DIR: config };
}

const preCommandHook = (root: string, env: Record<string, string>, command: string) =>
  runNodeScript(SHIPPED_HOOK_ENTRY, ['PreToolUse'], {
    cwd: root,
    env,
    input: JSON.stringify({
      session_id: 's',
      cwd: root,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command },
    }),
  });

const listed = async (root: string, env: Record<string, string>) =>
  JSON.parse((await runCli(['list', '--json'], { cwd: root, env })).stdout).snapshots as Array<{
    id: string;
    trigger: string;
    label?: string;
  }>;

/** Every file under a folder, as paths relative to it. */
const filesUnder = (dir: string): string[] =>
  (
    readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<{
      parentPath: string;
      name: string;
      isFile(): boolean;
    }>
  )
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));

describe('ignored files, opted in (snapshotIncludeIgnored)', () => {
  it('git clean -fdx after a pre-command snapshot: restoring it brings .env back, from the private store', async () => {
    const root = createRepo({
      committed: { 'src/app.ts': 'export const app = 1;\n' },
      ignore: '.claude-checkpoint*\n.env*\nnode_modules/\n*.log\n',
    });
    writeTree(root, {
      '.env': ENV_FILE,
      'apps/web/.env.local': 'PORT=3000\n',
      'node_modules/pkg/.env.example': 'from a package\n',
      'build.log': 'not asked for\n',
      'src/draft.ts': 'export const draft = true;\n',
    });
    const store = tempDir('checkpoint-store-');
    const env = { CHECKPOINT_STORE_DIR: store, ...optIn(['.env*']) };

    const hooked = await preCommandHook(root, env, 'git clean -fdx');
    expect(hooked).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const [snapshot] = await listed(root, env);
    expect(snapshot).toMatchObject({ trigger: 'pre-command', label: 'git clean -fdx' });

    // The command itself, for real.
    git(root, 'clean', '-fdx', '-q');
    expect(existsSync(path.join(root, '.env'))).toBe(false);
    expect(existsSync(path.join(root, 'src', 'draft.ts'))).toBe(false);

    const restored = await runCli(['restore', snapshot?.id ?? '', '--yes'], { cwd: root, env });
    expect(restored.code, restored.stderr).toBe(0);
    expect(readFileSync(path.join(root, '.env'), 'utf8')).toBe(ENV_FILE);
    expect(readFileSync(path.join(root, 'apps', 'web', '.env.local'), 'utf8')).toBe('PORT=3000\n');
    expect(readFileSync(path.join(root, 'src', 'draft.ts'), 'utf8')).toBe('export const draft = true;\n');
    // What no pattern names stays out, and an ignored folder is not entered for a name-only pattern.
    expect(existsSync(path.join(root, 'build.log'))).toBe(false);
    expect(existsSync(path.join(root, 'node_modules'))).toBe(false);

    // Kept in the private store: owner-only folders, and nowhere else.
    const projects = path.join(store, 'projects');
    expect(statSync(store).mode & 0o077).toBe(0);
    expect(statSync(projects).mode & 0o077).toBe(0);
    for (const dir of readdirSync(projects)) expect(statSync(path.join(projects, dir)).mode & 0o077).toBe(0);
    expect(git(root, 'status', '--porcelain', '--ignored')).not.toContain('claude-checkpoint-');
  });

  it('without the opt-in, the same run loses .env (so the test above means something)', async () => {
    const root = createRepo({ committed: { 'src/app.ts': 'x\n' }, ignore: '.claude-checkpoint*\n.env*\n' });
    writeTree(root, { '.env': ENV_FILE, 'src/draft.ts': 'y\n' });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), ...optIn([]) };
    expect(await preCommandHook(root, env, 'git clean -fdx')).toMatchObject({ code: 0, stderr: '' });
    git(root, 'clean', '-fdx', '-q');
    const [snapshot] = await listed(root, env);
    await runCli(['restore', snapshot?.id ?? '', '--yes'], { cwd: root, env });
    expect(readFileSync(path.join(root, 'src', 'draft.ts'), 'utf8')).toBe('y\n');
    expect(existsSync(path.join(root, '.env'))).toBe(false);
  });

  it('rewinding to a snapshot taken before .env existed leaves .env alone', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a\n' }, ignore: '.claude-checkpoint*\n.env*\n' });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), ...optIn(['.env*']) };
    await runCli(['snapshot', '--label', 'before'], { cwd: root, env });
    writeTree(root, { '.env': ENV_FILE, 'b.ts': 'b\n' });
    await runCli(['snapshot', '--label', 'after'], { cwd: root, env });
    const before = (await listed(root, env)).find((entry) => entry.label === 'before');
    const restored = await runCli(['restore', before?.id ?? '', '--yes'], { cwd: root, env });
    expect(restored.code, restored.stderr).toBe(0);
    expect(existsSync(path.join(root, 'b.ts'))).toBe(false);
    expect(readFileSync(path.join(root, '.env'), 'utf8')).toBe(ENV_FILE);
    expect(restored.stdout).toContain('.env: the snapshot did not hold it');
  });

  it('turned off again, later snapshots hold them no more; files the project tracks stay', async () => {
    const root = createRepo({
      committed: { 'a.ts': 'a\n' },
      ignore: '.claude-checkpoint*\n.env*\n*.local.json\n',
    });
    // Tracked although ignored (added with --force): every snapshot holds it, opt-in or not.
    writeTree(root, { 'team.local.json': '{}\n' });
    git(root, 'add', '--force', 'team.local.json');
    git(root, 'commit', '-q', '-m', 'force-added');
    writeTree(root, { '.env': ENV_FILE, 'mine.local.json': '{"me":1}\n' });
    const on = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), ...optIn(['.env*', '*.local.json']) };
    await runCli(['snapshot', '--label', 'on'], { cwd: root, env: on });
    const off = { ...on, CHECKPOINT_SNAPSHOT_INCLUDE_IGNORED: '.env.example' };
    const taken = await runCli(['snapshot', '--label', 'off', '--json'], { cwd: root, env: off });
    expect(JSON.parse(taken.stdout).snapshot.changes).toEqual({ added: 0, modified: 0, deleted: 2 });
    const [second, first] = await listed(root, off);
    const between = JSON.parse(
      (
        await runCli(['diff', first?.id ?? '', '--against', second?.id ?? '', '--json'], {
          cwd: root,
          env: off,
        })
      ).stdout,
    );
    expect(between.files.map((file: { path: string }) => file.path).sort()).toEqual([
      '.env',
      'mine.local.json',
    ]);
    // Still on disk: only the store let go of them.
    expect(readFileSync(path.join(root, '.env'), 'utf8')).toBe(ENV_FILE);
  });

  it('never in a handoff: push carries the work but not .env, which the snapshot holds', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    a.env = { ...a.env, ...optIn(['.env*']) };
    // Ignored for this clone alone (its info/exclude), as many set-ups have it.
    appendFileSync(path.join(a.root, '.git', 'info', 'exclude'), '.env*\n');
    writeTree(a.root, { '.env': ENV_FILE, 'src/feature.ts': 'export const feature = 1;\n' });
    expect(git(a.root, 'check-ignore', '.env').trim()).toBe('.env');
    const pushed = await cli(a, 'handoff', 'push', '--json');
    expect(pushed.code, pushed.stderr).toBe(0);
    const outcome = JSON.parse(pushed.stdout);
    expect(outcome.files.added).toEqual(['src/feature.ts']);
    const pushedFiles = execFileSync('git', ['ls-tree', '-r', '--name-only', outcome.commit], {
      cwd: bare,
      encoding: 'utf8',
    });
    expect(pushedFiles).toContain('src/feature.ts');
    expect(pushedFiles).not.toContain('.env');
    // The snapshot the push took holds it, in the private store only.
    const [handoffSnapshot] = await listed(a.root, a.env);
    expect(handoffSnapshot).toMatchObject({ trigger: 'handoff' });
    rmSync(path.join(a.root, '.env'));
    const shown = await runCli(['diff', handoffSnapshot?.id ?? '', '--json'], { cwd: a.root, env: a.env });
    expect(JSON.parse(shown.stdout).files).toEqual([expect.objectContaining({ path: '.env' })]);
    const objects = execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], { cwd: bare });
    expect(objects.includes(Buffer.from('DATABASE_URL'))).toBe(false);
    expect(filesUnder(bare).some((file) => file.includes('.env'))).toBe(false);
  });
});
