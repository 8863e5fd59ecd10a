import {
  closeSync,
  constants,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  type Stats,
  statSync,
} from 'node:fs';
import path from 'node:path';
import { includeMatcher, includePathspecs } from '../core/include-ignored.js';
import { isOwnFile } from '../core/paths.js';
import { clipMiddle } from '../core/quote.js';
import { bytesFromText, fsPath, hasRawBytes } from '../core/raw-path.js';
import type { ChangeCounts, SnapshotMeta, SnapshotSettings } from '../core/snapshot.js';
import { wouldLoadCrypto } from '../git/hash.js';
import type { ObjectFormat } from '../git/oid.js';
import { runGit } from '../git/run.js';
import { parseStatusV2, parseUnreadableFolders } from '../git/status.js';
import { writeFileAtomicSync } from './atomic-write.js';
import { globalExcludesChanged } from './global-excludes.js';
import { inheritedIgnoreRules, repositoryTop } from './inherited-ignores.js';
import { heldUnder, nestedReposAbove } from './nested-repos.js';
import { storeChangedBlobs } from './snapshot-blobs.js';
import { countChanges, coveringPathspecs, isUnder } from './snapshot-diff.js';
import { isNewSharedIndexDue, NEW_SHARED_INDEX_ARGS } from './split-index.js';
import { removeLeftIndexFiles, type StoreGit, takeEarlyScan } from './store-git.js';
import { dropLostEntries, isMissingObjectError } from './store-repair.js';
import { SCAN_ARGS } from './store-scan.js';
import { readState, type StoreState, writeState } from './store-state.js';
import { isOurPath } from './store-within.js';
import { fileStamp, treeStat } from './tree-stat.js';
import { RESTORE_TEMP_PREFIX } from './worktree-writer.js';

/** Told once the working tree has been read, with what the capture left out (see captureTree). */
export type WorktreeRead = (
  leftOut: Pick<SnapshotMeta['skipped'], 'large' | 'nested' | 'unreadable'>,
) => void;

export interface CaptureResult {
  tree: string;
  changes: ChangeCounts;
  skipped: SnapshotMeta['skipped'];
  /**
   * What this capture may have added to the store, at most: the bytes of the files it read (before
   * compression) and the trees above the changed paths (see treeBytesAbove and store-usage.ts).
   */
  addedBytes: number;
  /** Files over the size cap the tree holds all the same, with their stamp when held (see withHeld). */
  held?: SnapshotMeta['held'];
}

/** Raw bytes in and out: no EOL conversion, no LFS or other filters, whatever the project's attributes say. */
const RAW_ATTRIBUTES = '* -text -eol -filter -ident -working-tree-encoding\n';
const OWN_EXCLUDES = `/.claude-checkpoint\n/.claude-checkpoint.*\n${RESTORE_TEMP_PREFIX}*\n`;

/** What a capture is doing, for progress on a terminal: a phase, and for `storing`, files stored of all. */
export type CaptureProgress = (
  phase: 'scanning' | 'storing' | 'writing the tree',
  done?: number,
  total?: number,
) => void;

/**
 * Bumped when a fix changes what leaves the index as ignored: a store checked under an older number
 * may hold ignored files (trial report of 2026-12-06, item 5: an ignored .env taken in after a dry
 * run), and has its index checked against the rules once.
 */
const IGNORE_CHECK = 1;

/** Fewer files than this are stored in well under a second: no count. */
const PROGRESS_MIN_FILES = 1000;

/**
 * A tree entry's bytes besides its name: a mode of up to 6 digits, a space, a NUL and an object id of
 * up to 32 bytes (SHA-256). A tree object adds a header, and zlib a few bytes (more only where it cannot
 * compress, never past the bytes it was given plus a little): TREE_OBJECT_BYTES covers both.
 */
const TREE_ENTRY_BYTES = 40;
const TREE_OBJECT_BYTES = 64;
/** A folder that cannot be listed (a name git keeps that the disk does not take): a tree of 100 entries. */
const TREE_BYTES_UNLISTED = 4096;

/**
 * What the trees above these paths may take in the store, at most: a changed path rewrites every tree
 * above it whole, and a tree holds an entry per name in its folder. Counted from the folder as it is on
 * disk, which holds every entry its tree does and more (ignored files); a folder that is gone has no
 * tree. A fixed allowance per folder undercounted a folder of 10,000 files 50-fold (review), so that a
 * store passed its cap unnoticed. `unreachable`: the folders whose path, with the project's own in front,
 * is too long to look at (past PATH_MAX, where git reads them from the project), and those under them:
 * their trees are sized from git's (see unreachableTreeBytes). Counted while git runs: never throws.
 */
function treeBytesAbove(root: string, paths: readonly string[]): { bytes: number; unreachable: string[] } {
  const folders = new Set<string>(['.']);
  for (const file of paths)
    for (let dir = path.posix.dirname(file); dir !== '.' && !folders.has(dir); dir = path.posix.dirname(dir))
      folders.add(dir);
  // Outermost first, so that a folder under one that is now a link (or gone) is never listed through it:
  // that link's target lies outside the project, and its tree is no folder's.
  const ordered = [...folders].sort((a, b) => a.split('/').length - b.split('/').length);
  const notFolders = new Set<string>();
  const unreachable = new Set<string>();
  let bytes = 0;
  for (const folder of ordered) {
    const parent = path.posix.dirname(folder);
    if (notFolders.has(parent)) {
      notFolders.add(folder);
      continue;
    }
    if (unreachable.has(parent)) {
      unreachable.add(folder);
      continue;
    }
    const full = fsPath(folder === '.' ? root : `${root}/${folder}`);
    let isFolder = true;
    try {
      if (folder !== '.') isFolder = lstatSync(full, { throwIfNoEntry: false })?.isDirectory() === true;
    } catch {
      unreachable.add(folder);
      continue;
    }
    if (!isFolder) {
      notFolders.add(folder);
      continue;
    }
    let names: Buffer[];
    try {
      names = readdirSync(full, { encoding: 'buffer' });
    } catch {
      bytes += TREE_BYTES_UNLISTED;
      continue;
    }
    bytes += TREE_OBJECT_BYTES;
    for (const name of names) bytes += name.length + TREE_ENTRY_BYTES;
  }
  return { bytes, unreachable: [...unreachable] };
}

/**
 * The bytes of the trees `tree` holds for folders too long to look at from here (see treeBytesAbove),
 * from one `git cat-file --batch-check`: git reads them from the project. A folder the tree does not hold
 * has none; where git cannot say (a name with a newline, git failing), a fixed allowance.
 */
async function unreachableTreeBytes(
  git: StoreGit,
  tree: string,
  folders: readonly string[],
): Promise<number> {
  const asked = folders.filter((folder) => !folder.includes('\n'));
  let bytes = (folders.length - asked.length) * TREE_BYTES_UNLISTED;
  if (asked.length === 0) return bytes;
  try {
    const { stdout } = await git(['cat-file', '--batch-check=%(objecttype) %(objectsize)'], {
      input: asked.map((folder) => `${tree}:${folder}\n`).join(''),
    });
    const lines = stdout.split('\n');
    asked.forEach((_, at) => {
      const [type, size] = (lines[at] ?? '').split(' ');
      if (type === 'tree' && Number.isSafeInteger(Number(size))) bytes += Number(size) + TREE_OBJECT_BYTES;
      else if (!(lines[at] ?? '').endsWith(' missing')) bytes += TREE_BYTES_UNLISTED;
    });
  } catch {
    bytes += asked.length * TREE_BYTES_UNLISTED;
  }
  return bytes;
}

export interface CaptureTarget {
  root: string;
  gitDir: string;
  statePath: string;
  settings: SnapshotSettings;
  git: StoreGit;
  /** The store's object format, once known: small batches of changes are then stored without git. */
  objectFormat?: ObjectFormat | undefined;
  /** Our folders inside the project (the store's, the user's settings), never captured (see ourFoldersWithin). */
  ourFolders?: readonly string[] | undefined;
  /** The store folder's stamp from just before this process took the lock at its first try (see takeEarlyScan). */
  lockedFrom?: string | null | undefined;
}

/**
 * Brings the private index up to date with the working tree and writes its tree, then counts what
 * changed since `baseTree` (the latest snapshot's). One `git status` in the store finds what changed:
 * its index is tuned for many files (v4, untracked cache, split index, no checksum) and its HEAD is the latest
 * snapshot, so the scan is cheaper than the user's own `git status`. Only the changed paths are then
 * read (a few by us, see storeChangedBlobs; more by git), and an unchanged tree costs nothing more.
 * Files over the size cap and nested repositories are left out, excluded from then on, and reported
 * with every snapshot.
 *
 * `onWorktreeRead` is called once the working tree has been read: every changed file's content is in the
 * store by then, and what follows (the tree, the state) reads and writes only the store, so an edit made
 * after the call cannot reach this capture. It is told what the capture leaves out (files over the size
 * cap, nested repositories, folders git cannot read), as the result will list it, so a caller can say
 * so before it answers.
 */
export async function captureTree(
  target: CaptureTarget,
  baseTree?: string,
  onWorktreeRead?: WorktreeRead,
  onProgress?: CaptureProgress,
): Promise<CaptureResult> {
  const { root, git } = target;
  const inTree = treeStat(root);
  const scan = () => git(SCAN_ARGS);
  // Once there is a snapshot (the store has scanned before), the scan starts at once and the exclusion
  // rules are brought up to date beside it: they almost never change, and when they do, the scan runs
  // again under the new rules. A new store's first scan waits for its rules instead. A scan the CLI's
  // loader started before the lock is taken over where nothing wrote the store since; should it fail,
  // the scan runs as always.
  onProgress?.('scanning');
  const started = takeEarlyScan(target.gitDir, root, baseTree !== undefined, target.lockedFrom ?? null);
  removeLeftIndexFiles(target.gitDir);
  const early = baseTree !== undefined ? (started?.catch(() => scan()) ?? scan()) : null;
  early?.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
  const state = await readState(target.statePath);
  const remembered = () =>
    JSON.stringify([
      state.index,
      state.exclusions,
      state.includeIgnored,
      state.maxFileBytes,
      state.globalExcludes,
      state.unreadable,
      state.ignoreCheck,
      state.ignoreFiles,
    ]);
  const stored = remembered();
  // A store whose index was never checked against the ignore rules since a fix is checked once, and
  // learns the excludes file from the project's own config too.
  const isUnchecked = baseTree !== undefined && state.ignoreCheck !== IGNORE_CHECK;
  if (state.ignoreCheck !== IGNORE_CHECK) delete state.globalExcludes;
  state.ignoreCheck = IGNORE_CHECK;
  await refreshExclusions(target, state);
  const top = await repositoryTop(root);
  const excludesChanged = await globalExcludesChanged(
    (args) => runGit(args, { cwd: top, okExitCodes: [0, 1, 128] }),
    top,
    state,
  );
  // Every rule from outside the tree, the excludes file included, is in the store's info/exclude: a
  // change to any of them changes that file, and the scan runs again under the new rules.
  const outside = await inheritedIgnoreRules(
    root,
    state.globalExcludes ? path.resolve(top, state.globalExcludes.file) : null,
  );
  const rulesChanged = await syncInfo(target, state.exclusions, outside);
  const exclusionsBefore = JSON.stringify(state.exclusions);
  // Read-only listings beside the scan: they take no index lock.
  const including = includedIgnored(target, state, rulesChanged || excludesChanged || isUnchecked);
  including.catch(() => undefined); // awaited below
  const overCap = indexedOverCap(target, state);
  overCap.catch(() => undefined); // awaited below
  let scanned: Awaited<ReturnType<StoreGit>>;
  if (early && !rulesChanged) scanned = await early;
  else {
    await early?.catch(() => undefined); // never two scans of one index at once
    scanned = await scan();
  }
  // A name that is not valid UTF-8 is a string like any other here, its bytes kept (see raw-path.ts).
  const isStore = (file: string) => isOurPath(file, target.ourFolders ?? []);
  // Security: our own files are never the project's, even where the project's git tracks them.
  const entries = parseStatusV2(scanned.stdout).entries.filter((entry) => !isStore(entry.path));
  const included = await including;
  included.add = included.add.filter((file) => !isStore(file));
  // A changed .gitignore may ignore files the index holds, which git's scan goes on reporting as tracked.
  // One the index does not hold because it ignores itself (`*`, as tool caches write) is not in the
  // scan: the .gitignore files above the tracked files taken in again are compared with those last
  // checked.
  const retaken = entries.filter((entry) => entry.status !== '??' && !entry.isSubmodule);
  const rulesAbove = ignoreFilesAbove(
    retaken.map((entry) => entry.path),
    inTree,
  );
  const checkedRules = state.ignoreFiles ?? {};
  const isRuleUnseen = [...rulesAbove].some(([file, stamp]) => checkedRules[file] !== stamp);
  const nowIgnored =
    included.drop ??
    (isRuleUnseen || entries.some((entry) => isIgnoreFile(entry.path)) ? await ignoredInIndex(target) : null);
  if (nowIgnored !== null && rulesAbove.size > 0) {
    const merged = { ...checkedRules, ...Object.fromEntries(rulesAbove) };
    state.ignoreFiles =
      Object.keys(merged).length > MAX_IGNORE_FILES ? Object.fromEntries(rulesAbove) : merged;
  }
  /** `inBase`: counted as modified (else as added), which a file found over the cap after all is not. */
  const toAdd: Array<{ path: string; bytes: number; inBase: boolean }> = [];
  const toDrop: string[] = [];
  /** Paths this capture has dealt with already, which the scan may report as well. */
  const settled = new Set<string>();
  const exclude = (file: string, bytes: number, tracked: boolean) => {
    state.exclusions.large = state.exclusions.large.filter((entry) => entry.path !== file);
    state.exclusions.large.push({ path: file, bytes, ...fileStamp(root, file, bytes) });
    if (tracked) toDrop.push(file);
    settled.add(file);
  };
  // Counted against HEAD, which is the latest snapshot: what was in it (headOid) and what is there now.
  const counts: ChangeCounts = { added: 0, modified: 0, deleted: 0 };
  let isLinkSwapped = false;
  const scannedEntry = new Map(entries.map((entry) => [entry.path, entry]));
  // A path the scan does not report is in the index as in HEAD: in the latest snapshot.
  const inLatest = (file: string) => {
    const entry = scannedEntry.get(file);
    return entry === undefined || entry.headOid !== null;
  };
  // A folder the index holds entries under is scanned by git even once it is a repository of its own:
  // it leaves the snapshot and is listed as nested, as one that appears where the index held nothing,
  // and what the index held in it leaves too, counted as deleted (as in a folder that became ignored).
  const nestedNow = nestedReposAbove(
    root,
    entries.map((entry) => entry.path),
    inTree,
  );
  const isInNested = (file: string) => nestedNow.length > 0 && isUnder(file, nestedNow);
  for (const dir of nestedNow) if (!state.exclusions.nested.includes(dir)) state.exclusions.nested.push(dir);
  for (const held of nestedNow.length > 0 ? await heldUnder(git, nestedNow) : []) {
    toDrop.push(held.path);
    settled.add(held.path);
    // Submodules are not counted (see countChanges).
    if (!held.isSubmodule && inLatest(held.path)) counts.deleted++;
  }
  for (const file of nowIgnored ?? []) {
    if (settled.has(file)) continue;
    toDrop.push(file);
    settled.add(file);
    if (inLatest(file)) counts.deleted++;
  }
  // Over the cap, a file is listed as skipped with the snapshot, not counted as deleted (docs/rewind.md).
  for (const file of await overCap) {
    if (settled.has(file)) continue;
    const stats = inTree(file);
    if (stats?.isFile() && stats.size > target.settings.maxFileBytes) exclude(file, stats.size, true);
  }
  for (const entry of entries) {
    if (entry.isSubmodule || settled.has(entry.path)) continue;
    if (isInNested(entry.path)) {
      // Not held by the index (a capture that recorded no snapshot, a restore's plan, dropped it): still
      // a deletion since the latest snapshot.
      if (entry.headOid !== null) counts.deleted++;
      continue;
    }
    const untracked = entry.status === '??';
    if (untracked && entry.path.endsWith('/')) {
      // git does not descend into another repository: a nested repo, skipped visibly.
      const dir = entry.path.slice(0, -1);
      if (!state.exclusions.nested.includes(dir)) state.exclusions.nested.push(dir);
      continue;
    }
    const inBase = entry.headOid !== null;
    const stats = inTree(entry.path);
    if (!stats || stats.isDirectory()) {
      if (!untracked) toDrop.push(entry.path);
      if (inBase) counts.deleted++;
    } else if (stats.isFile() && stats.size > target.settings.maxFileBytes) {
      exclude(entry.path, stats.size, !untracked);
    } else if (entry.status === 'D') {
      // Security: deleted yet on disk, the index no longer holds it (a capture that recorded no snapshot,
      // such as a restore's plan, dropped it) and git's scan did not list it as untracked: it is ignored
      // now, and stays out (trial report of 2026-12-06, item 5).
      if (inBase) counts.deleted++;
    } else {
      toAdd.push({ path: entry.path, bytes: stats.size, inBase });
      if (inBase) counts.modified++;
      else counts.added++;
      // A file and a link swapped: one may be a link to itself, a file lost or back (see self-link.ts),
      // which the exact count below tells.
      if (inBase && stats.isSymbolicLink() !== (entry.headMode === '120000')) isLinkSwapped = true;
    }
  }
  for (const file of included.add) {
    if (isInNested(file)) continue;
    const stats = inTree(file);
    if (!stats || !(stats.isFile() || stats.isSymbolicLink())) continue;
    if (stats.isFile() && stats.size > target.settings.maxFileBytes) exclude(file, stats.size, false);
    else {
      toAdd.push({ path: file, bytes: stats.size, inBase: false });
      counts.added++;
    }
  }
  // Folders git could not open are left out of its scan with a warning only, and only the first time
  // (its untracked cache remembers them): kept in the state while they are there, said with each snapshot.
  // Known before the content is taken, so the caller told then (onWorktreeRead) hears of them too.
  const warned = parseUnreadableFolders(scanned.stderr);
  const unreadableNow = [
    ...warned,
    ...(state.unreadable ?? []).filter(
      (folder) => !warned.some((seen) => seen.path === folder.path) && isStillThere(root, folder.path),
    ),
  ];
  // At most MAX_UNREADABLE_LISTED in each snapshot's record (a review: 300 such folders made every
  // snapshot 30 KB bigger); the state keeps them all, so each is still said while it lasts.
  const unreadable = unreadableNow.slice(0, MAX_UNREADABLE_LISTED).map((folder) => ({
    path: clipMiddle(folder.path),
    reason: unreadableReason(folder.error),
  }));
  const leftOutNow = () => ({
    large: [...state.exclusions.large],
    nested: [...state.exclusions.nested],
    ...(unreadable.length > 0 ? { unreadable } : {}),
  });
  const indexChanged = toAdd.length > 0 || toDrop.length > 0;
  // Whether the tree's index write starts a new shared index: told now, with the entries this update
  // adds, so that no check runs between update-index and write-tree.
  const isNewSharedIndex = indexChanged && isNewSharedIndexDue(target.gitDir, toAdd.length);
  // Read here to drop paths in the same git call, or for a caller that answers once the content is taken
  // (onWorktreeRead) in a process that hashes without loading node:crypto (a server, whose modules are
  // loaded, or a batch within JavaScript's budget). Otherwise git reads them in the update-index it runs
  // anyway, which is then also when the content is taken: loading node:crypto (and zlib) was a tenth of
  // a snapshot in its own process (issue 26), and git also records the files' stat data, which spares
  // the next scan hashing them again.
  const batchBytes = toAdd.reduce((sum, entry) => sum + entry.bytes, 0);
  const readHere = toDrop.length > 0 || (onWorktreeRead !== undefined && !wouldLoadCrypto(batchBytes));
  const records =
    indexChanged && target.objectFormat && readHere
      ? await storeChangedBlobs(
          { root, gitDir: target.gitDir, format: target.objectFormat },
          toDrop,
          toAdd,
          target.settings.maxFileBytes,
        )
      : null;
  if (records !== null) {
    // The content is in the store already: the index is bookkeeping from here.
    onWorktreeRead?.(leftOutNow());
    await git(['update-index', '-z', '--replace', '--index-info'], { input: records });
  } else {
    if (toDrop.length > 0) {
      // Drop first: a file that became a folder must leave the index before the folder's files enter it.
      await git(['update-index', '-z', '--force-remove', '--stdin'], { input: nulJoin(toDrop) });
    }
    if (toAdd.length > 0) {
      const paths = toAdd.map((entry) => entry.path);
      const dropped: string[] = [];
      // git names each file it stores with --verbose: counted for progress on a long first snapshot.
      const counting = onProgress && paths.length >= PROGRESS_MIN_FILES;
      let done = 0;
      if (counting) onProgress('storing', 0, paths.length);
      await git(
        [
          'update-index',
          '-z',
          '--add',
          '--remove',
          '--replace',
          ...(counting ? ['--verbose'] : []),
          '--stdin',
        ],
        {
          input: nulJoin(paths),
          ...(counting
            ? {
                onStdout: (chunk: Buffer) => {
                  for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) done++;
                  onProgress('storing', Math.min(done, paths.length), paths.length);
                },
              }
            : {}),
        },
      );
      // git stores a file as it is when it reads it, whatever its size: one that grew past the cap since
      // the scan leaves the index again, skipped like any file over the cap.
      for (const grown of await grownPastCap(git, root, toAdd, target.settings.maxFileBytes)) {
        exclude(grown.path, grown.bytes, false);
        const entry = toAdd.find((added) => added.path === grown.path);
        if (entry?.inBase) counts.modified--;
        else counts.added--;
        dropped.push(grown.path);
      }
      if (dropped.length > 0)
        await git(['update-index', '-z', '--force-remove', '--stdin'], { input: nulJoin(dropped) });
    }
    onWorktreeRead?.(leftOutNow());
  }
  // Paths excluded just now: from the next scan on, git leaves them out.
  if (JSON.stringify(state.exclusions) !== exclusionsBefore)
    await syncInfo(target, state.exclusions, outside);
  if (indexChanged) onProgress?.('writing the tree');
  const writing = !indexChanged && state.index ? null : writeTree(git, root, isNewSharedIndex);
  writing?.catch(() => undefined); // awaited below
  // Counted while git writes the tree: the folders' listings need nothing git does.
  const above = indexChanged
    ? treeBytesAbove(root, [...toAdd.map((entry) => entry.path), ...toDrop])
    : { bytes: 0, unreachable: [] };
  const written = await writing;
  const tree = written?.tree ?? (state.index?.tree as string);
  const addedBytes =
    toAdd.reduce((sum, entry) => sum + entry.bytes, 0) +
    above.bytes +
    (above.unreachable.length > 0 ? await unreachableTreeBytes(git, tree, above.unreachable) : 0);
  // Status counts hold when HEAD is the base (the usual case) and no file was taken again; otherwise ask
  // git for the exact diff.
  const headIsBase =
    baseTree !== undefined && state.latest?.tree === baseTree && !written?.retaken && !isLinkSwapped;
  const changes =
    tree === baseTree
      ? { added: 0, modified: 0, deleted: 0 }
      : headIsBase
        ? counts
        : await countChanges(git, baseTree, tree);
  state.index = { tree };
  if (unreadableNow.length > 0) state.unreadable = unreadableNow;
  else delete state.unreadable;
  state.maxFileBytes = target.settings.maxFileBytes;
  // An unchanged tree (most prompts) leaves the state as it was: no write.
  if (remembered() !== stored) await writeState(target.statePath, state);
  return {
    tree,
    changes,
    skipped: {
      large: [...state.exclusions.large],
      nested: [...state.exclusions.nested],
      ...(unreadable.length > 0 ? { unreadable } : {}),
    },
    addedBytes,
  };
}

/**
 * The git-ignored files the snapshotIncludeIgnored patterns include (issue 25) that the store's index does
 * not hold yet; once it holds them, git's scan follows them like any other file. When the patterns or
 * the store's exclude rules changed, also those it holds that are ignored now (see ignoredInIndex);
 * `drop` is null when that was not looked at. Ignored folders are entered only where a pattern names
 * them or a folder in them.
 */
async function includedIgnored(
  target: CaptureTarget,
  state: StoreState,
  rulesChanged: boolean,
): Promise<{ add: string[]; drop: string[] | null }> {
  const patterns = [...(target.settings.includeIgnored ?? [])];
  const previous = state.includeIgnored ?? [];
  const changed = JSON.stringify(patterns) !== JSON.stringify(previous);
  const drop = (changed && previous.length > 0) || rulesChanged ? ignoredInIndex(target) : null;
  drop?.catch(() => undefined); // awaited below
  if (patterns.length === 0 && !changed) return { add: [], drop: await drop };
  const matches = includeMatcher(patterns);
  const own = (file: string) =>
    isOwnFile(file) ||
    path.posix.basename(file).startsWith(RESTORE_TEMP_PREFIX) ||
    state.exclusions.nested.some((dir) => file.startsWith(`${dir}/`));
  const listOthers = async (pathspecs: string[], enterIgnored: boolean) => {
    if (pathspecs.length === 0) return [];
    return splitNul(
      (
        await target.git([
          'ls-files',
          '-z',
          '--others',
          '--ignored',
          '--exclude-standard',
          ...(enterIgnored ? [] : ['--directory']),
          '--',
          ...pathspecs,
        ])
      ).stdout,
    );
  };
  const add = new Set<string>();
  if (patterns.length > 0) {
    const specs = includePathspecs(patterns);
    const shallow = await listOthers([...specs.anywhere, ...specs.anchored], false);
    // Ignored folders a pattern names (`secrets/`, `.venv`) are listed whole.
    const namedFolders = shallow.filter((entry) => entry.endsWith('/') && matches(entry.slice(0, -1)));
    const deep = await listOthers(
      [
        ...specs.anchored,
        ...namedFolders.filter((entry) => !hasRawBytes(entry)).map((entry) => `:(literal)${entry}`),
      ],
      true,
    );
    // A folder whose name is not valid UTF-8 cannot be a pathspec (an argument is text): the folder above
    // it is listed instead (the whole tree at the top), and the answer narrowed to it.
    const rawFolders = namedFolders.filter(hasRawBytes);
    if (rawFolders.length > 0) {
      const covering = coveringPathspecs(rawFolders.map((entry) => entry.slice(0, -1)));
      const listed = await listOthers(
        covering.length > 0 ? covering.map((dir) => `:(literal)${dir}/`) : ['.'],
        true,
      );
      deep.push(...listed.filter((file) => isUnder(file, rawFolders)));
    }
    for (const file of [...shallow, ...deep])
      if (!file.endsWith('/') && matches(file) && !own(file)) add.add(file);
  }
  state.includeIgnored = patterns;
  return { add: [...add], drop: await drop };
}

/**
 * The files the store's index holds that are git-ignored now: a path it took in before it became
 * ignored (issue 26), or one the snapshotIncludeIgnored patterns no longer include. Ignored files the
 * project's own index tracks (added with --force) and those the patterns include stay.
 */
async function ignoredInIndex(target: CaptureTarget): Promise<string[]> {
  const trackedArgs = ['ls-files', '-z', '--cached', '--ignored', '--exclude-standard'];
  const held = splitNul((await target.git(trackedArgs)).stdout);
  if (held.length === 0) return held;
  const matches = includeMatcher([...(target.settings.includeIgnored ?? [])]);
  const candidates = held.filter((file) => !matches(file));
  if (candidates.length === 0) return candidates;
  const projects = splitNul(
    (await runGit(trackedArgs, { cwd: target.root, okExitCodes: [0, 128], exactNames: true })).stdout,
  );
  const tracked = new Set(projects);
  return candidates.filter((file) => !tracked.has(file) || isOurPath(file, target.ourFolders ?? []));
}

/** How many checked `.gitignore` files the state remembers; past that, those of the last check only. */
const MAX_IGNORE_FILES = 1000;

/**
 * The `.gitignore` files in the folders above these paths, the root's included, each with its stamp
 * (`ino:size:mtime:ctime`): one lstat per folder.
 */
function ignoreFilesAbove(
  files: readonly string[],
  inTree: (file: string) => Stats | null,
): Map<string, string> {
  const found = new Map<string, string>();
  const seen = new Set<string>();
  for (const file of files) {
    for (let dir = path.posix.dirname(file); !seen.has(dir); dir = path.posix.dirname(dir)) {
      seen.add(dir);
      const ignoreFile = dir === '.' ? '.gitignore' : `${dir}/.gitignore`;
      const stats = inTree(ignoreFile);
      if (stats) found.set(ignoreFile, `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`);
      if (dir === '.') break;
    }
  }
  return found;
}

/** `.gitignore` at any depth: a change to one may ignore files the index holds. */
function isIgnoreFile(file: string): boolean {
  return file === '.gitignore' || file.endsWith('/.gitignore');
}

/**
 * The files the index holds over the size cap, when it was not checked against this cap yet: a first
 * snapshot starts from the project's index (see borrowFromProjectRepo), and a cap may be lowered. git's
 * scan reports only files that changed, so these would stay in every snapshot. One `ls-tree` reads each
 * blob's size from the tree, no file's content (a few milliseconds at 10,000 files).
 */
async function indexedOverCap(target: CaptureTarget, state: StoreState): Promise<string[]> {
  if (state.maxFileBytes === target.settings.maxFileBytes) return [];
  // Before the first snapshot, the index is the project's and HEAD its commit (or unborn: nothing held).
  const tree = state.index?.tree ?? 'HEAD';
  const { stdout } = await target.git(['ls-tree', '-r', '-l', '-z', '--full-tree', tree], {
    okExitCodes: [0, 128],
  });
  const over: string[] = [];
  for (const record of splitNul(stdout)) {
    // <mode> SP <type> SP <oid> SP+ <size> TAB <path>
    const tab = record.indexOf('\t');
    const [, type, , size] = record.slice(0, tab).split(/ +/);
    if (type === 'blob' && Number(size) > target.settings.maxFileBytes) over.push(record.slice(tab + 1));
  }
  return over;
}

function splitNul(text: string): string[] {
  return text.split('\0').filter(Boolean);
}

/** Large files that shrank under the cap, or went away, and nested repositories that went away, come back. */
async function refreshExclusions(target: CaptureTarget, state: StoreState): Promise<void> {
  const inTree = treeStat(target.root);
  const large: StoreState['exclusions']['large'] = [];
  for (const entry of state.exclusions.large) {
    const stats = inTree(entry.path);
    if (stats?.isFile() && stats.size > target.settings.maxFileBytes)
      // Its stamp with its size: a rewind tells by them whether a held copy is this same file.
      large.push({ path: entry.path, bytes: stats.size, ...fileStamp(target.root, entry.path, stats.size) });
  }
  const nested: string[] = [];
  for (const dir of state.exclusions.nested) if (inTree(`${dir}/.git`)) nested.push(dir);
  state.exclusions = { large, nested };
}

/**
 * The rules of the project's git from outside its tree (`outside`, see inheritedIgnoreRules) apply to
 * snapshots too, plus our own files and the paths we excluded; our attributes override the project's so
 * content is stored byte for byte.
 */
async function syncInfo(
  target: CaptureTarget,
  exclusions: StoreState['exclusions'],
  outside: string,
): Promise<boolean> {
  const ours = [
    ...(target.ourFolders ?? []).map((folder) => `${folder}/`),
    ...exclusions.large.map((entry) => entry.path),
    ...exclusions.nested,
  ]
    .map(anchoredPattern)
    .join('');
  const written = await Promise.all([
    writeIfChanged(path.join(target.gitDir, 'info', 'exclude'), `${OWN_EXCLUDES}${ours}${outside}`),
    writeIfChanged(path.join(target.gitDir, 'info', 'attributes'), RAW_ATTRIBUTES),
  ]);
  return written.includes(true);
}

/** Whether the file had to be written. Names in `wanted` are written as their bytes (see raw-path.ts). */
async function writeIfChanged(file: string, wanted: string): Promise<boolean> {
  const bytes = bytesFromText(wanted);
  let current: Buffer | null = null;
  try {
    current = readFileSync(file);
  } catch {
    // missing: written below
  }
  if (current?.equals(bytes)) return false;
  // Security: never through a link put in the file's place (the folder is checked: see withLock).
  writeFileAtomicSync(file, bytes);
  return true;
}

/** An exclude pattern that matches exactly one path from the root: wildcards and specials escaped. */
function anchoredPattern(file: string): string {
  const escaped = file.replace(/[\\*?[\]!#]/g, (char) => `\\${char}`).replace(/ $/, '\\ ');
  return `/${escaped}\n`;
}

/**
 * The files git has just stored that are over `maxFileBytes`, with their stored size: git reads a file
 * when it stores it, after the scan measured it, so one that grew meanwhile (a log being written) is
 * stored whole. Only the files whose size on disk changed since the scan can have grown, and are looked
 * up, in one git call; none most times, and then no call.
 */
async function grownPastCap(
  git: StoreGit,
  root: string,
  added: ReadonlyArray<{ path: string; bytes: number }>,
  maxFileBytes: number,
): Promise<Array<{ path: string; bytes: number }>> {
  const now = treeStat(root);
  const changed = added.filter((entry) => {
    const stats = now(entry.path);
    return stats?.isFile() === true && stats.size !== entry.bytes;
  });
  if (changed.length === 0) return [];
  // `:0:<path>` is the path's entry in the index. A name with a newline needs -z (git 2.38).
  const withNewline = changed.some((entry) => entry.path.includes('\n'));
  const sep = withNewline ? '\0' : '\n';
  const { stdout } = await git(['cat-file', ...(withNewline ? ['-z'] : []), '--batch-check=%(objectsize)'], {
    input: changed.map((entry) => `:0:${entry.path}${sep}`).join(''),
  });
  const sizes = stdout.split('\n');
  const grown: Array<{ path: string; bytes: number }> = [];
  changed.forEach((entry, at) => {
    const bytes = Number(sizes[at]);
    if (Number.isSafeInteger(bytes) && bytes > maxFileBytes) grown.push({ path: entry.path, bytes });
  });
  return grown;
}

/**
 * The private index's tree, written into the store. An entry whose content the store borrowed from the
 * project's repository and the user has since deleted there (see repairIndexAndHead) is taken again from
 * the working tree, where it was unchanged at the scan, and whatever this capture read stays as it read
 * it: the capture may have said its content was taken already (onWorktreeRead), and a scan from the
 * start would read the tree after what the caller let happen since (a destructive command).
 */
async function writeTree(
  git: StoreGit,
  root: string,
  isNewSharedIndex: boolean,
): Promise<{ tree: string; retaken: boolean }> {
  try {
    // The split index grown past its balance starts a new shared index here (see split-index.ts).
    const args = [...(isNewSharedIndex ? NEW_SHARED_INDEX_ARGS : []), 'write-tree'];
    return { tree: (await git(args)).stdout.trim(), retaken: false };
  } catch (error) {
    if (!isMissingObjectError(error)) throw error;
    const lost = await dropLostEntries(git);
    if (lost.length === 0) throw error;
    // One that is no longer a file or a link stays out; a folder there now is in the next snapshot.
    const now = treeStat(root);
    const there = lost.filter((file) => now(file)?.isFile() || now(file)?.isSymbolicLink());
    if (there.length > 0)
      await git(['update-index', '-z', '--add', '--replace', '--stdin'], { input: nulJoin(there) });
    return { tree: (await git(['write-tree'])).stdout.trim(), retaken: true };
  }
}

function nulJoin(paths: readonly string[]): string {
  return `${paths.join('\0')}\0`;
}

/** git's reason for a folder it could not open (the system's error message), in words for the snapshot. */
function unreadableReason(error: string): string {
  // No reason: git cut its message at 4 KB, within the path itself.
  if (error === '' || /name too long/i.test(error))
    return 'its path is longer than the system allows (PATH_MAX): git cannot open it, so no snapshot holds what is in it';
  return `git could not open it (${error}): no snapshot holds what is in it`;
}

/** How many folders git could not open one snapshot's record names. */
const MAX_UNREADABLE_LISTED = 100;

/** How long a path may be for us to look at it: under PATH_MAX (4,096 on Linux), with room to spare. */
const LOOKABLE_PATH_BYTES = 4000;

/**
 * Whether a folder git could not open is still there, as far as can be told: the longest part of its
 * path that can be looked at exists. A path past PATH_MAX cannot be looked at whole.
 */
function isStillThere(root: string, folder: string): boolean {
  let lookable = root;
  let whole = true;
  for (const part of folder.split('/')) {
    const next = path.join(lookable, part);
    if (Buffer.byteLength(next) > LOOKABLE_PATH_BYTES) {
      whole = false;
      break;
    }
    lookable = next;
  }
  if (lookable === root) return true;
  if (statSync(lookable, { throwIfNoEntry: false })?.isDirectory() !== true) return false;
  // Past PATH_MAX: still there, as far as can be told.
  if (!whole) return true;
  // A folder that opens now (its permissions fixed) is read by git again: no longer one to warn about
  // (a review: the warning stayed after a chmod).
  try {
    closeSync(openSync(lookable, constants.O_RDONLY | constants.O_DIRECTORY));
    return false;
  } catch {
    return true;
  }
}
