import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { listSnapshots, restoreSnapshot, takeSnapshot } from '../../src/app/rewind.js';
import { saveCheckpoint } from '../../src/app/save.js';
import { parseCheckpoint } from '../../src/core/schema.js';
import { CheckpointStore } from '../../src/store/checkpoint-store.js';
import { assertBuilt } from '../helpers/cli.js';
import { createRepo, tempDir, workerStateHome } from '../helpers/fixtures.js';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const WORKER = fileURLToPath(new URL('../helpers/save-worker.mjs', import.meta.url));
// CI runs the bounded default (with crash-paths.test.ts, about 200 kills); CRASH_RUNS=2000 npm test soaks.
const RUNS = Math.floor(Number(process.env.CRASH_RUNS ?? 120) / 2);

beforeAll(assertBuilt);

/** Starts a worker and SIGKILLs it after a random moment inside its busy loop. */
function killMidway(args: string[], random: () => number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WORKER, DIST, ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
    child.on('error', reject);
    child.on('close', () => resolve());
    // Wait for the first completed save, so the kill lands among writes rather than during start-up.
    child.stdout?.once('data', () => setTimeout(() => child.kill('SIGKILL'), Math.floor(random() * 25)));
    setTimeout(() => child.kill('SIGKILL'), 5_000);
  });
}

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 2246822507) + 0x9e3779b9) >>> 0;
    return state / 4294967296;
  };
}

describe('crashes (SIGKILL at random moments)', () => {
  it(`leaves the old or the new checkpoint, never a corrupt one, and a valid .prev (${RUNS} kills)`, async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const deps = defaultDeps({ env: { XDG_STATE_HOME: workerStateHome() } });
    await saveCheckpoint(deps, { goal: 'initial', projectRoot: root });
    const random = seeded(1234);
    const store = new CheckpointStore(root);
    for (let run = 0; run < RUNS; run++) {
      await killMidway([root, 'replace-goals', `run${run}`, '100000'], random);
      const main = readFileSync(store.paths.main, 'utf8');
      const checkpoint = parseCheckpoint(main);
      expect(checkpoint.goal.primary).toMatch(/^(initial|run\d+ \d+)$/);
      if (existsSync(store.paths.backup)) parseCheckpoint(readFileSync(store.paths.backup, 'utf8'));
      const loaded = await store.load();
      expect(loaded).toMatchObject({ found: true, fromBackup: false });
    }
    // The next save cleans up what the kills left behind.
    await saveCheckpoint(deps, { goal: 'after the storm', projectRoot: root });
    expect(readdirSync(root).filter((name) => name.includes('.tmp-'))).toEqual([]);
  }, 600_000);

  it('a killed snapshot leaves a store the next call uses or repairs', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const storeDir = tempDir('checkpoint-store-');
    const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: storeDir } });
    await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
    const random = seeded(99);
    for (let run = 0; run < Math.max(10, Math.floor(RUNS / 8)); run++) {
      await new Promise<void>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [WORKER, DIST, root, 'snapshots', `k${run}`, '1000', storeDir],
          { stdio: 'ignore' },
        );
        child.on('error', reject);
        child.on('close', () => resolve());
        setTimeout(() => child.kill('SIGKILL'), 60 + Math.floor(random() * 200));
      });
      const next = await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
      const { snapshots } = await listSnapshots(deps, { projectRoot: root });
      expect(snapshots[0]?.id).toBe(next.snapshot.id);
      const plan = await restoreSnapshot(deps, {
        projectRoot: root,
        snapshotId: snapshots.at(-1)?.id ?? 'latest',
        dryRun: true,
      });
      expect(plan.dryRun).toBe(true);
    }
  }, 600_000);
});
