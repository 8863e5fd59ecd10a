import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli, runNodeScript } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import { recordedCommands, shownCheckpoint } from '../helpers/relay.js';

// The committed plugin bundle, as Claude Code runs it: hook.cjs loads hook-main.cjs through V8's code cache.
const PLUGIN_DIST = fileURLToPath(new URL('../../plugin/dist/', import.meta.url));
const HOOK_CJS = path.join(PLUGIN_DIST, 'hook.cjs');
const HOOK_MJS = path.join(PLUGIN_DIST, 'hook.mjs');

// What every read shows: a Bash hook on its own leaves its command in the journal for the lock's next holder.
const commands = recordedCommands;

function bash(entry: string, root: string, env: Record<string, string>, command: string) {
  return runNodeScript(entry, ['PostToolUse'], {
    cwd: root,
    env,
    input: JSON.stringify({ cwd: root, tool_name: 'Bash', tool_input: { command }, tool_response: {} }),
  });
}

async function project() {
  const root = createRepo({ committed: { 'a.ts': 'a' } });
  const store = tempDir('checkpoint-store-');
  const env = { CHECKPOINT_STORE_DIR: store };
  await runCli(['save', '--goal', 'Plugin hooks'], { cwd: root, env });
  return { root, store, env, cacheDir: path.join(store, 'cache') };
}

const cacheFiles = (dir: string, event: string) =>
  existsSync(dir) ? readdirSync(dir).filter((name) => name.startsWith(`hook-${event}-`)) : [];
/** What is in the cache folder besides the CLI's own caches (the set-up runs the CLI). */
const notCli = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir).filter((name) => !/^cli-\w+-v[^.]*\.[^.]*\.[^.]*-\w+-[0-9a-f]+\.v8$/.test(name))
    : [];

describe('the plugin hook entry (hook.cjs)', () => {
  it('runs the hook and keeps a private code cache per event in the store, which the next run reads', async () => {
    const { root, env, cacheDir } = await project();
    expect(await bash(HOOK_CJS, root, env, 'make first')).toMatchObject({ code: 0, stderr: '' });
    const [cache] = cacheFiles(cacheDir, 'PostToolUse');
    expect(cache).toMatch(/^hook-PostToolUse-v\d+\.\d+\.\d+-\w+-[0-9a-f]{16}\.v8$/);
    const file = path.join(cacheDir, cache as string);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    const written = readFileSync(file);
    expect(written.length).toBeGreaterThan(10_000);

    // A cache V8 accepts is read, not written again.
    expect(await bash(HOOK_CJS, root, env, 'make second')).toMatchObject({ code: 0, stderr: '' });
    expect(readFileSync(file).equals(written)).toBe(true);
    expect(commands(root)).toEqual(['make first', 'make second']);

    // Another event keeps a cache of its own.
    const start = await runNodeScript(HOOK_CJS, ['SessionStart'], {
      cwd: root,
      env,
      input: JSON.stringify({ cwd: root, source: 'clear' }),
    });
    expect(JSON.parse(start.stdout).hookSpecificOutput.additionalContext).toContain('## Goal\nPlugin hooks');
    expect(cacheFiles(cacheDir, 'SessionStart')).toHaveLength(1);
  });

  it('a damaged cache only costs speed: V8 rejects it, the hook works, and a good cache replaces it', async () => {
    const { root, env, cacheDir } = await project();
    await bash(HOOK_CJS, root, env, 'make warm');
    const file = path.join(cacheDir, cacheFiles(cacheDir, 'PostToolUse')[0] as string);
    const garbage = Buffer.alloc(50_000, 0x5a);
    writeFileSync(file, garbage);
    expect(await bash(HOOK_CJS, root, env, 'make after-damage')).toMatchObject({ code: 0, stderr: '' });
    expect(commands(root)).toContain('make after-damage');
    expect(readFileSync(file).equals(garbage)).toBe(false);
  });

  it('never follows a symlink planted where the cache goes', async () => {
    const { root, env, cacheDir } = await project();
    await bash(HOOK_CJS, root, env, 'make warm');
    const file = path.join(cacheDir, cacheFiles(cacheDir, 'PostToolUse')[0] as string);
    const target = path.join(tempDir('elsewhere-'), 'precious.txt');
    writeFileSync(target, 'precious');
    rmSync(file);
    symlinkSync(target, file);
    expect(await bash(HOOK_CJS, root, env, 'make with-link')).toMatchObject({ code: 0, stderr: '' });
    expect(readFileSync(target, 'utf8')).toBe('precious');
    expect(commands(root)).toContain('make with-link');
    // The link itself was replaced by a plain cache file, never written through.
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
  });

  it('drops caches of other versions not read for a week when it writes a new one, and keeps recent ones', async () => {
    const { root, env, cacheDir } = await project();
    mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    const stale = path.join(cacheDir, 'hook-PostToolUse-v0.0.0-x64-1-1.v8');
    const recent = path.join(cacheDir, 'hook-PostToolUse-v0.0.1-x64-1-1.v8');
    const unrelated = path.join(cacheDir, 'notes.txt');
    for (const file of [stale, recent, unrelated]) writeFileSync(file, 'x');
    const weekAgo = new Date(Date.now() - 8 * 24 * 3_600_000);
    utimesSync(stale, weekAgo, weekAgo);
    utimesSync(unrelated, weekAgo, weekAgo);
    expect(await bash(HOOK_CJS, root, env, 'make fresh')).toMatchObject({ code: 0, stderr: '' });
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(recent)).toBe(true);
    expect(existsSync(unrelated)).toBe(true);
    expect(cacheFiles(cacheDir, 'PostToolUse')).toHaveLength(2);
  });

  it('writes no cache with CHECKPOINT_HOOK_CODE_CACHE=0', async () => {
    const { root, env, cacheDir } = await project();
    const result = await bash(HOOK_CJS, root, { ...env, CHECKPOINT_HOOK_CODE_CACHE: '0' }, 'make plain');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(notCli(cacheDir)).toEqual([]);
    expect(commands(root)).toContain('make plain');
  });

  it('20 hook processes at once on a cold cache: every command recorded, one cache per bundle left, no temp files', async () => {
    const { root, env, cacheDir } = await project();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => bash(HOOK_CJS, root, env, `make step-${i}`)),
    );
    expect(results.every((result) => result.code === 0 && result.stderr === '')).toBe(true);
    expect(commands(root).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `make step-${i}`).sort());
    // One for the bundle, one for the hooks' front that ran it.
    const fronts = readdirSync(cacheDir).filter((name) => name.startsWith('front-PostToolUse-'));
    expect(notCli(cacheDir).sort()).toEqual([...cacheFiles(cacheDir, 'PostToolUse'), ...fronts].sort());
    expect(cacheFiles(cacheDir, 'PostToolUse')).toHaveLength(1);
    expect(fronts).toHaveLength(1);
  });

  it('hook.mjs, which hook commands of earlier versions name, still runs the hooks', async () => {
    const { root, env } = await project();
    expect(await bash(HOOK_MJS, root, env, 'make via-mjs')).toMatchObject({ code: 0, stderr: '' });
    expect(commands(root)).toContain('make via-mjs');
  });

  it('as the npm package ships it (no CLI in plugin/dist): the background gc runs the package CLI', async () => {
    // The package's layout: plugin/dist/ holds only the hook bundle; the CLI is dist/cli.js.
    const pkg = tempDir('package-');
    mkdirSync(path.join(pkg, 'plugin', 'dist'), { recursive: true });
    for (const file of ['hook.cjs', 'hook-front.cjs', 'hook-gate.cjs', 'hook-main.cjs'])
      copyFileSync(path.join(PLUGIN_DIST, file), path.join(pkg, 'plugin', 'dist', file));
    symlinkSync(path.resolve(PLUGIN_DIST, '..', '..', 'dist'), path.join(pkg, 'dist'));
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const store = tempDir('checkpoint-store-');
    const env = { CHECKPOINT_STORE_DIR: store, CHECKPOINT_DETACH_AFTER_HOURS: '0' };
    const prompt = await runNodeScript(path.join(pkg, 'plugin', 'dist', 'hook.cjs'), ['UserPromptSubmit'], {
      cwd: root,
      env,
      input: JSON.stringify({ cwd: root, prompt: 'first' }),
    });
    expect(prompt).toMatchObject({ code: 0, stderr: '' });
    // The gc makes the store self-contained: it stops borrowing the project's objects.
    const [project] = readdirSync(path.join(store, 'projects'));
    const alternates = path.join(
      store,
      'projects',
      project as string,
      'git',
      'objects',
      'info',
      'alternates',
    );
    const deadline = Date.now() + 20_000;
    while (existsSync(alternates) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(existsSync(alternates)).toBe(false);
    // A gc of our own waits for the store's lock, which the background gc holds until it is done: the
    // test's folders are then removed with nothing writing in them (ENOTEMPTY once).
    expect(await runCli(['gc', '--root', root], { cwd: root, env })).toMatchObject({ code: 0 });
  });

  it('with /dev/null for input: no wait for input, nothing recorded, exit 0', async () => {
    const { root, env } = await project();
    const result = spawnSync(process.execPath, [HOOK_CJS, 'PostToolUse'], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('');
    expect(shownCheckpoint(root).recentCommands).toEqual([]);
  });
});

// Issue 26: Claude Code's PowerShell tool (on by default on Windows without Git Bash) sends its calls to
// hooks whose matcher names it; with `Bash` alone its commands went unseen. A matcher of letters, digits,
// `_` and `|` is a list of exact tool names (Claude Code's hooks reference), so each name is checked.
describe("the shell hooks' matchers: Claude Code's Bash and PowerShell tools", () => {
  const SHELL_EVENTS = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure'];
  type Groups = Record<string, { matcher?: string }[]>;
  const matchersOf = (hooks: Groups) =>
    Object.fromEntries(SHELL_EVENTS.map((event) => [event, hooks[event]?.map((group) => group.matcher)]));
  const expected = Object.fromEntries(SHELL_EVENTS.map((event) => [event, ['Bash|PowerShell']]));

  it("in the plugin's hooks.json", () => {
    const plugin = JSON.parse(readFileSync(path.join(PLUGIN_DIST, '..', 'hooks', 'hooks.json'), 'utf8'));
    expect(matchersOf(plugin.hooks)).toEqual(expected);
  });

  it('in the manual set-up of docs/agents/claude-code.md', () => {
    const page = readFileSync(
      fileURLToPath(new URL('../../docs/agents/claude-code.md', import.meta.url)),
      'utf8',
    );
    const snippet = [...page.matchAll(/```json\n([\s\S]*?)```/g)]
      .map((match) => JSON.parse(match[1] ?? '') as { hooks?: Groups })
      .find((json) => json.hooks?.PreToolUse !== undefined);
    expect(matchersOf(snippet?.hooks ?? {})).toEqual(expected);
  });
});
