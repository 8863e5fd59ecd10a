import { chmodSync, statSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

function project() {
  const root = createRepo({ committed: { 'run.sh': '#!/bin/sh\necho hi\n', 'both.sh': 'a\n' } });
  const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
  const cli = async (...args: string[]) => {
    const run = await runCli([...args, '--root', root], { cwd: root, env });
    expect(run.code, run.stderr).toBe(0);
    return run.stdout;
  };
  return { root, cli };
}

// Helper task (issue 26): `chmod +x` showed as "M run.sh (+0 -0)" in diff and as a bare "run.sh" to
// overwrite in the restore plan: nothing said what changed. Say the mode change, as git does.
describe('a change of mode only (chmod +x)', () => {
  it('diff and the restore plan say it, in text and in JSON', async () => {
    const { root, cli } = project();
    const id = JSON.parse(await cli('snapshot', '--json')).snapshot.id as string;
    chmodSync(path.join(root, 'run.sh'), 0o755);
    chmodSync(path.join(root, 'both.sh'), 0o755);
    writeTree(root, { 'both.sh': 'a\nb\n' });

    const text = await cli('diff', id);
    expect(text).toContain('M run.sh (mode 100644 -> 100755)');
    expect(text).toContain('M both.sh (+1 -0, mode 100644 -> 100755)');
    const files = JSON.parse(await cli('diff', id, '--json')).files;
    expect(files).toContainEqual({
      path: 'run.sh',
      status: 'M',
      added: 0,
      deleted: 0,
      oldMode: '100644',
      newMode: '100755',
    });

    const plan = await cli('restore', id, '--dry-run');
    expect(plan).toContain('  run.sh (mode 100755 -> 100644)');
    const json = JSON.parse(await cli('restore', id, '--dry-run', '--json')).plan;
    expect(json.overwrite).toEqual(['both.sh', 'run.sh']);
    expect(json.modes).toEqual([
      { path: 'both.sh', oldMode: '100755', newMode: '100644' },
      { path: 'run.sh', oldMode: '100755', newMode: '100644' },
    ]);
    await cli('restore', id, '--yes');
    expect(statSync(path.join(root, 'run.sh')).mode & 0o111).toBe(0);
  }, 60_000);
});
