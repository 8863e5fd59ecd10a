import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { quotePath } from '../../src/core/quote.js';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

/** Names git quotes although they are valid UTF-8. */
const QUOTED_NAMES = [
  'tab\there.txt',
  'new\nline.txt',
  'quo"te.txt',
  'back\\slash.txt',
  'esc\u001b.txt',
  'del\u007f.txt',
  'rtl\u202e.txt',
  'zw\u200b.txt',
];

function project(names: readonly string[]) {
  const root = createRepo({ committed: Object.fromEntries(names.map((name) => [name, 'one\n'])) });
  const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
  const cli = (...args: string[]) => runCli(args, { cwd: root, env });
  return { root, cli };
}

// Adversarial trial (issue 26): `diff` printed `"tab\there.txt"`, and `diff latest '"tab\there.txt"'`
// answered "in neither snapshot … nor the working tree".
describe('every name in the quoted form diff and restore print is taken back', () => {
  it.each(QUOTED_NAMES)('%j', async (name) => {
    const { root, cli } = project([name]);
    expect((await cli('snapshot')).code).toBe(0);
    writeFileSync(path.join(root, name), 'two\n');
    const listed = await cli('diff', 'latest');
    const quoted = quotePath(name);
    expect(quoted.startsWith('"')).toBe(true);
    expect(listed.stdout).toContain(`M ${quoted} (+1 -1)`);

    const diff = await cli('diff', 'latest', quoted);
    expect(diff.stderr).toBe('');
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain('+two');

    const restore = await cli('restore', 'latest', quoted, '--yes');
    expect(restore.stderr).toBe('');
    expect(restore.code).toBe(0);
    expect(readFileSync(path.join(root, name), 'utf8')).toBe('one\n');
  });

  it('a name that really is written in double quotes, and exists so, is that name', async () => {
    const literal = '"tab\\there.txt"';
    const { root, cli } = project([literal, 'tab\there.txt']);
    expect((await cli('snapshot')).code).toBe(0);
    writeFileSync(path.join(root, literal), 'literal\n');
    const diff = await cli('diff', 'latest', literal, '--json');
    expect(diff.code).toBe(0);
    expect(JSON.parse(diff.stdout).files.map((file: { path: string }) => file.path)).toEqual([literal]);
  });

  it('a name that is not valid UTF-8, given raw on the command line, is pointed to its quoted form', async () => {
    const { cli } = project(['a.txt']);
    expect((await cli('snapshot')).code).toBe(0);
    // What Node makes of `caf\xe9.txt` on argv: the byte it cannot decode becomes U+FFFD.
    const result = await cli('diff', 'latest', 'caf\ufffd.txt');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is in neither snapshot');
    expect(result.stderr).toContain('as `diff` and `diff --json` quote it');
  });
});
