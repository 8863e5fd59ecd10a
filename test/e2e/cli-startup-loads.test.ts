import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

// Issue 26: `--help`, `list` and `status` start in about the time of `node -e 0` (the bench row
// "CLI start-up" measures it). What keeps them there is what they do not load: every other command's
// code, and the libraries only other commands use. The built CLI runs with a loader hook that writes
// down each module it loads.
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.LOADED_LOG, url + '\\n');
  return next(url, context);
}`;

function loaderFiles(): { register: string; log: string } {
  const dir = tempDir('cli-loads-');
  const hooks = path.join(dir, 'hooks.mjs');
  const register = path.join(dir, 'register.mjs');
  writeFileSync(hooks, HOOKS);
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  return { register, log: path.join(dir, 'loaded.log') };
}

/** The packages and our own modules (relative to dist/) a command loaded. */
async function loadedBy(args: string[], root: string, storeDir: string): Promise<string[]> {
  const { register, log } = loaderFiles();
  writeFileSync(log, '');
  const result = await runCli(args, {
    cwd: root,
    env: {
      CHECKPOINT_STORE_DIR: storeDir,
      LOADED_LOG: log,
      NODE_OPTIONS: `--import=${pathToFileURL(register).href}`,
    },
  });
  expect(result.code, result.stderr).toBe(0);
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:'))
    .map((url) => {
      const file = url.replace(/^file:\/\//, '');
      const inPackage = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
      return inPackage ? `package ${inPackage[1]}` : file.replace(/^.*\/dist\//, '');
    })
    .filter((name) => !name.endsWith('register.mjs') && !name.endsWith('hooks.mjs'));
}

describe('what the CLI loads to start', () => {
  const project = async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n', 'src/b.ts': 'export {};\n' } });
    const storeDir = tempDir('checkpoint-store-');
    const env = { CHECKPOINT_STORE_DIR: storeDir };
    for (const args of [['save', '--goal', 'Ship it', '--task', 'in_progress:start'], ['snapshot']])
      expect((await runCli(args, { cwd: root, env })).code).toBe(0);
    writeFileSync(path.join(root, 'a.txt'), 'two\n');
    return { root, storeDir };
  };
  const others = ['package zod', 'package jsonc-parser', 'package smol-toml', 'package @inquirer/core'];

  it.each([['--help'], ['list'], ['status']])(
    '%s loads no zod, no setup or picker libraries',
    async (command) => {
      const { root, storeDir } = await project();
      const loaded = await loadedBy([command], root, storeDir);
      expect(loaded).toContain('cli/main.js');
      for (const name of others) expect(loaded).not.toContain(name);
      // The secret detector (a snapshot's label, a save), the doctor's checks and setup belong to other commands.
      expect(loaded.filter((name) => name.startsWith('core/secrets/'))).toEqual([]);
      expect(loaded).not.toContain('app/status.js');
      expect(loaded).not.toContain('hooks/relay-protocol.js');
      expect(loaded).not.toContain('app/setup.js');
    },
  );

  it('--help loads none of the use cases, the store or git', async () => {
    const { root, storeDir } = await project();
    const loaded = await loadedBy(['--help'], root, storeDir);
    expect(loaded.filter((name) => /^(app|store|git|hooks)\//.test(name)).sort()).toEqual([
      'app/deps.js',
      'app/setup-agents.js',
      'app/views.js',
      'hooks/agent-names.js',
      'store/fs-seam.js',
      'store/lock-owner.js',
      'store/lock.js',
      'store/temp-name.js',
    ]);
  });
});
