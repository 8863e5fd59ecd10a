// Scale rows of the benchmark (issue 28): long histories (100 against 10,000 snapshots), the first
// snapshot of a folder without git, and restoring one 25 MB file (issue 26).
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const now = () => performance.now();
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** Free bytes on the file system that holds `dir`. */
export function freeBytes(dir) {
  const stats = statfsSync(dir);
  return Number(stats.bavail) * Number(stats.bsize);
}

function runProcess(command, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], ...options });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`)),
    );
  });
}

async function timeMs(task) {
  const start = now();
  await task();
  return now() - start;
}

/**
 * `list`, `rewind --list`, `diff` and `gc` as CLI processes on a store of 100 snapshots and on one of
 * 10,000, interleaved; each row is the ratio of the two (target < 2). The snapshots are a session's
 * prompts over 20 distinct trees taken for real, then recorded again through the store's own record()
 * (its commit and ref, as every prompt writes them) up to the count.
 *
 * A real store of that length was packed as it grew: every snapshot's outcome says when a gc is due
 * (packDue, after PACK_AFTER_SNAPSHOTS snapshots since the last one) and the hooks then start
 * `gc --if-due` in the background. The recording does the same through the product's code: it counts
 * each snapshot as snapshotLocked does, and when one says a gc is due, runs that gc. Without it the
 * 10,000 commits all stay loose, which no real store reaches, and a listing times reading them.
 */
export async function benchLongHistory({ dist, cli, root, cacheDir, repeats, log, counts = [100, 10_000] }) {
  const { defaultDeps } = await import(dist('app/deps.js'));
  const { gcSnapshots, takeSnapshot } = await import(dist('app/rewind.js'));
  const { SnapshotStore } = await import(dist('store/snapshot-store.js'));
  const { projectStoreDir } = await import(dist('store/store-location.js'));
  const { isPackDue } = await import(dist('store/store-usage.js'));
  const { formatSnapshotId } = await import(dist('core/snapshot.js'));
  const settings = { maxCount: 1_000_000, maxAgeDays: 100_000, maxFileBytes: 20 * 1024 * 1024 };
  const envFor = (base) => ({
    ...process.env,
    CHECKPOINT_STORE_DIR: base,
    CHECKPOINT_SNAPSHOT_MAX_COUNT: '100000',
    CHECKPOINT_SNAPSHOT_MAX_AGE_DAYS: '36500',
    CHECKPOINT_HOOK_HOST: '0',
  });
  const bases = {};
  for (const count of counts) {
    const base = path.join(cacheDir, `history-${count}`);
    bases[count] = base;
    rmSync(base, { recursive: true, force: true });
    const deps = defaultDeps({ env: envFor(base) });
    const trees = [];
    let gcs = 0;
    const gcIfDue = async (outcome) => {
      if (!outcome.packDue && !outcome.capDue && !outcome.detachDue) return;
      const gc = await gcSnapshots(deps, { projectRoot: root, ifDue: true });
      if (gc.skipped) throw new Error('a snapshot said a gc was due, and gc --if-due found nothing due');
      gcs++;
    };
    for (let i = 0; i < 20; i++) {
      writeFileSync(path.join(root, 'history-bench.txt'), `prompt ${i}\n`);
      const taken = await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt', sessionId: 'bench' });
      trees.push(taken.snapshot.tree);
      await gcIfDue(taken);
    }
    const store = new SnapshotStore(root, projectStoreDir(base, root), settings);
    const start = Date.parse('2026-01-01T00:00:00Z');
    let recorded = 0;
    while (recorded < count - 20) {
      let packDue = false;
      // Under the lock until a gc is due; the gc then takes the lock itself, as the hooks' one does.
      await store.withLock(async () => {
        await store.init();
        while (!packDue && recorded < count - 20) {
          const i = recorded++;
          const at = new Date(start + i * 1000);
          await store.record(
            {
              id: formatSnapshotId(at, randomBytes(3).toString('hex')),
              createdAt: at.toISOString(),
              trigger: 'prompt',
              label: `prompt number ${i}`,
              sessionId: 'bench',
              git: null,
              changes: { added: 0, modified: 1, deleted: 0 },
              skipped: { large: [], nested: [] },
            },
            trees[i % trees.length],
          );
          // What snapshotLocked counts for a snapshot of an unchanged tree: its commit (COMMIT_BYTES).
          packDue = isPackDue(store.noteAdded(1024, 1).usage);
        }
      });
      await gcIfDue({ packDue, capDue: false, detachDue: false });
    }
    log(`  history of ${count} snapshots recorded (${gcs} gc due and run while recording)`);
    if (count >= 1000 && gcs === 0) throw new Error(`no gc was due in ${count} snapshots`);
  }
  rmSync(path.join(root, 'history-bench.txt'), { force: true });
  const commands = [
    ['list', ['list', '--json']],
    ['rewind --list', ['rewind', '--list', '--json']],
    ['diff', ['diff', 'latest~1', '--against', 'latest', '--json']],
    ['gc', ['gc', '--json']],
  ];
  const rows = [];
  for (const [name, args] of commands) {
    const samples = Object.fromEntries(counts.map((count) => [count, []]));
    // gc's first run repacks into one what the recording's gcs left (and the 100 snapshots it never
    // packed): run it once outside timing, so that each timed run collects an already collected store.
    if (name === 'gc')
      for (const count of counts)
        await runProcess(process.execPath, [cli, ...args, '--root', root], {
          cwd: root,
          env: envFor(bases[count]),
        });
    for (let round = 0; round < repeats; round++) {
      const order = round % 2 === 0 ? counts : [...counts].reverse();
      for (const count of order)
        samples[count].push(
          await timeMs(() =>
            runProcess(process.execPath, [cli, ...args, '--root', root], {
              cwd: root,
              env: envFor(bases[count]),
            }),
          ),
        );
    }
    const [few, many] = counts;
    const row = {
      name: `${name}, ${many.toLocaleString('en')} snapshots vs ${few}`,
      oursMs: median(samples[many]),
      floorMs: median(samples[few]),
    };
    row.ratio = row.oursMs / row.floorMs;
    log(
      `  ${row.name}: ${row.oursMs.toFixed(0)} ms vs ${row.floorMs.toFixed(0)} ms, ratio ${row.ratio.toFixed(2)}`,
    );
    rows.push(row);
  }
  for (const base of Object.values(bases)) rmSync(base, { recursive: true, force: true });
  return rows;
}

/**
 * The first snapshot of a 10,000-file folder that is not a git repository, as a CLI process, against
 * `git add -A` + `write-tree` of the same folder into a fresh git dir (issue 26: it should cost about
 * that); and restoring one 25 MB file (benchBigRestore).
 */
export async function benchFirstAndBig({ cli, cacheDir, repeats, log }) {
  const rows = [];
  const folder = path.join(cacheDir, 'nogit-10k');
  const ready = `${folder}.ready`;
  try {
    readFileSync(ready);
  } catch {
    rmSync(folder, { recursive: true, force: true });
    for (let i = 0; i < 10_000; i++) {
      const dir = path.join(folder, 'src', `m${Math.floor(i / 1000)}`, `d${Math.floor(i / 50) % 20}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `f${i}.ts`), `export const v${i} = ${i};\n`.repeat(50 + (i % 100)));
    }
    writeFileSync(ready, 'ok\n');
  }
  const store = path.join(cacheDir, 'nogit-store');
  const shadow = path.join(cacheDir, 'nogit-shadow');
  const env = { ...process.env, CHECKPOINT_STORE_DIR: store, CHECKPOINT_HOOK_HOST: '0' };
  const samples = { ours: [], floor: [] };
  const rounds = Math.min(3, repeats);
  for (let round = 0; round < rounds; round++) {
    for (const which of round % 2 === 0 ? ['ours', 'floor'] : ['floor', 'ours']) {
      rmSync(which === 'ours' ? store : shadow, { recursive: true, force: true });
      if (which === 'floor') execFileSync('git', ['init', '-q', '--bare', shadow]);
      samples[which].push(
        await timeMs(async () => {
          if (which === 'ours')
            await runProcess(process.execPath, [cli, 'snapshot', '--json', '--root', folder], {
              cwd: folder,
              env,
            });
          else {
            await runProcess('git', ['--git-dir', shadow, '--work-tree', folder, 'add', '-A'], {
              cwd: folder,
            });
            await runProcess('git', ['--git-dir', shadow, '--work-tree', folder, 'write-tree'], {
              cwd: folder,
            });
          }
        }),
      );
    }
  }
  rows.push(row('first snapshot, 10,000 files, no git (CLI process)', samples, log));
  rmSync(store, { recursive: true, force: true });
  rmSync(shadow, { recursive: true, force: true });
  rows.push(...(await benchBigRestore({ cli, cacheDir, repeats, log })));
  return rows;
}

/** Restoring one 25 MB file as a CLI process, against copying it back plus a warm snapshot. */
export async function benchBigRestore({ cli, cacheDir, repeats, log }) {
  const rows = [];
  const env = { ...process.env, CHECKPOINT_HOOK_HOST: '0' };
  const rounds = Math.min(3, repeats);
  // One 25 MB file, restored from the snapshot after it changed.
  const big = path.join(cacheDir, 'big-file');
  rmSync(big, { recursive: true, force: true });
  mkdirSync(big, { recursive: true });
  const bigEnv = {
    ...env,
    CHECKPOINT_STORE_DIR: path.join(cacheDir, 'big-store'),
    CHECKPOINT_SNAPSHOT_MAX_FILE_MB: '50',
  };
  rmSync(bigEnv.CHECKPOINT_STORE_DIR, { recursive: true, force: true });
  const content = (seed) => {
    const line = randomBytes(48).toString('base64');
    return Buffer.from(
      `${seed}\n${line}\n`.repeat(Math.ceil((25 * 1024 * 1024) / (line.length + 12))),
    ).subarray(0, 25 * 1024 * 1024);
  };
  writeFileSync(path.join(big, 'data.txt'), content('original'));
  writeFileSync(path.join(big, 'small.txt'), 'small\n');
  const first = JSON.parse(
    execFileSync(process.execPath, [cli, 'snapshot', '--json', '--root', big], {
      cwd: big,
      env: bigEnv,
    }).toString(),
  ).snapshot.id;
  const kept = path.join(cacheDir, 'big-file.copy');
  writeFileSync(kept, content('original'));
  const restoreSamples = { ours: [], floor: [] };
  for (let round = 0; round < rounds; round++) {
    for (const which of round % 2 === 0 ? ['ours', 'floor'] : ['floor', 'ours']) {
      writeFileSync(path.join(big, 'data.txt'), content(`changed ${round} ${which}`));
      restoreSamples[which].push(
        await timeMs(async () => {
          if (which === 'ours')
            await runProcess(
              process.execPath,
              [cli, 'restore', first, 'data.txt', '--yes', '--json', '--root', big],
              {
                cwd: big,
                env: bigEnv,
              },
            );
          else {
            // The floor: the warm snapshot a restore takes first for undo (of the changed file, which it
            // stores), then copying the file back. Snapshotting after the copy would store nothing new.
            await runProcess(process.execPath, [cli, 'snapshot', '--json', '--root', big], {
              cwd: big,
              env: bigEnv,
            });
            copyFileSync(kept, path.join(big, 'data.txt'));
          }
        }),
      );
    }
  }
  rows.push(row('restore one 25 MB file (CLI process)', restoreSamples, log));
  rmSync(big, { recursive: true, force: true });
  rmSync(bigEnv.CHECKPOINT_STORE_DIR, { recursive: true, force: true });
  rmSync(kept, { force: true });
  return rows;
}

function row(name, samples, log) {
  const result = { name, oursMs: median(samples.ours), floorMs: median(samples.floor) };
  result.ratio = result.oursMs / result.floorMs;
  log(
    `  ${name}: ours ${result.oursMs.toFixed(0)} ms, floor ${result.floorMs.toFixed(0)} ms, ratio ${result.ratio.toFixed(2)}`,
  );
  return result;
}
