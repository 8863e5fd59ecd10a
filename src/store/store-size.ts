import * as fsp from 'node:fs/promises';
import path from 'node:path';

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
