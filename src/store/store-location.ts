import path from 'node:path';
import { hashHex } from '../git/hash.js';
import { userConfigDir } from './settings-file.js';
import { defaultStoreBase } from './store-base.js';
import { ourFoldersWithin } from './store-within.js';

// The base folder has a module of its own, free of node:crypto, for the hooks' loader.
export { defaultStoreBase, STORE_ENV } from './store-base.js';

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

/**
 * Our folders inside the project `root` (the store's, the user's configuration folder), usually none
 * (see ourFoldersWithin); the store's is left out when the settings cannot be read.
 */
export function projectOurFolders(root: string, env: NodeJS.ProcessEnv): string[] {
  let base: string[] = [];
  try {
    base = [defaultStoreBase(env)];
  } catch {
    // a settings problem: the command that needs the store says so
  }
  return ourFoldersWithin(root, [...base, userConfigDir(env)]);
}
