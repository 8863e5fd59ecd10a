import { lstatSync, readFileSync } from 'node:fs';

/** A bigger index is not read here: at that size a git process costs little beside `git status`. */
const MAX_INDEX_BYTES = 16 * 1024 * 1024;

/**
 * Whether git's index (the file at `indexFile`) may list a path that contains `text`, read without a
 * git process. Index versions 2 and 3 keep each path whole, so a missing byte string settles it: `false`
 * only then. Version 4 compresses paths, a split index keeps its entries in another file and a sparse
 * one folds folders: those answer `true`, as do a stray match (in an extension, in a longer name), a
 * big index and an unreadable one. No index at all lists nothing.
 */
export function mayIndexList(indexFile: string, text: string): boolean {
  let index: Buffer;
  try {
    if (lstatSync(indexFile).size > MAX_INDEX_BYTES) return true;
    index = readFileSync(indexFile);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== 'ENOENT' && code !== 'ENOTDIR';
  }
  // Its signature, byte by byte: a named encoding would have Node compile its encodings' table (issue 26).
  if (index.length < 12 || index[0] !== 0x44 || index[1] !== 0x49 || index[2] !== 0x52 || index[3] !== 0x43)
    return true;
  const version = index.readUInt32BE(4);
  if (version !== 2 && version !== 3) return true;
  // "link": the split index's extension; "sdir": the sparse index's.
  return index.includes(text) || index.includes('link') || index.includes('sdir');
}
