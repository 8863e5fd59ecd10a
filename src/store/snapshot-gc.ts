import * as fsp from 'node:fs/promises';
import path from 'node:path';
import type { StoreGit } from './store-git.js';

/** Deletes unreferenced content; returns the store's size before and after, in bytes. */
export async function gcStore(
  store: { storeDir: string; gitDir: string; lockPath: string; exists: () => Promise<boolean> },
  git: StoreGit,
): Promise<{ beforeBytes: number; afterBytes: number }> {
  const beforeBytes = await storeSizeBytes(store.storeDir, store.lockPath);
  if (await store.exists()) {
    await git(['reflog', 'expire', '--expire=now', '--all']);
    const alternates = path.join(store.gitDir, 'objects', 'info', 'alternates');
    if (
      await fsp.access(alternates).then(
        () => true,
        () => false,
      )
    ) {
      // Copy what snapshots borrow from the project's repository into the store, then stop borrowing.
      await git(['repack', '-a', '-d', '-q']);
      await fsp.rm(alternates, { force: true });
    }
    await git(['gc', '--prune=now', '--quiet']);
  }
  return { beforeBytes, afterBytes: await storeSizeBytes(store.storeDir, store.lockPath) };
}

/** Bytes on disk under the store folder, not counting the lock (transient, and held while gc measures). */
export async function storeSizeBytes(storeDir: string, lockPath: string): Promise<number> {
  let total = 0;
  const walk = async (dir: string): Promise<void> => {
    const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (full === lockPath) continue;
      else total += (await fsp.lstat(full).catch(() => null))?.size ?? 0;
    }
  };
  await walk(storeDir);
  return total;
}
