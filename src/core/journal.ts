import { LIMITS } from './limits.js';
import { appendRecorded, type FittedCheckpoint, keepNewest } from './merge.js';
import type { Checkpoint, RecentCommand } from './schema.js';
import { charLength } from './text.js';

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
}

export const JOURNAL_ID_PATTERN = /^[0-9a-z]{9}-[0-9a-f-]{1,60}$/;

/** A record's id: the time in base 36 (fixed width, so ids sort by time), then a unique part. */
export function journalId(now: Date, unique: string): string {
  return `${now.getTime().toString(36).padStart(9, '0')}-${unique}`;
}

const JOURNAL_VERSION = 1;

/** The file's text: one JSON line. Never more than a checkpoint can hold: the newest commands are kept. */
export function serializeJournalRecord(record: Omit<JournalRecord, 'id'>): string {
  const commands = keepNewest(record.commands, LIMITS.recentCommands).kept;
  const text = (from: number) =>
    `${JSON.stringify({ v: JOURNAL_VERSION, redactions: record.redactions, commands: commands.slice(from) })}\n`;
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
  const { v, redactions, commands } = value as Record<string, unknown>;
  if (typeof v === 'number' && v > JOURNAL_VERSION) return 'newer';
  if (v !== JOURNAL_VERSION) return null;
  if (!Number.isSafeInteger(redactions) || (redactions as number) < 0) return null;
  if (!Array.isArray(commands) || !commands.every(isRecentCommand)) return null;
  return { id, commands, redactions: redactions as number };
}

function isRecentCommand(value: unknown): value is RecentCommand {
  if (typeof value !== 'object' || value === null) return false;
  const { command, exitCode, note, at } = value as Record<string, unknown>;
  return (
    typeof command === 'string' &&
    charLength(command) <= LIMITS.commandChars &&
    (exitCode === undefined || Number.isSafeInteger(exitCode)) &&
    (note === undefined || (typeof note === 'string' && charLength(note) <= LIMITS.commandNoteChars)) &&
    (at === undefined || (typeof at === 'string' && !Number.isNaN(Date.parse(at))))
  );
}

/**
 * The checkpoint with the journal's records in it, oldest first. A record whose id the checkpoint
 * lists in `meta.journaled` is in it already (a merge wrote it, then stopped before clearing the
 * journal): it is skipped. The list becomes the ids of `records`, all of which the caller clears next.
 * Not `changed` when nothing was new: the file need not be written.
 */
export function applyJournal(
  checkpoint: Checkpoint,
  records: readonly JournalRecord[],
): ({ changed: true } & FittedCheckpoint) | { changed: false } {
  const held = new Set(checkpoint.meta.journaled ?? []);
  const sorted = [...records].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const fresh = sorted.filter((record) => !held.has(record.id));
  if (fresh.length === 0) return { changed: false };
  const fitted = appendRecorded(
    checkpoint,
    fresh.flatMap((record) => record.commands),
    fresh.reduce((sum, record) => sum + record.redactions, 0),
    { journaled: sorted.map((record) => record.id) },
  );
  return { ...fitted, changed: true };
}
