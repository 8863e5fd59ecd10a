import { isCallId, withoutRepeatedCalls } from './call-ids.js';
import { appendRecorded, type FittedCheckpoint, keepNewest } from './fit.js';
import { JOURNAL_ID_PATTERN, JOURNAL_MEMORY_IDS, journalIdTime } from './journal-id.js';
import { LIMITS } from './limits.js';
import type { Checkpoint, RecentCommand } from './schema.js';
import { charLength } from './text.js';

export { JOURNAL_ID_PATTERN, journalId } from './journal-id.js';

// The command journal (issue 26): commands a hook recorded while another process held the checkpoint's
// lock wait there, one record per file, until the lock's next holder merges them. Waiting for the lock
// instead cost records on a busy machine, where a hook ran out of its time budget first.

/** One hook's commands, already clipped and redacted, as a journal file holds them. */
export interface JournalRecord {
  /** Sorts by the time it was written (see journalId); the file's name. */
  id: string;
  commands: RecentCommand[];
  /** Secret-looking values the redaction replaced in these commands. */
  redactions: number;
  /**
   * The record may have been written before under its id: a hook's own write after its server died
   * (`retry` in the file), or a temp file a killed writer left whole. Merged only while its id is
   * remembered (JOURNAL_MEMORY_MS), so it is never merged twice.
   */
  mayRepeat?: boolean;
}

/**
 * How long a merged record's id is remembered (`meta.journaled`), and so how long a second write of it
 * is known for one: a Bash hook whose server died after taking its command writes the record itself,
 * under the id it had given the server, which may have written it too (see JournalRecord.mayRepeat).
 */
export const JOURNAL_MEMORY_MS = 10 * 60_000;

const JOURNAL_VERSION = 1;

/** The file's text: one JSON line. Never more than a checkpoint can hold: the newest commands are kept. */
export function serializeJournalRecord(record: Omit<JournalRecord, 'id'>): string {
  const commands = keepNewest(record.commands, LIMITS.recentCommands).kept;
  const retry = record.mayRepeat ? { retry: true } : {};
  const text = (from: number) =>
    `${JSON.stringify({ v: JOURNAL_VERSION, ...retry, redactions: record.redactions, commands: commands.slice(from) })}\n`;
  let from = 0;
  while (from < commands.length && Buffer.byteLength(text(from)) > LIMITS.fileBytes) from++;
  return text(from);
}

/**
 * A journal file's record; `null` when the text cannot be one (damaged, or not ours), which a merge
 * removes; `'newer'` for a newer version's record, which it leaves for that version.
 */
export function parseJournalRecord(id: string, text: string | null): JournalRecord | null | 'newer' {
  if (text === null || !JOURNAL_ID_PATTERN.test(id)) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { v, redactions, commands, retry } = value as Record<string, unknown>;
  if (typeof v === 'number' && v > JOURNAL_VERSION) return 'newer';
  if (v !== JOURNAL_VERSION) return null;
  if (!Number.isSafeInteger(redactions) || (redactions as number) < 0) return null;
  if (!Array.isArray(commands) || !commands.every(isRecentCommand)) return null;
  return { id, commands, redactions: redactions as number, ...(retry === true ? { mayRepeat: true } : {}) };
}

function isRecentCommand(value: unknown): value is RecentCommand {
  if (typeof value !== 'object' || value === null) return false;
  const { command, exitCode, note, at, callId } = value as Record<string, unknown>;
  return (
    typeof command === 'string' &&
    charLength(command) <= LIMITS.commandChars &&
    (exitCode === undefined || Number.isSafeInteger(exitCode)) &&
    (note === undefined || (typeof note === 'string' && charLength(note) <= LIMITS.commandNoteChars)) &&
    (at === undefined || (typeof at === 'string' && !Number.isNaN(Date.parse(at)))) &&
    (callId === undefined || (typeof callId === 'string' && isCallId(callId)))
  );
}

/**
 * The checkpoint with the journal's records in it, oldest first, each id once. A record whose id the
 * checkpoint lists in `meta.journaled` is in it already (a merge wrote it, then stopped before clearing
 * the journal; or a hook wrote again what its server had): it is skipped. The list keeps the ids merged
 * within JOURNAL_MEMORY_MS of `now`, and gains those of `records`, all of which the caller clears next. A
 * record that may repeat one whose id is no longer remembered is dropped: never merged twice.
 * Not `changed` when nothing was new: the file need not be written.
 */
export function applyJournal(
  checkpoint: Checkpoint,
  records: readonly JournalRecord[],
  now: Date,
): ({ changed: true } & FittedCheckpoint) | { changed: false } {
  const held = new Set(checkpoint.meta.journaled ?? []);
  const since = now.getTime() - JOURNAL_MEMORY_MS;
  const sorted = [...records].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const fresh: JournalRecord[] = [];
  const taken = new Set(held);
  let listed: readonly RecentCommand[] = checkpoint.recentCommands;
  for (const record of sorted) {
    if (taken.has(record.id) || (record.mayRepeat && journalIdTime(record.id) < since)) continue;
    taken.add(record.id);
    // A tool call delivered twice (two hooks at once, each journaled while the other held the lock) is
    // recorded once; a record left with nothing new counts no redactions either.
    const commands = withoutRepeatedCalls(listed, record.commands);
    listed = [...listed, ...commands];
    fresh.push(commands.length === record.commands.length ? record : { ...record, commands, redactions: 0 });
  }
  if (fresh.length === 0) return { changed: false };
  const ids = new Set(sorted.map((record) => record.id));
  const remembered = [...held].filter((id) => !ids.has(id) && journalIdTime(id) >= since);
  const journaled = [...remembered, ...ids].slice(-Math.max(JOURNAL_MEMORY_IDS, ids.size));
  const fitted = appendRecorded(
    checkpoint,
    fresh.flatMap((record) => record.commands),
    fresh.reduce((sum, record) => sum + record.redactions, 0),
    { journaled },
  );
  return { ...fitted, changed: true };
}
