import path from 'node:path';
import { hashHex } from '../git/hash.js';

// The base folder has a module of its own, free of node:crypto, for the hooks' loader.
export { defaultStoreBase, STORE_ENV } from './store-base.js';

/** One folder per project, named for people and made unique by a hash of the root's path. */
export function projectStoreDir(base: string, root: string): string {
  const name =
    path
      .basename(root)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 40) || 'root';
  const digest = hashHex('sha256', root).slice(0, 12);
  return path.join(base, 'projects', `${name}-${digest}`);
}
