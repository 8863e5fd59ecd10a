import { lstatSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { hashHex } from '../git/hash.js';
import { writeFileAtomic } from './atomic-write.js';
import type { StoreFs } from './fs-seam.js';
import { ensureStoreFolders, projectStoreFolders } from './store-folder.js';

/**
 * What the last read of an agent's session transcript left for the next one (where it stopped, and what
 * it had found), one small file per transcript in the project's private store. A missing or damaged file
 * only means reading the transcript again from its end.
 */
const FOLDER = 'transcripts';
/** Nothing we write is this big: a bigger file is not ours to parse. */
const MAX_BYTES = 256 * 1024;

function memoryFile(storeDir: string, agent: string, transcript: string): string {
  const digest = hashHex('sha256', `${agent}\0${transcript}`).slice(0, 24);
  return path.join(storeDir, FOLDER, `${agent}-${digest}.json`);
}

export function readTranscriptMemory(storeDir: string, agent: string, transcript: string): unknown {
  try {
    const text = readFileSync(memoryFile(storeDir, agent, transcript), 'utf8');
    return text.length > MAX_BYTES ? null : (JSON.parse(text) as unknown);
  } catch {
    return null;
  }
}

export function writeTranscriptMemory(
  fs: StoreFs,
  storeDir: string,
  agent: string,
  transcript: string,
  memory: unknown,
): void {
  const file = memoryFile(storeDir, agent, transcript);
  // Security: a link in the place of any folder down to here is refused, never written through.
  ensureStoreFolders(projectStoreFolders(storeDir, FOLDER));
  // Not durable: a memory lost in a crash only costs reading the transcript again.
  writeFileAtomic(fs, file, JSON.stringify(memory), { durable: false });
}

/**
 * How long a memory no hook has written stays: a session resumed after that reads its transcript from
 * the end again. Without a bound every session left a file for good (daily-use trial: one per /clear).
 */
export const TRANSCRIPT_MEMORY_MAX_AGE_DAYS = 30;

/** Deletes the memories not written for TRANSCRIPT_MEMORY_MAX_AGE_DAYS before `now`; returns how many. */
export function pruneTranscriptMemory(storeDir: string, now: Date): number {
  const dir = path.join(storeDir, FOLDER);
  // Security: only the store's own folder, never one a link put in its place.
  if (!lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) return 0;
  const oldest = now.getTime() - TRANSCRIPT_MEMORY_MAX_AGE_DAYS * 86_400_000;
  let pruned = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0; // gone since: nothing to prune, and a gc never fails for it
  }
  for (const name of names) {
    const file = path.join(dir, name);
    const stats = lstatSync(file, { throwIfNoEntry: false });
    if (!stats || stats.isDirectory() || stats.mtimeMs >= oldest) continue;
    try {
      unlinkSync(file);
      pruned++;
    } catch {
      // gone already, or not ours to delete: the next gc tries again
    }
  }
  return pruned;
}
