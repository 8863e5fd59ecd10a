// Files over the size cap that one snapshot holds all the same: those a destructive command names (`rm
// big.bin`), within heldLimits (see core/snapshot.ts). The pre-command snapshot's tree gets them
// beside what the scan took; the private index is left as it is, so later snapshots leave them out again.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { type FileStamp, HELD_NAMED_MAX_BYTES, type HeldLimits, sameStamp } from '../core/snapshot.js';
import { coveringPathspecs } from './snapshot-diff.js';
import type { StoreGit } from './store-git.js';
import { uniqueSuffix } from './temp-name.js';
import { fileStamp, treeStat } from './tree-stat.js';

/** A file's content in the store, ready to enter a tree. */
export interface HeldFile {
  path: string;
  mode: '100644' | '100755';
  oid: string;
  bytes: number;
  /** Its stamp when it was held from disk, before and after git read it (see storeHeldFiles). */
  stamp?: FileStamp;
}

/**
 * Stores the content of `files` (project-relative) byte for byte (no filter, as the scan stores every
 * file): those that are regular files up to `limits.maxBytes` each and `limits.totalMaxBytes` in all, in
 * the order given. Past `limits.timeLimitMs` it stops git and holds none (its partial objects are
 * unreachable; gc prunes them): the snapshot goes on without them. Security: a link, or a file under a
 * link, is never followed (treeStat looks at every folder on the way).
 */
export async function storeHeldFiles(
  git: StoreGit,
  root: string,
  files: readonly string[],
  limits: HeldLimits,
): Promise<HeldFile[]> {
  const inTree = treeStat(root);
  const wanted: Array<{ path: string; mode: HeldFile['mode']; bytes: number; stamp: FileStamp | null }> = [];
  let total = 0;
  for (const file of files) {
    const stats = file.includes('\n') ? null : inTree(file);
    if (!stats?.isFile() || stats.size > limits.maxBytes || total + stats.size > limits.totalMaxBytes)
      continue;
    total += stats.size;
    wanted.push({
      path: file,
      mode: (stats.mode & 0o111) !== 0 ? '100755' : '100644',
      bytes: stats.size,
      stamp: fileStamp(root, file, stats.size),
    });
  }
  if (wanted.length === 0) return [];
  let pid: number | undefined;
  const hashing = git(['hash-object', '-w', '--no-filters', '--stdin-paths'], {
    input: `${wanted.map((file) => file.path).join('\n')}\n`,
    onSpawn: (id) => {
      pid = id;
    },
  });
  hashing.catch(() => undefined); // awaited below, or given up
  let timer: NodeJS.Timeout | undefined;
  const outOfTime = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), limits.timeLimitMs);
  });
  const done = await Promise.race([hashing, outOfTime]).finally(() => clearTimeout(timer));
  if (done === null) {
    if (pid !== undefined) stopProcess(pid);
    return [];
  }
  const oids = done.stdout.split('\n');
  return wanted
    .map(({ stamp, ...file }, at) => {
      // The stamp says which file git read only if it is the same after: one written meanwhile has none.
      const after = stamp && fileStamp(root, file.path, file.bytes);
      const held: HeldFile = { ...file, oid: (oids[at] ?? '').trim() };
      return stamp && after && sameStamp(stamp, after) ? { ...held, stamp } : held;
    })
    .filter((file) => /^[0-9a-f]{40,64}$/.test(file.oid));
}

/** Stops a git this module started (it may have ended already). */
function stopProcess(pid: number): void {
  try {
    process.kill(pid);
  } catch {
    // Gone already.
  }
}

/**
 * `tree` with `held` in it, written into the store through an index of its own (the store's private one
 * stays as it is: its next scan compares it with the tree it wrote, not with this one).
 */
export async function treeWithHeld(
  git: StoreGit,
  gitDir: string,
  tree: string,
  held: readonly HeldFile[],
): Promise<string> {
  if (held.length === 0) return tree;
  const index = path.join(gitDir, `index-held-${uniqueSuffix()}`);
  // A plain index: the store's config splits its own, which would leave a shared part behind here.
  const run = (args: readonly string[], input?: string) =>
    git(['-c', 'core.splitIndex=false', ...args], {
      extraEnv: { GIT_INDEX_FILE: index },
      ...(input === undefined ? {} : { input }),
    });
  try {
    await run(['read-tree', tree]);
    await run(
      ['update-index', '-z', '--add', '--replace', '--index-info'],
      held.map((file) => `${file.mode} ${file.oid}\t${file.path}\0`).join(''),
    );
    return (await run(['write-tree'])).stdout.trim();
  } finally {
    rmSync(index, { force: true });
    rmSync(`${index}.lock`, { force: true });
  }
}

/**
 * Of `files`, those `tree` holds as regular files, with their mode, oid and size: what a snapshot that held
 * them (the pre-command one) can give another tree (a rewind's target) without reading the disk.
 */
export async function heldFilesIn(
  git: StoreGit,
  tree: string,
  files: readonly string[],
): Promise<HeldFile[]> {
  if (files.length === 0) return [];
  const { stdout } = await git([
    '--literal-pathspecs',
    'ls-tree',
    '-r',
    '-z',
    '-l',
    '--full-tree',
    tree,
    '--',
    ...coveringPathspecs(files),
  ]);
  // Narrowed to those asked: a name that is not valid UTF-8 was asked through its folder (or the tree).
  const wanted = new Set(files);
  const found: HeldFile[] = [];
  for (const line of stdout.split('\0')) {
    const match = /^(100644|100755) blob ([0-9a-f]{40,64}) +(\d+)\t(.*)$/s.exec(line);
    if (match?.[4] === undefined || !wanted.has(match[4])) continue;
    found.push({
      path: match[4],
      mode: match[1] as HeldFile['mode'],
      oid: match[2] as string,
      bytes: Number(match[3]),
    });
  }
  return found;
}

/**
 * Of `files` (a capture left them out, over the size cap), those `tree` holds as a regular file with the
 * same content and mode as on disk now: a snapshot that held them (the pre-command one) compares equal
 * with the working tree, never "deleted" or "to overwrite" (review A). Each is hashed, not stored: its
 * content is in the store already. Only files up to HELD_NAMED_MAX_BYTES, as only those are ever held.
 */
export async function heldUnchangedOnDisk(
  git: StoreGit,
  root: string,
  tree: string,
  files: readonly string[],
): Promise<HeldFile[]> {
  if (files.length === 0) return [];
  const inTree = new Map((await heldFilesIn(git, tree, files)).map((file) => [file.path, file]));
  const onDisk = treeStat(root);
  const candidates: Array<Omit<HeldFile, 'oid'> & { held: string }> = [];
  for (const file of files) {
    const held = inTree.get(file);
    const stats = held && !file.includes('\n') ? onDisk(file) : null;
    if (!held || !stats?.isFile() || stats.size > HELD_NAMED_MAX_BYTES) continue;
    const mode = (stats.mode & 0o111) !== 0 ? '100755' : '100644';
    if (mode === held.mode && stats.size === held.bytes)
      candidates.push({ path: file, mode, bytes: stats.size, held: held.oid });
  }
  if (candidates.length === 0) return [];
  const { stdout } = await git(['hash-object', '--no-filters', '--stdin-paths'], {
    input: `${candidates.map((file) => file.path).join('\n')}\n`,
  });
  const oids = stdout.split('\n').map((oid) => oid.trim());
  return candidates
    .filter((file, at) => oids[at] === file.held)
    .map(({ held, ...file }) => ({ ...file, oid: held }));
}
