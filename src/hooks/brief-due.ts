import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AppDeps } from '../app/deps.js';
import { defaultStoreBase, projectStoreDir } from '../store/store-location.js';

/** A marker in the project's private store: a compaction happened, and the next prompt brings the brief back. */
function markerPath(deps: AppDeps, root: string): string {
  return path.join(projectStoreDir(defaultStoreBase(deps.env), root), 'brief-due');
}

export async function markBriefDue(deps: AppDeps, root: string): Promise<void> {
  const marker = markerPath(deps, root);
  // The store folder exists: the compaction's snapshot or an earlier one made it; if not, nothing is due.
  await writeFile(marker, deps.now().toISOString(), { mode: 0o600 }).catch(() => undefined);
}

/** Whether the brief is due, clearing the mark: only one prompt brings it back. */
export async function takeBriefDue(deps: AppDeps, root: string): Promise<boolean> {
  try {
    await rm(markerPath(deps, root));
    return true;
  } catch {
    return false;
  }
}
