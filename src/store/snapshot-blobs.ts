import { expectHashing } from '../git/hash.js';
import { type ObjectFormat, WorktreeHasher } from '../git/oid.js';
import { writeLooseObject } from './loose-object.js';

/** Past these, git stores the batch: it reads and compresses many or large files faster than we do. */
const IN_PROCESS_MAX_FILES = 100;
const IN_PROCESS_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Stores a small batch of changed files ourselves, as loose blobs in the store, and gives back what the
 * private index must record for the batch (`git update-index -z --index-info` input). Each file is read
 * once: its blob, its oid and the tree later written from the index all come from the same bytes, so
 * the snapshot holds what was read here whatever happens to the files afterwards, and no git process
 * has to read the working tree again. `null` when git should do it instead: the batch is too large,
 * or a path is no longer what the scan found (gone, or no longer a file or link).
 */
export async function storeChangedBlobs(
  target: { root: string; gitDir: string; format: ObjectFormat },
  toDrop: readonly string[],
  toAdd: ReadonlyArray<{ path: string; bytes: number }>,
  maxFileBytes: number,
): Promise<string | null> {
  const bytes = toAdd.reduce((sum, entry) => sum + entry.bytes, 0);
  if (toAdd.length > IN_PROCESS_MAX_FILES || bytes > IN_PROCESS_MAX_BYTES) return null;
  expectHashing(bytes);
  const reader = new WorktreeHasher(target.root, target.format);
  const none = '0'.repeat(target.format === 'sha256' ? 64 : 40);
  // Removals first: a file that became a folder leaves the index before the folder's files enter it.
  const records = toDrop.map((file) => `0 ${none}\t${file}\0`);
  for (const entry of toAdd) {
    const blob = reader.readBlob(entry.path, maxFileBytes);
    if (!blob) return null;
    const oid = await writeLooseObject(target.gitDir, 'blob', blob.content, target.format);
    records.push(`${blob.mode} ${oid}\t${entry.path}\0`);
  }
  return records.join('');
}
