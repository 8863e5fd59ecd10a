import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { recordCommands } from '../../src/app/record-commands.js';
import { serializeCheckpoint } from '../../src/core/schema.js';
import { CheckpointStore } from '../../src/store/checkpoint-store.js';
import { tempDir } from '../helpers/fixtures.js';

// What the relay answers a Bash hook on (issue 26: the command must be on disk before the hook ends):
// recordCommands says when the command is there, before the work that follows it.

const example = JSON.parse(readFileSync(new URL('../fixtures/spec-example.json', import.meta.url), 'utf8'));
const commandsIn = (root: string): string[] =>
  JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).recentCommands.map(
    (command: { command: string }) => command.command,
  );

async function project() {
  const root = tempDir();
  await new CheckpointStore(root).write(serializeCheckpoint({ ...example, recentCommands: [] }));
  return { root, deps: defaultDeps({ env: { HOME: tempDir() }, cwd: () => root }) };
}

describe('recording commands: told once they are on disk', () => {
  it('in the checkpoint, while the lock is still held', async () => {
    const { root, deps } = await project();
    const told: Array<{ commands: string[]; isLockHeld: boolean }> = [];
    await recordCommands(
      deps,
      { projectRoot: root, commands: [{ command: 'npm test', exitCode: 0 }] },
      {
        onRecorded: () =>
          told.push({
            commands: commandsIn(root),
            isLockHeld: existsSync(path.join(root, '.claude-checkpoint.lock')),
          }),
      },
    );
    expect(told).toEqual([{ commands: ['npm test'], isLockHeld: true }]);
  });

  it('in the journal, when another holds the lock', async () => {
    const { root, deps } = await project();
    const journal = path.join(root, '.claude-checkpoint.journal');
    const told: string[][] = [];
    await new CheckpointStore(root).withLock(async () => {
      await recordCommands(
        deps,
        { projectRoot: root, commands: [{ command: 'make', exitCode: 2 }] },
        { onRecorded: () => told.push(readdirSync(journal).filter((name) => name.endsWith('.json'))) },
      );
    });
    expect(told).toHaveLength(1);
    expect(told[0]).toHaveLength(1);
    expect(commandsIn(root)).toEqual(['make']);
  });
});
