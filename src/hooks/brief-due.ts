import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { AppDeps } from '../app/deps.js';
import { projectStoreFolders, refuseStoreFolderLink, writeStoreFileInPlace } from '../store/store-folder.js';
import { defaultStoreBase, projectStoreDir } from '../store/store-location.js';

/** A marker in the project's private store: a compaction happened, and the next prompt brings the brief back. */
function markerPath(deps: AppDeps, root: string): string {
  return path.join(projectStoreDir(defaultStoreBase(deps.env), root), 'brief-due');
}

export async function markBriefDue(deps: AppDeps, root: string): Promise<void> {
  const marker = markerPath(deps, root);
  // The store folder exists: the compaction's snapshot or an earlier one made it; if not, nothing is due.
  // Security: nothing is written through a link in the place of a folder down to it, or of the marker.
  try {
    for (const dir of projectStoreFolders(path.dirname(marker))) refuseStoreFolderLink(dir);
    writeStoreFileInPlace(marker, deps.now().toISOString());
  } catch {
    // no store, or one that is refused: the brief is simply not brought back
  }
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
