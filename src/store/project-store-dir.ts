import path from 'node:path';
import { hashHex } from '../git/hash.js';

// Apart from store-location.ts, whose settings the CLI's loader does not load: the loader names the
// store of `claude-checkpoint snapshot` to start its scan early (cli/early-snapshot.ts).

/** Each root's folder name: a command asks for it several times, and the hash is JavaScript (issue 26). */
const folderNames = new Map<string, string>();

/** One folder per project, named for people and made unique by a hash of the root's path. */
export function projectStoreDir(base: string, root: string): string {
  let folder = folderNames.get(root);
  if (folder === undefined) {
    const name =
      path
        .basename(root)
        .replace(/[^A-Za-z0-9._-]/g, '_')
        .slice(0, 40) || 'root';
    folder = `${name}-${hashHex('sha256', root).slice(0, 12)}`;
    // A process serves a handful of projects; the bound only keeps a long-lived one small.
    if (folderNames.size >= 64) folderNames.clear();
    folderNames.set(root, folder);
  }
  return path.join(base, 'projects', folder);
}
