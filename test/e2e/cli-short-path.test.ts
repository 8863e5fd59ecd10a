import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, runNodeScript } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

// Issue 26: the loader (dist/cli.cjs, through its start, dist/cli-start.cjs) prints the general help itself, its text pre-rendered at build
// time, and runs `status` and `list` from a bundle of their own (dist/cli-fast.cjs: no commander, no
// other command's code). The whole CLI's bundle (dist/cli-main.cjs), run alone, is commander's parser and the
// same code: both must answer every command line byte for byte alike, in every state of a project (but
// the one tested last: a listed file whose name is a token, which only the detector can tell).
const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const WHOLE_CLI = path.join(DIST, 'cli-main.cjs');
const buildOf = (bundle: string) =>
  /^\/\/ build ([0-9a-f]+)\n/.exec(readFileSync(path.join(DIST, bundle), 'utf8'))?.[1];
const SHORT_BUILD = buildOf('cli-fast.cjs');
const SNAPSHOT_BUILD = buildOf('cli-snapshot.cjs');

type Place = { cwd: string; env: Record<string, string> };

/**
 * Runs `args` through the loader in `place` and through the whole CLI's bundle alone in `twin` (`place`
 * itself, unless the command writes: then the same project state and settings with a store of its own),
 * and expects the same exit code, stdout and stderr byte for byte, with what reads the clock or names
 * the store set aside: ages ("just now", then "5s ago"), snapshot ids and times, the store folders.
 * --debug's stack traces name each bundle's own file and frames.
 */
async function expectAlike(
  args: string[],
  place: Place,
  twin: Place = place,
): Promise<{ code: number | null; stdout: string }> {
  const short = await runCli(args, place);
  const whole = await runNodeScript(WHOLE_CLI, args, twin);
  const clockFree = (text: string) =>
    text
      .replace(/\b(just now|\d+[smhd] ago)\b/g, '<age>')
      .replace(/\b\d{8}-\d{6}-[0-9a-f]{6}\b/g, '<id>')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>')
      .replaceAll(twin.env.CHECKPOINT_STORE_DIR as string, '<store>')
      .replaceAll(place.env.CHECKPOINT_STORE_DIR as string, '<store>');
  const frames = (text: string) => (args.includes('--debug') ? text.replace(/^ {4}at .*\n/gm, '') : text);
  const comparable = (result: typeof short) => ({
    ...result,
    stdout: clockFree(result.stdout),
    stderr: frames(clockFree(result.stderr)),
  });
  expect(comparable(short)).toEqual(comparable(whole));
  return short;
}

/** Whether the short path ran `name` in this store: its bundle's code cache, written after an exit 0. */
function ranShort(place: Place, name: string, build = SHORT_BUILD): boolean {
  const dir = path.join(place.env.CHECKPOINT_STORE_DIR as string, 'cache');
  return (
    existsSync(dir) &&
    readdirSync(dir).some((file) => file.startsWith(`cli-${name}-`) && file.includes(`-${build}.`))
  );
}

/** The code caches a run wrote: the loader's start's (`cli-start…`), and each bundle's it ran. */
function cachesOf(place: Place): string[] {
  const dir = path.join(place.env.CHECKPOINT_STORE_DIR as string, 'cache');
  return existsSync(dir) ? readdirSync(dir) : [];
}

function place(cwd: string): Place {
  return { cwd, env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: tempDir('home-') } };
}

async function saved(root: string): Promise<Place> {
  const at = place(root);
  for (const args of [
    ['save', '--goal', 'Ship it', '--task', 'in_progress:start', '--task', 'done:plan'],
    ['snapshot', '--label', 'first'],
  ])
    expect((await runCli(args, at)).code).toBe(0);
  return at;
}

const VARIANTS = [[], ['--json'], ['--no-color', '--debug'], ['--json', '--json', '--no-color']];

describe('the CLI’s short path answers as the whole CLI does', () => {
  it('holds no commander, and the loader no command', () => {
    expect(readFileSync(path.join(DIST, 'cli-fast.cjs'), 'utf8')).not.toContain('CommanderError');
    expect(readFileSync(path.join(DIST, 'cli-snapshot.cjs'), 'utf8')).not.toContain('CommanderError');
    expect(readFileSync(path.join(DIST, 'cli-main.cjs'), 'utf8')).toContain('CommanderError');
    for (const loader of ['cli.cjs', 'cli-start.cjs'])
      expect(readFileSync(path.join(DIST, loader), 'utf8')).not.toContain('Checkpoint: none saved yet');
  });

  it.each([['--help'], ['-h'], ['help']])(
    '%s: the pre-rendered help is the parser’s, printed by the loader',
    async (flag) => {
      const at = place(tempDir('cli-short-'));
      const { code, stdout } = await expectAlike([flag], at);
      expect(code).toBe(0);
      expect(stdout).toMatch(/^Usage: claude-checkpoint \[options\] \[command\]\n/);
      // Printed by the loader's start: no command's bundle ran, so none wrote its code cache.
      expect(cachesOf(at).filter((name) => !name.startsWith('cli-start'))).toEqual([]);
      expect(cachesOf(at)).toHaveLength(1);
    },
  );

  it.each(VARIANTS)(
    'status and list %j: a saved checkpoint, files changed since (drift)',
    async (...flags) => {
      const root = createRepo({ committed: { 'a.txt': 'one\n', 'src/b.ts': 'export {};\n' } });
      const at = await saved(root);
      writeFileSync(path.join(root, 'a.txt'), 'two\n');
      writeFileSync(path.join(root, 'new.txt'), 'new\n');
      for (const command of ['status', 'list']) {
        const { code, stdout } = await expectAlike([command, ...flags], at);
        expect(code).toBe(0);
        expect(stdout).not.toBe('');
        expect(ranShort(at, command)).toBe(true);
      }
      expect((await expectAlike(['status', ...flags], at)).stdout).toMatch(/2 file|"changedSince"/);
    },
  );

  it.each(VARIANTS)('status and list %j: no checkpoint, no snapshot', async (...flags) => {
    const at = place(createRepo({ committed: { 'a.txt': 'one\n' } }));
    for (const command of ['status', 'list'])
      expect((await expectAlike([command, ...flags], at)).code).toBe(0);
    expect(ranShort(at, 'status')).toBe(true);
  });

  it.each(VARIANTS)('status and list %j: no git', async (...flags) => {
    const root = tempDir('no-git-');
    writeFileSync(path.join(root, 'a.txt'), 'one\n');
    const at = await saved(root);
    for (const command of ['status', 'list'])
      expect((await expectAlike([command, ...flags], at)).code).toBe(0);
  });

  it.each(VARIANTS)('status and list %j: outside a project (the home folder)', async (...flags) => {
    const at = place(tempDir('cli-short-'));
    at.env.HOME = at.cwd;
    for (const command of ['status', 'list']) await expectAlike([command, ...flags], at);
  });

  it('--root, before or after the other flags, relative or with =, and its errors', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const at = await saved(root);
    const parent = { ...at, cwd: path.dirname(root) };
    const name = path.basename(root);
    for (const command of ['status', 'list']) {
      for (const args of [
        ['--root', name],
        [`--root=${name}`, '--json'],
        ['--json', '--root', root],
        ['--root', 'nowhere'],
        ['--root', ''],
        ['--root='],
        ['--root', '/'],
      ])
        await expectAlike([command, ...args], parent);
    }
    expect(ranShort(parent, 'status')).toBe(true);
  });

  it('list --limit, and the command lines the short path leaves to the parser', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const at = await saved(root);
    writeFileSync(path.join(root, 'a.txt'), 'two\n');
    expect((await runCli(['snapshot'], at)).code).toBe(0);
    for (const args of [
      ['list', '--limit', '1'],
      ['list', '--limit=1', '--json'],
      ['list', '--limit', '0'],
      ['list', '--limit', 'x'],
      ['list', '--limit', '-1'],
      ['list', '--limit'],
      ['status', '--limit', '1'],
      ['status', 'extra'],
      ['status', '--root'],
      ['status', '--jsn'],
      ['list', '--help'],
      ['--root', root, 'status'],
      ['help', 'status'],
    ])
      await expectAlike(args, at);
  });

  it.each(VARIANTS)(
    'snapshot %j: the first, one after changes, and one with nothing changed',
    async (...flags) => {
      const root = createRepo({ committed: { 'a.txt': 'one\n', 'src/b.ts': 'export {};\n' } });
      const at = place(root);
      const twin = { cwd: root, env: { ...at.env, CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } };
      const first = await expectAlike(['snapshot', ...flags], at, twin);
      expect(first.code).toBe(0);
      expect(ranShort(at, 'snapshot', SNAPSHOT_BUILD)).toBe(true);
      writeFileSync(path.join(root, 'a.txt'), 'two\n');
      writeFileSync(path.join(root, 'new.txt'), 'new\n');
      const next = await expectAlike(['snapshot', '--label', 'after the edit', ...flags], at, twin);
      expect(next.stdout).toMatch(/\+1 ~1 -0|"label": "after the edit"/);
      await expectAlike(['snapshot', ...flags], at, twin);
      // Both stores hold the same snapshots.
      expect(await runCli(['list', '--json'], at)).toMatchObject({ code: 0 });
      const listed = async (p: Place) =>
        (
          JSON.parse((await runCli(['list', '--json'], p)).stdout) as {
            snapshots: Array<{ label?: string; trigger: string }>;
          }
        ).snapshots.map(({ label, trigger }) => ({ label, trigger }));
      expect(await listed(at)).toEqual(await listed(twin));
    },
  );

  it('snapshot: its flags, its errors, and the command lines it leaves to the parser', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const at = place(root);
    const twin = { cwd: root, env: { ...at.env, CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } };
    const parent = { ...at, cwd: path.dirname(root) };
    const parentTwin = { ...twin, cwd: path.dirname(root) };
    let round = 0;
    for (const args of [
      ['snapshot', '--label', 'a note', '--trigger', 'pre-compact'],
      ['snapshot', '--label=', '--json'],
      ['snapshot', `--trigger=${'t'.repeat(40)}`, '--label', 'twice', '--label', 'last wins'],
      ['snapshot', '--label', 'x'.repeat(201)],
      ['snapshot', '--label', '-x'],
      ['snapshot', '--label'],
      ['snapshot', 'extra'],
      ['snapshot', '--lable', 'typo'],
      ['snapshot', '--help'],
      ['--root', root, 'snapshot'],
      ['help', 'snapshot'],
    ]) {
      // Each round something to take, so that each answer says what it took.
      writeFileSync(path.join(root, 'a.txt'), `round ${round++}\n`);
      await expectAlike(args, at, twin);
    }
    for (const args of [
      ['snapshot', '--root', path.basename(root)],
      ['snapshot', `--root=${path.basename(root)}`, '--json'],
      ['snapshot', '--root', 'nowhere'],
      ['snapshot', '--root', ''],
    ]) {
      writeFileSync(path.join(root, 'a.txt'), `round ${round++}\n`);
      await expectAlike(args, parent, parentTwin);
    }
    expect(ranShort(parent, 'snapshot', SNAPSHOT_BUILD)).toBe(true);
  });

  it('snapshot --label with a secret: redacted on the short path as by the whole CLI, never stored', async () => {
    const token = `ghp_${'Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q'}`;
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const at = place(root);
    const twin = { cwd: root, env: { ...at.env, CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } };
    const taken = await expectAlike(['snapshot', '--label', `deploy with ${token}`, '--json'], at, twin);
    expect(ranShort(at, 'snapshot', SNAPSHOT_BUILD)).toBe(true);
    expect(taken.stdout).not.toContain(token);
    expect(JSON.parse(taken.stdout).snapshot.label).toMatch(/^deploy with .*redacted/);
    const listed = await runCli(['list', '--json'], at);
    expect(listed.stdout).not.toContain(token);
    expect(listed.stdout).toContain('redacted');
  });

  it('the one difference: a listed file whose name is a token counts as changed on the short path, which holds no detector', async () => {
    // core/path-redaction.ts: the whole CLI tells that file by redacting each changed name as the save
    // did; the short path cannot, and shows it as changed rather than hide any other change.
    const token = `ghp_${'Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q'}`;
    const root = createRepo({ committed: { 'README.md': 'v1\n' }, dirty: { [token]: 's\n' } });
    const at = place(root);
    const saving = await runCli(['save', '--stdin'], {
      ...at,
      input: JSON.stringify({ goal: 'Keys', modifiedFiles: [{ path: token, note: 'n' }] }),
    });
    expect(saving.code, saving.stderr).toBe(0);
    writeFileSync(path.join(root, 'README.md'), 'v2\n');
    const short = JSON.parse((await runCli(['status', '--json'], at)).stdout);
    const whole = JSON.parse((await runNodeScript(WHOLE_CLI, ['status', '--json'], at)).stdout);
    expect(ranShort(at, 'status')).toBe(true);
    expect(whole.checkpoint.drift.changedSince).toEqual(['README.md']);
    expect(short.checkpoint.drift.changedSince).toEqual(['README.md', token]);
  });

  it('a user settings file with an unknown key: the same warning, once', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const at = await saved(root);
    const config = path.join(at.env.HOME as string, '.config', 'claude-checkpoint');
    mkdirSync(config, { recursive: true });
    writeFileSync(path.join(config, 'config.json'), '{ "snapshotKeepp": 3 }\n');
    for (const command of ['status', 'list']) {
      const result = await runCli([command], at);
      expect(result.stderr).toContain('warning');
      await expectAlike([command], at);
    }
  });
});
