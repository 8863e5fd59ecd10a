import { opendirSync, readdirSync, type Stats } from 'node:fs';
import path from 'node:path';
import { CheckpointError } from '../core/errors.js';
import { bytesFromText, fsPath, textFromBytes } from '../core/raw-path.js';
import { type GuardedPath, isRestorablePath, type PlannedChange } from '../core/snapshot.js';
import { formatBytes } from '../core/snapshot-text.js';
import { compareAscii } from '../core/text.js';
import type { CheckpointFiles } from './checkpoint-store.js';
import { treeStat } from './tree-stat.js';
import type { TreeChange } from './worktree-writer.js';

/** What a snapshot kept aside: entries to write back, and paths to remove (they did not exist). */
export interface AsideContent {
  entries: ReadonlyArray<{ path: string; mode: string; oid: string }>;
  /**
   * The checkpoint file's text the restore after the snapshot replaced (null: there was none, it wrote
   * one): restoring the snapshot writes it back (removes the one written). Absent: not the restore's.
   */
  checkpoint?: string | null;
  /**
   * The checkpoint file and its backup as the restore after the snapshot found them, byte for byte (a
   * damaged one too): restoring the snapshot puts both back. Absent: not the restore's, or an older one's.
   */
  checkpointFiles?: CheckpointFiles;
  /** Paths the restore after the snapshot created where nothing was: restoring the snapshot removes them. */
  created: readonly string[];
  /**
   * Paths that were there but not in the snapshot (ignored, over the cap; a folder ends with `/`), listed
   * when the restore changed ignore rules: restoring the snapshot must not delete them.
   */
  unheld?: readonly string[];
  /**
   * Empty folders the restore after the snapshot removed (a file or link took their place) or wrote
   * into: git holds no folders, so restoring the snapshot makes them again.
   */
  folders?: readonly string[];
}

/** One path no snapshot holds that a restore is about to change: copied into the store first. */
export interface KeptLeaf {
  path: string;
  bytes: number;
  reason: string;
}

export interface GuardLimits {
  /** The snapshot size cap: files over it are never in a snapshot. */
  maxFileBytes: number;
  keepAsideMaxBytes: number;
  keepAsideMaxFiles: number;
}

export interface GuardedRestore {
  /** What the writer does: the changes that passed, with the target's kept-aside content merged in. */
  changes: TreeChange[];
  planned: PlannedChange[];
  keep: KeptLeaf[];
  /** Paths the restore writes where nothing exists now. */
  created: string[];
  refused: GuardedPath[];
  /** Empty folders on disk now that the restore removes (`removed`) or writes into: undo makes them again. */
  emptyFolders: Array<{ path: string; removed: boolean }>;
  /** Empty folders to make after the changes: those the target's undo record names. */
  folders: string[];
}

/** Names longer than this many bytes are refused by the file systems git runs on (ext4, APFS, NTFS). */
const NAME_MAX_BYTES = 255;

/**
 * Checks a restore against the disk before anything changes. The safety snapshot holds what `git status`
 * sees; a restore must also never destroy what it does not hold (ignored files and folders, files over
 * the size cap, nested repositories, submodules). Such a path is either kept aside (copied into the store
 * with the safety snapshot, within limits) or its change is refused, and the plan names each one.
 *
 * `changes` go from the safety snapshot's tree to the target's; `isHeld` says whether that tree holds a
 * path. Reads the disk (lstat, readdir) and never writes.
 */
export function guardRestore(
  root: string,
  changes: readonly TreeChange[],
  targetAside: AsideContent | null,
  isHeld: (file: string) => boolean,
  limits: GuardLimits,
  /** Paths the target did not hold although they were there (see AsideContent.unheld): never deleted. */
  wasUnheld: (file: string) => boolean = () => false,
): GuardedRestore {
  const byPath = new Map<string, TreeChange>();
  for (const change of changes) byPath.set(change.path, change);
  // Undoing a restore: what it kept aside is written back, what it created is removed.
  for (const entry of targetAside?.entries ?? []) {
    byPath.set(entry.path, {
      path: entry.path,
      status: 'M',
      beforeMode: '000000',
      afterMode: entry.mode,
      beforeOid: '',
      afterOid: entry.oid,
    });
  }
  for (const file of targetAside?.created ?? []) {
    if (!byPath.has(file))
      byPath.set(file, {
        path: file,
        status: 'D',
        beforeMode: '000000',
        afterMode: '000000',
        beforeOid: '',
        afterOid: '',
      });
  }
  const folders = [...new Set(targetAside?.folders ?? [])].sort(compareAscii);
  for (const file of [...byPath.keys(), ...folders]) {
    // Security: a crafted snapshot or handoff is refused whole, before the disk is even looked at.
    if (!isRestorablePath(file))
      throw new CheckpointError(
        'UNSAFE_PATH',
        `refusing to restore '${file}': it would leave the project or touch .git`,
      );
  }
  const probe = createProbe(root);
  // A folder the target's undo record makes again, where a file now stands that no change here touches
  // (one over the size cap or ignored, which no tree holds): that file goes, kept aside like any other.
  // The target not holding that path speaks of the folder that was there, not of this file.
  const inFoldersWay = new Set<string>();
  for (const folder of folders) {
    const parts = folder.split('/');
    for (let depth = 1; depth <= parts.length; depth++) {
      const dir = parts.slice(0, depth).join('/');
      const stats = probe.stat(dir);
      if (stats === null) break;
      if (stats.isDirectory()) continue;
      inFoldersWay.add(dir);
      if (!byPath.has(dir))
        byPath.set(dir, {
          path: dir,
          status: 'D',
          beforeMode: '000000',
          afterMode: '000000',
          beforeOid: '',
          afterOid: '',
        });
      break;
    }
  }
  // A path the restore writes under, that is no folder on disk now (a symbolic link, a file) and that no
  // change here touches (a restore of some paths: its pathspecs do not reach it): it goes first, as a
  // change of the plan, so the plan names it and the undo brings it back; nothing is written through it
  // (helper task, issue 26: restoring lib/a.txt removed the link lib unsaid, and its undo lost the link).
  for (const change of [...byPath.values()]) {
    if (change.afterMode === '000000') continue;
    const parts = change.path.split('/');
    for (let depth = 1; depth < parts.length; depth++) {
      const dir = parts.slice(0, depth).join('/');
      if (byPath.has(dir)) break;
      const stats = probe.stat(dir);
      if (stats === null) break;
      if (stats.isDirectory()) continue;
      byPath.set(dir, {
        path: dir,
        status: 'D',
        beforeMode: stats.isSymbolicLink() ? '120000' : '000000',
        afterMode: '000000',
        beforeOid: '',
        afterOid: '',
      });
      break;
    }
  }
  const result: GuardedRestore = {
    changes: [],
    planned: [],
    keep: [],
    created: [],
    refused: [],
    emptyFolders: [],
    folders,
  };
  const kept = new Set<string>();
  const emptyFolders = new Map<string, boolean>();
  let keptBytes = 0;
  const createdByTarget = new Set(targetAside?.created ?? []);
  // Paths refused: what is under them is left as it is too (audit item 11: a folder refused "left as
  // it is" lost its small files). Sorted, a folder comes before everything under it.
  const refusedPaths: string[] = [];
  const refuse = (file: string, reason: string) => {
    result.refused.push({ path: file, reason });
    refusedPaths.push(`${file}/`);
  };
  for (const change of [...byPath.values()].sort((a, b) => compareAscii(a.path, b.path))) {
    const under = refusedPaths.find((folder) => change.path.startsWith(folder));
    if (under !== undefined) {
      result.refused.push({
        path: change.path,
        reason: `inside '${under.slice(0, -1)}', which is refused and so left as it is, whole`,
      });
      continue;
    }
    if (
      change.status === 'D' &&
      !createdByTarget.has(change.path) &&
      !inFoldersWay.has(change.path) &&
      wasUnheld(change.path)
    ) {
      refuse(
        change.path,
        'the snapshot did not hold it (ignored or over the size cap when it was taken), so it is not deleted',
      );
      continue;
    }
    const verdict = inspect(change, probe, isHeld, limits);
    if ('refused' in verdict) {
      refuse(change.path, verdict.refused);
      continue;
    }
    const fresh = verdict.unheld.filter((leaf) => !kept.has(leaf.path));
    const bytes = fresh.reduce((sum, leaf) => sum + leaf.bytes, 0);
    const freshFolders = verdict.emptyFolders.filter((folder) => !emptyFolders.has(folder.path));
    if (
      keptBytes + bytes > limits.keepAsideMaxBytes ||
      kept.size + emptyFolders.size + fresh.length + freshFolders.length > limits.keepAsideMaxFiles
    ) {
      const what = fresh.length === 1 ? `'${fresh[0]?.path}' (${fresh[0]?.reason})` : `${fresh.length} files`;
      refuse(
        change.path,
        `it would replace ${what} that no snapshot holds, over what a restore keeps aside (${formatBytes(limits.keepAsideMaxBytes)}, ${limits.keepAsideMaxFiles} files)`,
      );
      continue;
    }
    for (const leaf of fresh) {
      kept.add(leaf.path);
      result.keep.push(leaf);
    }
    for (const folder of verdict.emptyFolders)
      emptyFolders.set(folder.path, (emptyFolders.get(folder.path) ?? false) || folder.removed);
    keptBytes += bytes;
    result.changes.push(change);
    const exists = verdict.exists;
    if (change.status === 'D') {
      if (exists) result.planned.push({ path: change.path, action: 'delete' });
    } else if (change.afterMode !== '160000') {
      result.planned.push({ path: change.path, action: exists ? 'overwrite' : 'create' });
      if (!exists) result.created.push(change.path);
    }
  }
  result.emptyFolders = [...emptyFolders]
    .map(([folder, removed]) => ({ path: folder, removed }))
    .sort((a, b) => compareAscii(a.path, b.path));
  return result;
}

type Verdict =
  | { refused: string }
  | { unheld: KeptLeaf[]; emptyFolders: Array<{ path: string; removed: boolean }>; exists: boolean };

function inspect(
  change: TreeChange,
  probe: Probe,
  isHeld: (file: string) => boolean,
  limits: GuardLimits,
): Verdict {
  const removesGitlink = change.beforeMode === '160000' && (change.status === 'D' || change.status === 'T');
  if (removesGitlink)
    return { refused: 'a submodule: its own repository, which no snapshot holds; left as it is' };
  // Security: a submodule (gitlink) in the target where this tree has a file or a folder (a crafted
  // handoff, audit item 12): a restore never checks one out, so what stands there is left as it is,
  // whole (never deleted to make way for nothing).
  if (change.afterMode === '160000' && change.beforeMode !== '160000' && probe.stat(change.path) !== null)
    return {
      refused:
        'a submodule (gitlink) in what is restored, where this tree has a file or folder: a restore never checks out a submodule, so it is left as it is',
    };
  const writes = change.status !== 'D' && change.afterMode !== '160000';
  if (!writes && change.status !== 'D')
    return { unheld: [], emptyFolders: [], exists: probe.stat(change.path) !== null };
  const unheld: KeptLeaf[] = [];
  const reasonOf = (stats: Stats) =>
    stats.isFile() && stats.size > limits.maxFileBytes
      ? `over the snapshot size cap (${formatBytes(stats.size)})`
      : 'ignored here, so in no snapshot';
  const parts = change.path.split('/');
  if (writes && parts.some((part) => bytesFromText(part).length > NAME_MAX_BYTES))
    return { refused: `a name longer than ${NAME_MAX_BYTES} bytes, which this file system does not allow` };
  // The folders on the way: a nested repository is never written into, nor deleted from (a folder the
  // store's index still had entries under when it became one lets its files into a snapshot, and an
  // undo, which never writes there, could not bring them back); a file standing where a folder must go
  // is replaced, so it must be held or kept aside.
  for (let depth = 1; depth < parts.length; depth++) {
    const dir = parts.slice(0, depth).join('/');
    const stats = probe.stat(dir);
    if (stats === null) break;
    if (stats.isDirectory()) {
      if (probe.stat(`${dir}/.git`) !== null)
        return { refused: `inside '${dir}', a nested git repository, which no snapshot holds` };
      continue;
    }
    if (writes && !isHeld(dir)) unheld.push({ path: dir, bytes: stats.size, reason: reasonOf(stats) });
    break;
  }
  const stats = probe.stat(change.path);
  if (stats === null) {
    // An empty folder written into (or holding a path deleted that is not there) is emptied again, and
    // removed, when that is undone: undo makes it again.
    const folder = emptyAncestor(probe, change.path);
    return { unheld, emptyFolders: folder === null ? [] : [{ path: folder, removed: false }], exists: false };
  }
  if (!stats.isDirectory()) {
    if (!isHeld(change.path)) unheld.push({ path: change.path, bytes: stats.size, reason: reasonOf(stats) });
    return { unheld, emptyFolders: [], exists: true };
  }
  // A folder where a file goes (or where a file was deleted): everything in it goes.
  const walked = walkFolder(probe, change.path);
  if (walked.nested !== null)
    return {
      refused:
        walked.nested === change.path
          ? 'a nested git repository (a folder with its own .git), which no snapshot holds; left as it is'
          : `the folder holds '${walked.nested}', a nested git repository, which no snapshot holds; left as it is`,
    };
  for (const leaf of walked.leaves) {
    if (!isHeld(leaf.path)) unheld.push({ ...leaf, reason: reasonOf(leaf.stats) });
  }
  return {
    unheld,
    emptyFolders: walked.emptyFolders.map((folder) => ({ path: folder, removed: true })),
    exists: true,
  };
}

/** The deepest folder on the way to `file` when it is empty (the folders above it hold it), else null. */
function emptyAncestor(probe: Probe, file: string): string | null {
  const parts = file.split('/');
  let deepest: string | null = null;
  for (let depth = 1; depth < parts.length; depth++) {
    const dir = parts.slice(0, depth).join('/');
    if (!probe.stat(dir)?.isDirectory()) break;
    deepest = dir;
  }
  return deepest !== null && probe.isEmpty(deepest) ? deepest : null;
}

interface Probe {
  root: string;
  stat(file: string): Stats | null;
  /** Whether a folder has nothing in it (read one entry, not the whole folder). */
  isEmpty(dir: string): boolean;
}

/** The tree's paths as a restore sees them: see treeStat, and emptiness read once per folder. */
function createProbe(root: string): Probe {
  const stat = treeStat(root);
  const emptiness = new Map<string, boolean>();
  return {
    root,
    stat,
    isEmpty(dir) {
      let empty = emptiness.get(dir);
      if (empty === undefined) {
        try {
          const handle = opendirSync(fsPath(path.join(root, dir)));
          try {
            empty = handle.readSync() === null;
          } finally {
            handle.closeSync();
          }
        } catch {
          empty = false;
        }
        emptiness.set(dir, empty);
      }
      return empty;
    },
  };
}

/**
 * Every file and symlink under a folder (links never followed) and every empty folder in it (itself
 * too), or the first nested repository in it.
 */
function walkFolder(
  probe: Probe,
  dir: string,
): {
  leaves: Array<{ path: string; bytes: number; stats: Stats }>;
  emptyFolders: string[];
  nested: string | null;
} {
  const leaves: Array<{ path: string; bytes: number; stats: Stats }> = [];
  const emptyFolders: string[] = [];
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    let names: string[];
    try {
      // As bytes: a name that is not valid UTF-8 stays the name it is (see raw-path.ts).
      names = readdirSync(fsPath(path.join(probe.root, current)), { encoding: 'buffer' }).map(textFromBytes);
    } catch {
      continue;
    }
    if (names.some((name) => name.toLowerCase() === '.git')) return { leaves, emptyFolders, nested: current };
    if (names.length === 0) emptyFolders.push(current);
    for (const name of names) {
      const file = `${current}/${name}`;
      const stats = probe.stat(file);
      if (stats === null) continue;
      if (stats.isDirectory()) pending.push(file);
      else leaves.push({ path: file, bytes: stats.size, stats });
    }
  }
  return { leaves, emptyFolders, nested: null };
}
