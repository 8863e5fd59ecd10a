// A separate process on a project's checkpoint, for the command journal's tests. Uses the built code.
// argv: <dist dir> <project root> <mode>
//   hold                holds the checkpoint's lock until its stdin ends, then lets go (merging the journal
//                       as it does); prints "held" once it has the lock
//   crash-after-write   merges the journal and dies after writing the checkpoint, before clearing the journal
//   <step> <command>    writes <command>'s record to the journal, as a hook would, and stops at <step>:
//                       killed-before-rename (written, synced: SIGKILL), killed-mid-write (half its text
//                       written: SIGKILL), live-before-rename (prints "written", renames once stdin ends)
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
} else if (['killed-before-rename', 'killed-mid-write', 'live-before-rename'].includes(mode)) {
  const { journalId, serializeJournalRecord } = await import(path.join(distDir, 'core/journal.js'));
  const { recordedCommands } = await import(path.join(distDir, 'core/merge.js'));
  const record = serializeJournalRecord(recordedCommands([{ command: process.argv[5], exitCode: 0 }], new Date()));
  const stopping = {
    ...fs,
    writeFileSync: (fd, text) => {
      if (mode !== 'killed-mid-write') return fs.writeFileSync(fd, text);
      fs.writeFileSync(fd, text.slice(0, text.length / 2));
      process.kill(process.pid, 'SIGKILL');
    },
    renameSync: (from, to) => {
      if (mode === 'killed-before-rename') process.kill(process.pid, 'SIGKILL');
      process.stdout.write('written\n');
      process.stdin.resume();
      process.stdin.on('end', () => fs.renameSync(from, to));
    },
  };
  new CheckpointStore(root, stopping).addToJournal(journalId(new Date(), `${process.pid}-1`), record);
} else {
  throw new Error(`unknown mode ${mode}`);
}
