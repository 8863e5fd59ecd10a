import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { restoreSnapshot, takeSnapshot } from '../../src/app/rewind.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

describe('restoring large files', () => {
  it('writes a file of several MB back byte for byte, with its mode, beside small ones (issue 26)', async () => {
    const root = createRepo({ committed: { 'small.txt': 'small\n' } });
    const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } });
    const big = randomBytes(6 * 1024 * 1024);
    writeFileSync(path.join(root, 'big.bin'), big);
    chmodSync(path.join(root, 'big.bin'), 0o755);
    const snap = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    writeFileSync(path.join(root, 'big.bin'), randomBytes(5 * 1024 * 1024));
    chmodSync(path.join(root, 'big.bin'), 0o644);
    writeFileSync(path.join(root, 'small.txt'), 'changed\n');
    const done = await restoreSnapshot(deps, {
      projectRoot: root,
      snapshotId: snap.snapshot.id,
      dryRun: false,
    });
    expect(done.plan.overwrite.sort()).toEqual(['big.bin', 'small.txt']);
    expect(readFileSync(path.join(root, 'big.bin')).equals(big)).toBe(true);
    expect(statSync(path.join(root, 'big.bin')).mode & 0o111).not.toBe(0);
    expect(readFileSync(path.join(root, 'small.txt'), 'utf8')).toBe('small\n');
  });
});
