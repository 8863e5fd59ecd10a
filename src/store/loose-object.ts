import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import type { ObjectFormat } from '../git/oid.js';
import { writeFileAtomicSync } from './atomic-write.js';
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
  const oid = createHash(format).update(header).update(body).digest('hex');
  const dir = path.join(gitDir, 'objects', oid.slice(0, 2));
  const file = path.join(dir, oid.slice(2));
  // Synchronous: a snapshot writes its commit and a few small blobs, a handful of syscalls each.
  if (lstatSync(file, { throwIfNoEntry: false })) return oid;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Read-only, under git's own temp name (which its prune knows), as git writes objects.
  writeFileAtomicSync(file, deflateSync(Buffer.concat([header, body])), {
    mode: 0o400,
    tempName: `tmp_obj_${uniqueSuffix()}`,
  });
  return oid;
}

/** The object format a repository's config names (`extensions.objectFormat`); sha1 unless it says otherwise. */
export function objectFormatOf(config: string): ObjectFormat {
  return /^\s*objectformat\s*=\s*sha256\s*$/im.test(config) ? 'sha256' : 'sha1';
}

/** The object format of a repository, read from its config. */
export async function repositoryObjectFormat(gitDir: string): Promise<ObjectFormat> {
  return objectFormatOf(await fsp.readFile(path.join(gitDir, 'config'), 'utf8').catch(() => ''));
}
