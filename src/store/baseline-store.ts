import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from './atomic-write.js';
import type { StoreFs } from './fs-seam.js';
import { ensureStoreFolders, projectStoreFolders } from './store-folder.js';

/**
 * The blob oids of uncommitted files that a checkpoint could not list because of its 64 KB cap. Without
 * them, a load would take those files for clean at save time and flag every one as changed since. Kept
 * in the project's private store (never in the project), tied to one save by the checkpoint's id and time.
 */
export interface Baseline {
  checkpointId: string;
  updatedAt: string;
  oids: Record<string, string | null>;
}

const FILE = 'unlisted-files.json';

export async function writeBaseline(fs: StoreFs, storeDir: string, baseline: Baseline): Promise<void> {
  ensureStoreFolders(projectStoreFolders(storeDir));
  // Not durable: a baseline lost in a crash only costs precision (files flagged), never data.
  writeFileAtomic(fs, path.join(storeDir, FILE), JSON.stringify(baseline), { durable: false });
}

/** The baseline of exactly this save, or `null`. */
export async function readBaseline(
  storeDir: string,
  checkpoint: { id: string; updatedAt: string },
): Promise<Baseline | null> {
  try {
    const baseline = JSON.parse(readFileSync(path.join(storeDir, FILE), 'utf8')) as Baseline;
    return baseline.checkpointId === checkpoint.id &&
      baseline.updatedAt === checkpoint.updatedAt &&
      typeof baseline.oids === 'object' &&
      baseline.oids !== null
      ? baseline
      : null;
  } catch {
    return null;
  }
}
