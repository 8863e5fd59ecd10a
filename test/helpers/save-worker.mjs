// A separate process that saves in a loop, for the concurrency and crash tests. Uses the built code.
// argv: <dist dir> <project root> <mode: merge-files|replace-goals> <name> <count>
import path from 'node:path';

const [distDir, root, mode, name, countText, storeDir] = process.argv.slice(2);
const { defaultDeps } = await import(path.join(distDir, 'app/deps.js'));
const { saveCheckpoint } = await import(path.join(distDir, 'app/save.js'));
const { takeSnapshot } = await import(path.join(distDir, 'app/rewind.js'));
const { writeFileSync } = await import('node:fs');
const deps = defaultDeps({ env: { PATH: process.env.PATH ?? '', ...(storeDir ? { CHECKPOINT_STORE_DIR: storeDir } : {}) } });
const count = Number(countText);
for (let i = 0; i < count; i++) {
  if (mode === 'snapshots') {
    writeFileSync(path.join(root, `file-${i % 7}.txt`), `${name} ${i}\n`.repeat(1 + (i % 50)));
    await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt' });
    continue;
  }
  if (mode === 'merge-files') {
    await saveCheckpoint(deps, { goal: 'shared', mode: 'merge', projectRoot: root, modifiedFiles: [{ path: `${name}-${i}.txt`, note: `${name} ${i}` }] });
  } else {
    await saveCheckpoint(deps, { goal: `${name} ${i}`, projectRoot: root, summary: 'x'.repeat(3000), decisions: Array.from({ length: 20 }, (_, d) => `decision ${d} ${'y'.repeat(200)}`) });
  }
  if (mode !== 'merge-files') process.stdout.write(`${i}\n`);
}
