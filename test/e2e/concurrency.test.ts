import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { listSnapshots, takeSnapshot } from '../../src/app/rewind.js';
import { assertBuilt } from '../helpers/cli.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const WORKER = fileURLToPath(new URL('../helpers/save-worker.mjs', import.meta.url));

beforeAll(assertBuilt);

function run(args: string[]): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WORKER, DIST, ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('close', resolve);
  });
}

describe('several processes on one project', () => {
  it('4 processes × 50 merge saves at once: all 200 updates are in a valid file', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const codes = await Promise.all(
      ['p0', 'p1', 'p2', 'p3'].map((name) => run([root, 'merge-files', name, '50'])),
    );
    expect(codes).toEqual([0, 0, 0, 0]);
    const checkpoint = JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8'));
    const paths = new Set(checkpoint.modifiedFiles.map((file: { path: string }) => file.path));
    for (const name of ['p0', 'p1', 'p2', 'p3']) {
      for (let i = 0; i < 50; i++) expect(paths.has(`${name}-${i}.txt`), `${name}-${i}`).toBe(true);
    }
    expect(checkpoint.meta.truncated).toBe(false);
  }, 60_000);

  it('concurrent snapshots do not corrupt the store', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } });
    const rounds = Array.from({ length: 6 }, (_, i) => i);
    await Promise.all(
      rounds.map(async (i) => {
        writeTree(root, { [`f${i}.ts`]: `content ${i}` });
        return takeSnapshot(deps, { projectRoot: root, trigger: 'prompt' });
      }),
    );
    const { snapshots } = await listSnapshots(deps, { projectRoot: root });
    expect(snapshots.length).toBeGreaterThan(0);
    const final = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    expect(final.created).toBe(false);
  }, 60_000);
});
