import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, runNodeScript } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The package's own layout: the files `npm pack` ships, its dependencies beside them, and the bin as npm
 * installs it, a link to the file package.json names.
 */
function installPackage(): { pkg: string; bin: string } {
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: REPO,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  ) as Array<{ files: Array<{ path: string }> }>;
  const pkg = path.join(tempDir('package-'), 'claude-checkpoint-mcp');
  for (const { path: file } of packed?.files ?? []) {
    mkdirSync(path.dirname(path.join(pkg, file)), { recursive: true });
    copyFileSync(path.join(REPO, file), path.join(pkg, file));
  }
  symlinkSync(path.join(REPO, 'node_modules'), path.join(pkg, 'node_modules'));
  const { bin } = JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8'));
  const link = path.join(tempDir('bin-'), 'claude-checkpoint');
  symlinkSync(path.join(pkg, bin['claude-checkpoint']), link);
  return { pkg, bin: link };
}

async function project() {
  const root = createRepo({ committed: { 'a.txt': 'one\n' } });
  const store = tempDir('checkpoint-store-');
  const env = { CHECKPOINT_STORE_DIR: store };
  expect((await runCli(['snapshot', '--label', 'first'], { cwd: root, env })).code).toBe(0);
  return { root, store, env, cacheDir: path.join(store, 'cache') };
}

const cliCaches = (dir: string, command: string) =>
  existsSync(dir) ? readdirSync(dir).filter((name) => name.startsWith(`cli-${command}-`)) : [];

// Issue 26: the npm bin (dist/cli.cjs) runs the CLI's CommonJS bundle through V8's code cache, as the
// hooks do (store/code-cache.ts), and the plain modules when the bundle is missing.
describe('the CLI as the npm package installs it', () => {
  let installed: { pkg: string; bin: string };
  beforeAll(() => {
    installed = installPackage();
  }, 60_000);

  it('runs through npm’s link, writing a private code cache per command that the next run reads', async () => {
    const { root, env, cacheDir } = await project();
    const list = await runNodeScript(installed.bin, ['list'], { cwd: root, env });
    expect(list).toMatchObject({ code: 0, stderr: '' });
    expect(list.stdout).toContain('1 snapshot(s)');
    expect(list.stdout).toContain('— first');
    const [cache] = cliCaches(cacheDir, 'list');
    expect(cache).toMatch(/^cli-list-v\d+\.\d+\.\d+-\w+-[0-9a-f]{16}\.v8$/);
    const file = path.join(cacheDir, cache as string);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    const written = readFileSync(file);

    // The loader's start (dist/cli-start.cjs) keeps one too, per command.
    const [startCache] = cliCaches(cacheDir, 'startlist');
    expect(startCache).toMatch(/^cli-startlist-v\d+\.\d+\.\d+-\w+-[0-9a-f]{16}\.v8$/);
    const startWritten = readFileSync(path.join(cacheDir, startCache as string));

    // A cache V8 accepts is read, not written again; the output is the same.
    expect(await runNodeScript(installed.bin, ['list'], { cwd: root, env })).toEqual(list);
    expect(readFileSync(file).equals(written)).toBe(true);
    expect(readFileSync(path.join(cacheDir, startCache as string)).equals(startWritten)).toBe(true);
    // Another command keeps its own; a failed command writes none.
    expect((await runNodeScript(installed.bin, ['status'], { cwd: root, env })).code).toBe(0);
    expect(cliCaches(cacheDir, 'status')).toHaveLength(1);
    expect((await runNodeScript(installed.bin, ['frobnicate'], { cwd: root, env })).code).toBe(2);
    expect(cliCaches(cacheDir, 'frobnicate')).toEqual([]);
  });

  it('answers as the plain modules do, and runs them when its bundle is missing', async () => {
    const { root, env } = await project();
    const bundle = path.join(installed.pkg, 'dist', 'cli-main.cjs');
    const plain = path.join(installed.pkg, 'dist', 'cli.js');
    // A snapshot with nothing changed since the first: the same answer each time.
    const cases = [
      ['--help'],
      ['list', '--json'],
      ['status', '--json'],
      ['snapshot', '--json'],
      ['frobnicate'],
    ];
    const bundled = [];
    for (const args of cases) bundled.push(await runNodeScript(installed.bin, args, { cwd: root, env }));
    for (const [index, args] of cases.entries())
      expect(await runNodeScript(plain, args, { cwd: root, env })).toEqual(bundled[index]);

    // Without the short paths' bundles (status and list, snapshot), the whole CLI's runs them; without that
    // too, the plain modules; and so without the loader's start.
    const short = path.join(installed.pkg, 'dist', 'cli-fast.cjs');
    const shortSnapshot = path.join(installed.pkg, 'dist', 'cli-snapshot.cjs');
    const start = path.join(installed.pkg, 'dist', 'cli-start.cjs');
    const kept = readFileSync(bundle);
    rmSync(short);
    rmSync(shortSnapshot);
    try {
      for (const [index, args] of cases.entries())
        expect(await runNodeScript(installed.bin, args, { cwd: root, env })).toEqual(bundled[index]);
      rmSync(bundle);
      for (const [index, args] of cases.entries())
        expect(await runNodeScript(installed.bin, args, { cwd: root, env })).toEqual(bundled[index]);
      copyFileSync(path.join(REPO, 'dist', 'cli-main.cjs'), bundle);
      rmSync(start);
      for (const [index, args] of cases.entries())
        expect(await runNodeScript(installed.bin, args, { cwd: root, env })).toEqual(bundled[index]);
    } finally {
      copyFileSync(path.join(REPO, 'dist', 'cli-main.cjs'), bundle);
      copyFileSync(path.join(REPO, 'dist', 'cli-fast.cjs'), short);
      copyFileSync(path.join(REPO, 'dist', 'cli-snapshot.cjs'), shortSnapshot);
      copyFileSync(path.join(REPO, 'dist', 'cli-start.cjs'), start);
    }
    expect(readFileSync(bundle).equals(kept)).toBe(true);
  });

  it('setup through npm’s link points the agent at the package’s own server and hook entry', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: tempDir('home-') };
    const result = await runNodeScript(installed.bin, ['setup', 'gemini', '--dry-run'], { cwd: root, env });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(path.join(installed.pkg, 'dist', 'index.js'));
    expect(result.stdout).toContain(path.join(installed.pkg, 'plugin', 'dist', 'hook.cjs'));
    expect(result.stdout).not.toContain(path.dirname(installed.bin));
  });

  it('writes no cache with CHECKPOINT_HOOK_CODE_CACHE=0', async () => {
    const { root, env, cacheDir } = await project();
    const result = await runNodeScript(installed.bin, ['list'], {
      cwd: root,
      env: { ...env, CHECKPOINT_HOOK_CODE_CACHE: '0' },
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(cliCaches(cacheDir, 'list')).toEqual([]);
  });

  // The loader tells the cache's place from the environment alone (store/hook-settings.ts) unless the
  // user's settings file sets it: then the settings registry decides, as for every other setting.
  it('puts the cache where the user’s settings file says, or nowhere when it turns the cache off', async () => {
    const { root, store, env } = await project();
    const configDir = tempDir('checkpoint-config-');
    const settings = (json: object) =>
      writeFileSync(path.join(configDir, 'config.json'), JSON.stringify(json));
    // The store named by the file only: the project's snapshots are there too.
    const { CHECKPOINT_STORE_DIR: _unset, ...withoutStore } = env;
    settings({ storeDir: store });
    for (const command of ['status', 'list']) {
      const result = await runNodeScript(installed.bin, [command], {
        cwd: root,
        env: { ...withoutStore, CHECKPOINT_CONFIG_DIR: configDir },
      });
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(cliCaches(path.join(store, 'cache'), command)).toHaveLength(1);
    }
    const other = tempDir('checkpoint-store-');
    settings({ storeDir: other, hookCodeCache: false });
    const off = await runNodeScript(installed.bin, ['list'], {
      cwd: root,
      env: { ...withoutStore, CHECKPOINT_CONFIG_DIR: configDir },
    });
    expect(off).toMatchObject({ code: 0, stderr: '' });
    expect(existsSync(path.join(other, 'cache'))).toBe(false);
  });
});
