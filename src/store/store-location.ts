import { userConfigDir } from './settings-file.js';
import { defaultStoreBase } from './store-base.js';
import { ourFoldersWithin } from './store-within.js';

// The base folder and the project's folder have modules of their own, for the hooks' and the CLI's loaders.
export { projectStoreDir } from './project-store-dir.js';
export { defaultStoreBase, STORE_ENV } from './store-base.js';

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
