import path from 'node:path';
import type { ObjectFormat, RememberedOid } from '../git/oid.js';
import { writeFileAtomic } from './atomic-write.js';
import { readTextOrNull, type StoreFs } from './fs-seam.js';
import { ParsedFileMemo } from './parsed-memo.js';
import { ensureStoreFolders, projectStoreFolders } from './store-folder.js';

/**
 * The oids of the project's uncommitted files as the last save hashed them, with each file's lstat (see
 * RememberedOid), so the next save or load reads only the files written since. Kept in the project's
 * private store; a missing or damaged file only means hashing everything again.
 */
const FILE = 'file-hashes.json';
const VERSION = 1;
/** More entries than a save hashes in practice; a bound on the file, not a working limit. */
const MAX_REMEMBERED = 50_000;

type Row = [oid: string, size: number, mtimeNs: string, ctimeNs: string, ino: string, dev: string];

/** Memories parsed lately: a server reads the same one on every save and load. */
const parsedMemories = new ParsedFileMemo<ReadonlyMap<string, RememberedOid>>();

/** Read synchronously, like the hashing it serves: one small file, several times faster than the thread pool. */
export async function readOidMemory(
  storeDir: string,
  format: ObjectFormat,
): Promise<ReadonlyMap<string, RememberedOid>> {
  const file = path.join(storeDir, FILE);
  try {
    const text = readTextOrNull(file);
    if (text === null) return new Map();
    return parsedMemories.parse(`${file}\0${format}`, text, (read) => parseMemory(read, format));
  } catch {
    return new Map(); // missing or unreadable: nothing remembered
  }
}

function parseMemory(text: string, format: ObjectFormat): ReadonlyMap<string, RememberedOid> {
  const memory = new Map<string, RememberedOid>();
  const parsed = JSON.parse(text) as unknown;
  if (!isMemoryFile(parsed) || parsed.format !== format) return memory;
  for (const [file, row] of Object.entries(parsed.files)) {
    if (!isRow(row)) continue;
    const [oid, size, mtimeNs, ctimeNs, ino, dev] = row;
    memory.set(file, { oid, size, mtimeNs, ctimeNs, ino, dev });
  }
  return memory;
}

export async function writeOidMemory(
  fs: StoreFs,
  storeDir: string,
  format: ObjectFormat,
  remembered: ReadonlyMap<string, RememberedOid>,
): Promise<void> {
  const files: Record<string, Row> = {};
  let count = 0;
  for (const [file, known] of remembered) {
    if (++count > MAX_REMEMBERED) break;
    files[file] = [known.oid, known.size, known.mtimeNs, known.ctimeNs, known.ino, known.dev];
  }
  ensureStoreFolders(projectStoreFolders(storeDir));
  // Not durable: a memory lost in a crash only costs hashing again.
  writeFileAtomic(fs, path.join(storeDir, FILE), JSON.stringify({ version: VERSION, format, files }), {
    durable: false,
  });
}

/** Whether two memories hold the same entries (then there is nothing to write). */
export function sameMemory(
  a: ReadonlyMap<string, RememberedOid>,
  b: ReadonlyMap<string, RememberedOid>,
): boolean {
  if (a.size !== b.size) return false;
  for (const [file, known] of a) if (b.get(file) !== known) return false;
  return true;
}

function isMemoryFile(value: unknown): value is { format: string; files: Record<string, unknown> } {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    record.version === VERSION &&
    typeof record.format === 'string' &&
    typeof record.files === 'object' &&
    record.files !== null &&
    !Array.isArray(record.files)
  );
}

const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** The oid is given out as a file's, so it must be one; a malformed stat part only never matches. */
function isRow(row: unknown): row is Row {
  return (
    Array.isArray(row) &&
    row.length === 6 &&
    typeof row[0] === 'string' &&
    OID.test(row[0]) &&
    typeof row[1] === 'number' &&
    typeof row[2] === 'string' &&
    typeof row[3] === 'string' &&
    typeof row[4] === 'string' &&
    typeof row[5] === 'string'
  );
}
