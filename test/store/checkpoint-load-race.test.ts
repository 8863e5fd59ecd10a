import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { journalId, serializeJournalRecord } from '../../src/core/journal.js';
import { recordedCommands } from '../../src/core/merge.js';
import { serializeCheckpoint } from '../../src/core/schema.js';
import { CheckpointStore } from '../../src/store/checkpoint-store.js';
import { nodeFs, type StoreFs } from '../../src/store/fs-seam.js';
import { assertBuilt } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

// A load reads the checkpoint file, then the command journal; a merge writes the file, then clears the
// records it merged. A relayed Bash hook is answered once its record is journaled and merged right after
// (issue 26), so a load in another process can straddle that merge. Here the merge, a real one in another
// process (the built store), runs exactly between the load's two reads.

const STORE_MODULE = fileURLToPath(new URL('../../dist/store/checkpoint-store.js', import.meta.url));
const example = JSON.parse(readFileSync(new URL('../fixtures/spec-example.json', import.meta.url), 'utf8'));

describe('a load that straddles a merge of the command journal', () => {
  it('still shows the journaled command (it reads the file again once it changed)', async () => {
    const root = tempDir();
    await new CheckpointStore(root).write(serializeCheckpoint({ ...example, recentCommands: [] }));
    const now = new Date();
    new CheckpointStore(root).addToJournal(
      journalId(now, '1234-abcd'),
      serializeJournalRecord(recordedCommands([{ command: 'npm test', exitCode: 0 }], now)),
    );
    const journal = path.join(root, '.claude-checkpoint.journal');
    let merges = 0;
    const mergingFs: StoreFs = {
      ...nodeFs,
      readdirSync: ((dir: string, ...rest: unknown[]) => {
        if (dir === journal && merges === 0) {
          merges++;
          const merged = spawnSync(
            process.execPath,
            [
              '--input-type=module',
              '-e',
              `const { CheckpointStore } = await import(${JSON.stringify(STORE_MODULE)});
               console.log(await new CheckpointStore(${JSON.stringify(root)}).mergeJournalNow());`,
            ],
            { encoding: 'utf8' },
          );
          expect(merged.stdout.trim()).toBe('true');
        }
        return (nodeFs.readdirSync as (...args: unknown[]) => unknown)(dir, ...rest);
      }) as StoreFs['readdirSync'],
    };
    const loaded = await new CheckpointStore(root, mergingFs).load();
    expect(merges).toBe(1);
    expect(loaded.found && loaded.checkpoint.recentCommands.map((c) => c.command)).toEqual(['npm test']);
  });
});
