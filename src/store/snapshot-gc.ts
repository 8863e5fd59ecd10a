import * as fsp from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import type { ObjectFormat } from '../git/oid.js';
import { writeLooseObject } from './loose-object.js';
import { refuseFanOutLinks, writeStoreFileInPlace } from './store-folder.js';
import type { StoreGit } from './store-git.js';

/** What a gc did to the store's size: bytes before and after, and what it copied in to stop borrowing. */
export interface GcSizes {
  beforeBytes: number;
  afterBytes: number;
  /** Copied in from the project's repository, which the store borrowed from until now (see copyBorrowed). */
  copiedBytes: number;
}

/**
 * Deletes unreferenced content; returns the store's size after, in bytes (the caller measures before, ahead
 * of what it removes first: one walk of the store each, see SnapshotStore.gc). Never grows the
 * store, except by what it copies in to stop borrowing the project's objects (and by no more than those
 * objects take in the store): a new pack is kept only when it is smaller than what it replaces, and
 * nothing else is written (no commit-graph, bitmap, server info, nor packed refs below a thousand
 * snapshots, which cost more than they save in a store this size).
 *
 * `incremental` (the gc a long history makes due, see isPackDue): as `git gc --auto`, what is loose goes
 * into one more pack and the other packs stay as they are, so its cost follows what was added since the
 * last gc, not the store's size; past PACKS_MAX packs, everything is repacked into one as without it.
 */
export async function gcStore(
  store: { gitDir: string; exists: () => Promise<boolean>; sizeBytes: () => Promise<number> },
  git: StoreGit,
  options: { incremental?: boolean; objectFormat?: ObjectFormat } = {},
): Promise<Omit<GcSizes, 'beforeBytes'>> {
  let copiedBytes = 0;
  if (await store.exists()) {
    // Security: prune, prune-packed and repack -d delete loose objects in the fan-out folders objects/xx,
    // and the folders they empty; through a link in one's place, another repository's objects (review
    // of 2026-12-07). Checked again here, before anything is deleted.
    refuseFanOutLinks(path.join(store.gitDir, 'objects'));
    // Each deleting git names itself in gc.pid as `git gc` does, so that one a killed gc leaves running
    // is waited for before the next call writes objects it could delete (see waitForOrphanedGc).
    const gcPid = path.join(store.gitDir, 'gc.pid');
    const deleting = async (args: readonly string[]) => {
      try {
        await git(args, { onSpawn: (pid) => writeStoreFileInPlace(gcPid, `${pid} ${hostname()}`) });
      } finally {
        await fsp.rm(gcPid, { force: true });
      }
    };
    await git(['reflog', 'expire', '--expire=now', '--all']);
    // A long history's refs, one file each, are read by every listing and walk: packed into one file
    // past a thousand (a few bytes more than the files' contents, far fewer blocks on disk).
    const looseRefs = await fsp.readdir(path.join(store.gitDir, 'refs', 'snapshots')).catch(() => []);
    if (looseRefs.length > LOOSE_REFS_MAX) await git(['pack-refs', '--all', '--prune']);
    await deleting(['prune', '--expire=now']);
    const objects = path.join(store.gitDir, 'objects');
    const alternates = path.join(objects, 'info', 'alternates');
    if (options.incremental && (await packNames(objects)).size < PACKS_MAX) {
      // -l: what the store borrows from the project's repository stays borrowed (the detach copies it);
      // -d: the loose objects now packed are deleted.
      await deleting([...REPACK_CONFIG, 'repack', '-d', '-l', '-n', '-q']);
      return { afterBytes: await store.sizeBytes(), copiedBytes };
    }
    const borrowing = await fsp.access(alternates).then(
      () => true,
      () => false,
    );
    // What snapshots borrow from the project's repository is copied in, and only that, before borrowing
    // stops; the repack below then weighs the store as it is, copies included (issue 26: keeping a
    // whole new pack because the store borrowed made a small store bigger).
    if (borrowing) {
      copiedBytes = await copyBorrowed(git, store.gitDir, options.objectFormat ?? 'sha1');
      await fsp.rm(alternates, { force: true });
    }
    const before = await packNames(objects);
    // Without -d, so that the old packs stay until the new one has proved smaller; -n: no server info.
    await git([...REPACK_CONFIG, 'repack', '-a', '-n', '-q']);
    const created = [...(await packNames(objects))].filter((name) => !before.has(name));
    if (created.length > 0) {
      const replaced = [...before];
      const looseBytes = await looseObjectBytes(objects);
      const oldBytes = (await packBytes(objects, replaced)) + looseBytes;
      const newBytes = await packBytes(objects, created);
      if (newBytes < oldBytes) {
        for (const name of replaced) await removePack(objects, name);
        await deleting(['prune-packed', '-q']);
      } else {
        for (const name of created) await removePack(objects, name);
      }
    }
  }
  return { afterBytes: await store.sizeBytes(), copiedBytes };
}

/**
 * Up to this many borrowed objects, of this many bytes in all, are copied in loose: a pack's index alone
 * is over a kilobyte, and they are read into memory on the way.
 */
const LOOSE_COPY_MAX = 64;
const LOOSE_COPY_MAX_BYTES = 1024 * 1024;

/** The objects' sizes added up, uncompressed. */
async function objectsSize(git: StoreGit, oids: readonly string[]): Promise<number> {
  const { stdout } = await git(['cat-file', '--batch-check=%(objectsize)'], {
    input: `${oids.join('\n')}\n`,
  });
  return stdout
    .split('\n')
    .filter(Boolean)
    .reduce((sum, line) => sum + (Number(line) || 0), 0);
}

/**
 * Copies into the store the objects its snapshots, HEAD and index reach that only the project's
 * repository holds (borrowed through alternates): a few as loose objects, more as one pack of their
 * own. Returns the bytes this added.
 */
async function copyBorrowed(git: StoreGit, gitDir: string, format: ObjectFormat): Promise<number> {
  const objects = path.join(gitDir, 'objects');
  const { stdout } = await git(['rev-list', '--objects', '--all', '--indexed-objects']);
  const own = await localObjects(objects, format);
  const borrowed = [
    ...new Set(
      stdout
        .split('\n')
        .map((line) => line.slice(0, line.indexOf(' ') < 0 ? line.length : line.indexOf(' ')))
        .filter((oid) => oid !== '' && !own.has(oid)),
    ),
  ];
  if (borrowed.length === 0) return 0;
  if (borrowed.length <= LOOSE_COPY_MAX && (await objectsSize(git, borrowed)) <= LOOSE_COPY_MAX_BYTES) {
    const chunks: Buffer[] = [];
    await git(['cat-file', '--batch'], {
      input: `${borrowed.join('\n')}\n`,
      onStdout: (chunk) => chunks.push(chunk),
    });
    const output = Buffer.concat(chunks);
    let total = 0;
    let at = 0;
    while (at < output.length) {
      const end = output.indexOf(10, at);
      const [, type, size] = output.subarray(at, end).toString('latin1').split(' ');
      if (size === undefined) {
        at = end + 1; // "<oid> missing": nothing to copy
        continue;
      }
      const body = output.subarray(end + 1, end + 1 + Number(size));
      at = end + 1 + Number(size) + 1;
      const oid = await writeLooseObject(gitDir, type as 'blob' | 'tree' | 'commit', body, format);
      total += (await fsp.lstat(path.join(objects, oid.slice(0, 2), oid.slice(2)))).size;
    }
    return total;
  }
  const before = await packNames(objects);
  await git([...REPACK_CONFIG, 'pack-objects', '-q', path.join(objects, 'pack', 'pack')], {
    input: `${borrowed.join('\n')}\n`,
  });
  const created = [...(await packNames(objects))].filter((name) => !before.has(name));
  return packBytes(objects, created);
}

/** The oids the store holds itself, loose or in its packs (read from each pack's index, version 2). */
async function localObjects(objects: string, format: ObjectFormat): Promise<Set<string>> {
  const width = format === 'sha256' ? 32 : 20;
  const own = new Set<string>();
  for (const dir of await fsp.readdir(objects).catch(() => [] as string[])) {
    if (!/^[0-9a-f]{2}$/.test(dir)) continue;
    for (const file of await fsp.readdir(path.join(objects, dir)).catch(() => [] as string[]))
      if (/^[0-9a-f]+$/.test(file)) own.add(`${dir}${file}`);
  }
  for (const name of await packNames(objects)) {
    const index = await fsp.readFile(path.join(objects, 'pack', `${name}.idx`)).catch(() => null);
    // \377tOc, version 2, a 256-entry fan-out whose last entry is the count, then the sorted oids.
    if (index?.readUInt32BE(0) !== 0xff744f63 || index.readUInt32BE(4) !== 2) continue;
    const count = index.readUInt32BE(8 + 255 * 4);
    for (let at = 8 + 1024, n = 0; n < count; n++, at += width)
      own.add(index.subarray(at, at + width).toString('hex'));
  }
  return own;
}

const LOOSE_REFS_MAX = 1000;

/**
 * Incremental gcs add a pack each; past this many, a gc repacks them into one (git's own limit,
 * gc.autoPackLimit, is 50: ours is lower, as each pack is one more index that a lookup of one of the
 * listing's commits may search).
 */
const PACKS_MAX = 20;

const REPACK_CONFIG = ['-c', 'repack.writeBitmaps=false', '-c', 'pack.writeReverseIndex=false'];

const PACK_FILES = ['.pack', '.idx', '.rev', '.bitmap', '.keep', '.promisor'];

/** The packs in the store, by name without extension (`pack-<hash>`). */
async function packNames(objects: string): Promise<Set<string>> {
  const names = await fsp.readdir(path.join(objects, 'pack')).catch(() => [] as string[]);
  return new Set(
    names.filter((name) => name.endsWith('.pack')).map((name) => name.slice(0, -'.pack'.length)),
  );
}

async function packBytes(objects: string, names: readonly string[]): Promise<number> {
  let total = 0;
  for (const name of names)
    for (const extension of PACK_FILES)
      total +=
        (await fsp.lstat(path.join(objects, 'pack', `${name}${extension}`)).catch(() => null))?.size ?? 0;
  return total;
}

/** The index last: a pack git can still see (by its .idx) must keep its data until then. */
async function removePack(objects: string, name: string): Promise<void> {
  for (const extension of ['.bitmap', '.rev', '.pack', '.promisor', '.keep', '.idx'])
    await fsp.rm(path.join(objects, 'pack', `${name}${extension}`), { force: true });
}

/** Loose objects (in the two-hex-digit folders). */
async function looseObjectBytes(objects: string): Promise<number> {
  let total = 0;
  for (const dir of await fsp.readdir(objects).catch(() => [] as string[])) {
    if (!/^[0-9a-f]{2}$/.test(dir)) continue;
    for (const file of await fsp.readdir(path.join(objects, dir)).catch(() => [] as string[]))
      total += (await fsp.lstat(path.join(objects, dir, file)).catch(() => null))?.size ?? 0;
  }
  return total;
}
