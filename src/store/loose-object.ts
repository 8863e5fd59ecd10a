import { closeSync, lstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { deflateSync, inflateSync, constants as zlibConstants } from 'node:zlib';
import { hashHex } from '../git/hash.js';
import type { ObjectFormat } from '../git/oid.js';
import { storedZlib } from '../git/zlib-stored.js';
import { writeFileAtomicSync } from './atomic-write.js';
import { refuseStoreFolderLink } from './store-folder.js';
import { uniqueSuffix } from './temp-name.js';

/**
 * Writes one object into a repository we own, as git stores a loose object (`<type> <size>\0<body>`,
 * zlib-deflated, at `objects/<first two hex>/<rest>`): what `git hash-object -w` does, without starting
 * a process. The file is created exclusively under a temp name and renamed into place, read-only, as git
 * does; an object that is already there is left alone, since the same name means the same content.
 */
export async function writeLooseObject(
  gitDir: string,
  type: 'blob' | 'tree' | 'commit',
  body: Buffer,
  format: ObjectFormat,
): Promise<string> {
  const header = Buffer.from(`${type} ${body.length}\0`, 'utf8');
  const oid = hashHex(format, header, body);
  const dir = path.join(gitDir, 'objects', oid.slice(0, 2));
  const file = path.join(dir, oid.slice(2));
  // Synchronous: a snapshot writes its commit and a few small blobs, a handful of syscalls each.
  if (lstatSync(file, { throwIfNoEntry: false })) return oid;
  // Read-only, under git's own temp name (which its prune knows), as git writes objects. A commit (a
  // snapshot's record) is stored uncompressed, for `list` to read without node:zlib (git/zlib-stored.ts).
  const object = Buffer.concat([header, body]);
  const content = type === 'commit' ? storedZlib(object) : deflateSync(object);
  // A gc's `git prune-packed` removes the fan-out folders it empties, and a killed gc's may still run
  // after the store's lock is free: the folder made here can be gone before the temp file is created in
  // it. Made again and tried again, as git itself does.
  for (let attempt = 1; ; attempt++) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Security: mkdir is content with a link to a folder in the fan-out folder's place; the object would
    // be written through it, into whatever it points at (review of 2026-12-07).
    refuseStoreFolderLink(dir);
    try {
      writeFileAtomicSync(file, content, { mode: 0o400, tempName: `tmp_obj_${uniqueSuffix()}` });
      return oid;
    } catch (error) {
      if (attempt >= MAX_WRITE_ATTEMPTS || !isFolderGone(error)) throw error;
    }
  }
}

/**
 * A real prune-packed empties each folder once; the suite's sweeper removes them every 50 µs, and on a
 * busy CI machine won ten tries in a row (2026-12-07). A try is a mkdir and an open: a hundred cost little.
 */
const MAX_WRITE_ATTEMPTS = 100;

function isFolderGone(error: unknown): boolean {
  return ((error as { cause?: NodeJS.ErrnoException }).cause?.code ?? '') === 'ENOENT';
}

/** The object format a repository's config names (`extensions.objectFormat`); sha1 unless it says otherwise. */
export function objectFormatOf(config: string): ObjectFormat {
  return /^\s*objectformat\s*=\s*sha256\s*$/im.test(config) ? 'sha256' : 'sha1';
}

/** The object format of a repository, read from its config. */
export async function repositoryObjectFormat(gitDir: string): Promise<ObjectFormat> {
  return objectFormatOf(await fsp.readFile(path.join(gitDir, 'config'), 'utf8').catch(() => ''));
}

/** The start of a loose object's file holds its header: deflated, `<type> <size>` fits in far fewer bytes. */
const HEADER_READ_BYTES = 128;

/**
 * A loose object's type and size, from the first bytes of its file only (what `git cat-file
 * --batch-check` tells); `null` when the object is not stored loose (packed by a gc, borrowed from the
 * project) or its file is unreadable: ask git then.
 */
export function readLooseHeader(gitDir: string, oid: string): { type: string; size: number } | null {
  // Security: the oid names a file under objects/; only hex of an oid's length can.
  if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(oid)) return null;
  let fd: number | undefined;
  try {
    fd = openSync(path.join(gitDir, 'objects', oid.slice(0, 2), oid.slice(2)), 'r');
    const start = Buffer.alloc(HEADER_READ_BYTES);
    const read = readSync(fd, start, 0, HEADER_READ_BYTES, 0);
    // A sync flush inflates what these bytes hold, rather than failing on the stream's missing end.
    const head = inflateSync(start.subarray(0, read), { finishFlush: zlibConstants.Z_SYNC_FLUSH });
    const nul = head.indexOf(0);
    if (nul < 0) return null;
    const match = /^([a-z]+) (\d+)$/.exec(head.subarray(0, nul).toString('latin1'));
    return match ? { type: match[1] as string, size: Number(match[2]) } : null;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
