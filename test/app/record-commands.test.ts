import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { ALONE_JOURNAL_BATCH, recordCommands } from '../../src/app/record-commands.js';
import { journalId, serializeJournalRecord } from '../../src/core/journal.js';
import { serializeCheckpoint } from '../../src/core/schema.js';
import { CheckpointStore } from '../../src/store/checkpoint-store.js';
import { JOURNAL_MAX_RECORDS } from '../../src/store/command-journal.js';
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
  it('in the journal first, merged into the checkpoint before the call ends', async () => {
    const { root, deps } = await project();
    const journal = path.join(root, '.claude-checkpoint.journal');
    const told: Array<{ inJournal: string[]; inCheckpoint: string[] }> = [];
    await recordCommands(
      deps,
      { projectRoot: root, commands: [{ command: 'npm test', exitCode: 0 }] },
      {
        onRecorded: () =>
          told.push({
            inJournal: readdirSync(journal)
              .filter((name) => name.endsWith('.json'))
              .map((name) => readFileSync(path.join(journal, name), 'utf8')),
            inCheckpoint: commandsIn(root),
          }),
      },
    );
    // Told before the checkpoint is rewritten: what a large checkpoint costs comes after the answer.
    expect(told).toHaveLength(1);
    expect(told[0]?.inCheckpoint).toEqual([]);
    expect(told[0]?.inJournal).toHaveLength(1);
    expect(told[0]?.inJournal[0]).toContain('npm test');
    expect(commandsIn(root)).toEqual(['npm test']);
    expect(existsSync(journal)).toBe(false);
  });

  it('once, when the caller told fails (its failure is not the journal’s)', async () => {
    const { root, deps } = await project();
    await expect(
      recordCommands(
        deps,
        { projectRoot: root, commands: [{ command: 'npm test', exitCode: 0 }] },
        {
          onRecorded: () => {
            throw new Error('the answer could not be sent');
          },
        },
      ),
    ).rejects.toThrow('the answer could not be sent');
    // Journaled, never appended a second time: the next holder of the lock merges it once.
    const loaded = await new CheckpointStore(root).load();
    expect(loaded.found && loaded.checkpoint.recentCommands.map((c) => c.command)).toEqual(['npm test']);
    await new CheckpointStore(root).mergeJournalNow();
    expect(commandsIn(root)).toEqual(['npm test']);
  });

  // A merge remembers the id of every record it takes (meta.journaled): a hook on its own that left 500
  // to one merge would fill a full checkpoint with ids (about 18 KB), pushing its content out.
  it.each([
    ['a batch of records waits', ALONE_JOURNAL_BATCH],
    ['the journal is full', JOURNAL_MAX_RECORDS],
  ])('in the checkpoint at once, with nobody waiting, when %s', async (_, waiting) => {
    const { root, deps } = await project();
    const journal = path.join(root, '.claude-checkpoint.journal');
    mkdirSync(journal, { mode: 0o700 });
    const at = Date.now() - 60_000;
    for (let index = 0; index < waiting; index++) {
      const record = {
        commands: [{ command: `echo ${index}`, at: new Date(at).toISOString() }],
        redactions: 0,
      };
      writeFileSync(
        path.join(journal, `${journalId(new Date(at + index), 'abc123')}.json`),
        serializeJournalRecord(record),
      );
    }
    await recordCommands(deps, { projectRoot: root, commands: [{ command: 'make', exitCode: 0 }] });
    // The waiting records first, merged as the lock was taken, then this one.
    expect(commandsIn(root).slice(-2)).toEqual([`echo ${waiting - 1}`, 'make']);
    expect(existsSync(journal)).toBe(false);
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

// Review of 2026-12-07: where the journal could not take a relayed hook's record in a project with no
// checkpoint, the save that started the checkpoint held the command but not its id, so the hook's copy
// (its server dead before answering) would have been taken a second time.
describe('a named record the journal cannot take, in a project with no checkpoint yet', () => {
  it('starts the checkpoint with the command and remembers its id', async () => {
    const root = tempDir();
    const deps = defaultDeps({ env: { HOME: tempDir() }, cwd: () => root });
    const journal = path.join(root, '.claude-checkpoint.journal');
    // A link in the journal's place: the journal refuses it, as it refuses a full one.
    symlinkSync(tempDir(), journal);
    const recordId = journalId(new Date(), 'abc123');
    let told = 0;
    await recordCommands(
      deps,
      { projectRoot: root, commands: [{ command: 'npm test', exitCode: 0 }] },
      { recordId, onRecorded: () => told++ },
    );
    expect(commandsIn(root)).toEqual(['npm test']);
    // The relay answers there: the command is on disk, in the checkpoint.
    expect(told).toBe(1);
    const file = JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8'));
    expect(file.meta.journaled).toEqual([recordId]);
  });
});

// Hosts off (hooks/bash-record.ts): the Bash hook in its own process wrote the whole checkpoint, with its
// backup, for every command (1.8x a bare `node` against the 1.3x target); the journal takes one small file.
describe('a Bash hook on its own', () => {
  it("journals the command: every read shows it, the lock's next holder merges it, in order, once", async () => {
    const { root, deps } = await project();
    const before = readFileSync(path.join(root, '.claude-checkpoint'), 'utf8');
    const record = (command: string, callId: string) =>
      recordCommands(deps, { projectRoot: root, commands: [{ command, exitCode: 0, callId }] });
    const first = await record('make', 'toolu_1');
    await record('npm test', 'toolu_2');
    // The same tool call delivered twice (hooks in two scopes).
    await record('npm test', 'toolu_2');
    expect(first).toEqual({ created: false, pending: true, redactions: 0 });
    expect(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).toBe(before);
    const loaded = await new CheckpointStore(root).load();
    expect(loaded.found && loaded.checkpoint.recentCommands.map((c) => c.command)).toEqual([
      'make',
      'npm test',
    ]);
    // The end of the turn, a save: anything that takes the lock.
    await new CheckpointStore(root).withLock(async () => undefined);
    expect(commandsIn(root)).toEqual(['make', 'npm test']);
    expect(existsSync(path.join(root, '.claude-checkpoint.journal'))).toBe(false);
  });

  it('starts the checkpoint itself in a project that has none', async () => {
    const root = tempDir();
    const deps = defaultDeps({ env: { HOME: tempDir() }, cwd: () => root });
    const recorded = await recordCommands(deps, {
      projectRoot: root,
      commands: [{ command: 'make', exitCode: 0 }],
    });
    expect(recorded.created).toBe(true);
    expect(commandsIn(root)).toEqual(['make']);
    expect(existsSync(path.join(root, '.claude-checkpoint.journal'))).toBe(false);
  });
});
