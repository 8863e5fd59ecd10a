import { readFileSync } from 'node:fs';
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
