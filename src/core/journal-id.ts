// A command journal record's id (core/journal.ts), apart from the rest of the journal: the hooks' entry
// names the record of a Bash hook it hands to a server, and loads nothing else of the journal for it.

export const JOURNAL_ID_PATTERN = /^[0-9a-z]{9}-[0-9a-f-]{1,60}$/;

/** At most this many merged ids are remembered, the newest: each costs the checkpoint some 40 bytes of its 64 KB. */
export const JOURNAL_MEMORY_IDS = 200;

/** A record's id: the time in base 36 (fixed width, so ids sort by time), then a unique part. */
export function journalId(now: Date, unique: string): string {
  return `${now.getTime().toString(36).padStart(9, '0')}-${unique}`;
}

/** When the record was named (ms since the epoch), from its id. */
export function journalIdTime(id: string): number {
  return Number.parseInt(id.slice(0, 9), 36);
}
