import path from 'node:path';
import type { PulledFiles } from '../core/drift.js';
import { writeFileAtomic } from './atomic-write.js';
import { readTextOrNull, type StoreFs } from './fs-seam.js';
import { ensureStoreFolders, projectStoreFolders } from './store-folder.js';

/**
 * What the last `handoff pull` wrote, for the brief to tell the other machine's changes from this one's
 * (core/drift.ts, attributeToHandoff). In the project's private store, tied to the pulled checkpoint by
 * its id: the agent's own saves and the hooks' refreshes keep the id, and a file changed here after the
 * pull no longer has the content recorded, so it is never taken for the other machine's.
 */
const FILE = 'handoff-pulled.json';

export function writePulledFiles(fs: StoreFs, storeDir: string, pulled: PulledFiles): void {
  ensureStoreFolders(projectStoreFolders(storeDir));
  // Not durable: a record lost in a crash only costs the attribution, never data.
  writeFileAtomic(fs, path.join(storeDir, FILE), JSON.stringify(pulled), { durable: false });
}

/** The record of the pull that wrote this checkpoint, or `null`. */
export async function readPulledFiles(storeDir: string, checkpointId: string): Promise<PulledFiles | null> {
  try {
    const text = readTextOrNull(path.join(storeDir, FILE));
    if (text === null) return null;
    const pulled = JSON.parse(text) as PulledFiles;
    return pulled.checkpointId === checkpointId &&
      typeof pulled.pulledAt === 'string' &&
      typeof pulled.author === 'string' &&
      typeof pulled.oids === 'object' &&
      pulled.oids !== null &&
      (pulled.leftOut === undefined || (typeof pulled.leftOut === 'object' && pulled.leftOut !== null))
      ? pulled
      : null;
  } catch {
    return null;
  }
}
