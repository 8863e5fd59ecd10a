// A separate process on a project's checkpoint, for the command journal's tests. Uses the built code.
// argv: <dist dir> <project root> <mode>
//   hold                holds the checkpoint's lock until its stdin ends, then lets go (merging the journal
//                       as it does); prints "held" once it has the lock
//   crash-after-write   merges the journal and dies after writing the checkpoint, before clearing the journal
import * as fs from 'node:fs';
import path from 'node:path';

const [distDir, root, mode] = process.argv.slice(2);
const { CheckpointStore } = await import(path.join(distDir, 'store/checkpoint-store.js'));

if (mode === 'hold') {
  await new CheckpointStore(root).withLock(async () => {
    process.stdout.write('held\n');
    process.stdin.resume();
    await new Promise((resolve) => process.stdin.on('end', resolve));
  });
} else if (mode === 'crash-after-write') {
  const journal = `${path.join(root, '.claude-checkpoint')}.journal`;
  const dying = {
    ...fs,
    // Removing the first merged record is the step after the checkpoint's write: die there, as a kill would.
    unlinkSync: (file) => {
      if (String(file).startsWith(`${journal}${path.sep}`)) process.exit(9);
      fs.unlinkSync(file);
    },
  };
  await new CheckpointStore(root, dying).withLock(async () => undefined);
  process.exit(0);
} else {
  throw new Error(`unknown mode ${mode}`);
}
