import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { CheckpointError } from '../core/errors.js';
import { fsPath, textFromBytes } from '../core/raw-path.js';
import { latestBack } from '../core/rewind-refs.js';
import {
  type GuardedPath,
  type HeldLimits,
  SNAPSHOT_DEFAULTS,
  type SnapshotKind,
  type SnapshotMeta,
  type SnapshotRecord,
  type SnapshotSettings,
} from '../core/snapshot.js';
import type { SurfaceWords } from '../core/surface.js';
import type { ObjectFormat } from '../git/oid.js';
import { runGit } from '../git/run.js';
import { writeFileAtomicSync } from './atomic-write.js';
import type { CheckpointFiles } from './checkpoint-store.js';
import { readTextOrNull } from './fs-seam.js';
import {
  type HeldFile,
  heldFilesIn,
  heldUnchangedOnDisk,
  storeHeldFiles,
  treeWithHeld,
} from './held-files.js';
import { keepAside, readAside } from './keep-aside.js';
import { repositoryObjectFormat } from './loose-object.js';
import { type AsideContent, type GuardedRestore, guardRestore, type KeptLeaf } from './restore-guard.js';
import * as journal from './restore-journal.js';
import {
  type CaptureProgress,
  type CaptureResult,
  captureTree,
  type WorktreeRead,
} from './snapshot-capture.js';
import * as catalog from './snapshot-catalog.js';
import * as diff from './snapshot-diff.js';
import { snapshotFootprints } from './snapshot-footprint.js';
import { type GcSizes, gcStore } from './snapshot-gc.js';
import { SnapshotReader } from './snapshot-reader.js';
import { refuseStoreFileLink, writeStoreFileInPlace } from './store-folder.js';
import type { StoreGit } from './store-git.js';
import { isMissingObjectError, missingObjects, repairIndexAndHead } from './store-repair.js';
import { initStore } from './store-setup.js';
import { storeSizeBytes } from './store-size.js';
import { readState, writeState } from './store-state.js';
import { noteAdded, type StoreUsage } from './store-usage.js';
import { isOurPath, ourFoldersWithin } from './store-within.js';
import { uniqueSuffix } from './temp-name.js';
import { type TreeChange, WorktreeWriter } from './worktree-writer.js';

export type { HeldFile } from './held-files.js';
export type { AsideContent, GuardedRestore } from './restore-guard.js';
export type { RestoreJournal } from './restore-journal.js';
export type { CaptureProgress, CaptureResult, WorktreeRead } from './snapshot-capture.js';
export { snapshotIdEntry } from './snapshot-catalog.js';
export type { DiffEntry } from './snapshot-diff.js';
export { SnapshotReader } from './snapshot-reader.js';
export type { TreeChange } from './worktree-writer.js';

/**
 * The private snapshot store of one project: a shadow git directory with its own index, config and no
 * hooks, outside the working tree. It reads the project's files and writes only inside `storeDir`;
 * the user's repository (HEAD, index, refs, config, hooks, .gitignore) is never touched.
 *
 * This class holds the store's places and its lock; each job lives in a module of its own: set-up and
 * borrowing (store-setup), capture (snapshot-capture), the catalog of snapshots and their refs
 * (snapshot-catalog), diffs (snapshot-diff), the restore journal (restore-journal) and gc (snapshot-gc).
 */
export class SnapshotStore extends SnapshotReader {
  private readonly journalPath: string;
  private readonly kindsPath: string;
  /**
   * Our folders inside the project (the store's, the user's settings), usually none: never captured,
   * restored over or deleted by a restore (see ourFoldersWithin).
   */
  readonly ourFolders: readonly string[];
  /** Learned by init() from the store's config; read again by record() when init() was not called. */
  private objectFormat: ObjectFormat | undefined;

  constructor(root: string, storeDir: string, settings: SnapshotSettings) {
    super(root, storeDir, settings);
    this.journalPath = path.join(storeDir, 'restore-journal.json');
    this.kindsPath = path.join(storeDir, 'kinds.jsonl');
    this.ourFolders = ourFoldersWithin(root, [
      path.dirname(path.dirname(storeDir)),
      ...(settings.userConfigDir === undefined ? [] : [settings.userConfigDir]),
    ]);
  }

  /** Creates the shadow repository on first use, or repairs an interrupted set-up. Call it holding the lock. */
  async init(): Promise<void> {
    this.objectFormat = await initStore(this.root, this.storeDir, this.gitDir, this.git);
  }

  /**
   * The working tree's tree now, with changes counted against `baseTree`; see captureTree for
   * `onWorktreeRead`. When the private index or HEAD borrowed objects the user has since deleted from
   * the project's repository, they are rebuilt from what is there and the capture runs again. Once the
   * content is taken, the capture repairs its own tree instead (see writeTree in snapshot-capture.ts): a
   * run from the start would read the tree after what the caller let happen since.
   */
  async capture(
    baseTree?: string,
    onWorktreeRead?: WorktreeRead,
    onProgress?: CaptureProgress,
  ): Promise<CaptureResult> {
    let told = false;
    const once: WorktreeRead | undefined = onWorktreeRead
      ? (leftOut) => {
          if (!told) onWorktreeRead(leftOut);
          told = true;
        }
      : undefined;
    const run = () =>
      captureTree(
        {
          root: this.root,
          gitDir: this.gitDir,
          statePath: this.statePath,
          settings: this.settings,
          git: this.git,
          objectFormat: this.objectFormat,
          ourFolders: this.ourFolders,
          lockedFrom: this.lockedFrom,
        },
        baseTree,
        once,
        onProgress,
      );
    try {
      return await run();
    } catch (error) {
      if (!isMissingObjectError(error)) throw error;
      await this.repair();
      return run();
    }
  }

  /** Stores the content of files over the size cap that one snapshot holds all the same (see held-files.ts). */
  storeHeld(files: readonly string[], limits: HeldLimits): Promise<HeldFile[]> {
    return storeHeldFiles(this.git, this.root, files, limits);
  }

  /**
   * A captured tree with `held` in it (files over the size cap whose content is in the store), and its
   * changes since `base`. A held file that `base` left out at the same size is not counted as a change:
   * the pre-command snapshot of an untouched `big.bin` changed nothing (review A: `list` said `+1`).
   */
  async withHeld(
    captured: CaptureResult,
    base: Pick<SnapshotRecord, 'tree' | 'skipped'> | null | undefined,
    held: readonly HeldFile[],
  ): Promise<CaptureResult> {
    if (held.length === 0) return captured;
    const tree = await treeWithHeld(this.git, this.gitDir, captured.tree, held);
    const paths = new Set(held.map((file) => file.path));
    // Those held from disk with their stamp, for the snapshot's record (see heldByTheTurn in rewind-menu.ts).
    const stamped = held.flatMap(({ path, bytes, stamp }) => (stamp ? [{ path, bytes, ...stamp }] : []));
    const leftOutByBase = new Map((base?.skipped?.large ?? []).map((file) => [file.path, file.bytes]));
    const sameAsBase = held.filter((file) => leftOutByBase.get(file.path) === file.bytes);
    const baseTree =
      base && sameAsBase.length > 0
        ? await treeWithHeld(this.git, this.gitDir, base.tree, sameAsBase)
        : base?.tree;
    return {
      tree,
      changes: await diff.countChanges(this.git, baseTree, tree),
      skipped: { ...captured.skipped, large: captured.skipped.large.filter((file) => !paths.has(file.path)) },
      addedBytes: captured.addedBytes + held.reduce((sum, file) => sum + file.bytes, 0),
      ...(stamped.length > 0 ? { held: stamped } : {}),
    };
  }

  /** Of `files`, those `tree` holds as regular files, with their content's oid (see held-files.ts). */
  heldFilesIn(tree: string, files: readonly string[]): Promise<HeldFile[]> {
    return heldFilesIn(this.git, tree, files);
  }

  /** `tree` with `held` in it, written into the store (see held-files.ts): a rewind's target. */
  treeWithHeld(tree: string, held: readonly HeldFile[]): Promise<string> {
    return treeWithHeld(this.git, this.gitDir, tree, held);
  }

  /** Of `files` the capture left out over the cap, those `tree` holds unchanged on disk (see held-files.ts). */
  heldUnchangedOnDisk(tree: string, files: readonly string[]): Promise<HeldFile[]> {
    return heldUnchangedOnDisk(this.git, this.root, tree, files);
  }

  /**
   * The working tree's tree now (see captureSinceLatest) to compare with `tree`: with the files over the
   * cap that `tree` holds and that are unchanged on disk, so that they compare equal.
   */
  async captureComparedWith(tree: string): Promise<CaptureResult> {
    const latest = await this.latest();
    const captured = await this.captureSinceLatest();
    const unchanged = await this.heldUnchangedOnDisk(
      tree,
      captured.skipped.large.map((file) => file.path),
    );
    return this.withHeld(captured, latest, unchanged);
  }

  /** Rebuilds the private index and HEAD (see repairIndexAndHead), and forgets the tree the index had. */
  private async repair(): Promise<void> {
    await repairIndexAndHead(this.git);
    // Its tree may be one of those deleted: an unchanged tree must be written again, not taken from here.
    const { index: _stale, ...state } = await readState(this.statePath);
    await writeState(this.statePath, state);
  }

  /** Whether every object of a snapshot is there (see checkRestorable); always so in a store that no longer borrows. */
  async isWhole(snapshot: { commit: string }): Promise<boolean> {
    if ((await this.borrowingSince()) === null) return true;
    return (await missingObjects(this.git, [snapshot.commit])).length === 0;
  }

  /**
   * Throws a clear error, changing nothing, when part of a snapshot's content is gone: borrowed from the
   * project's repository (see store-setup.ts) and deleted there before the store copied it in. Only a
   * store that still borrows can lose content, so only then is the snapshot read whole.
   */
  async checkRestorable(snapshot: { id: string; commit: string }, words: SurfaceWords): Promise<void> {
    if ((await this.borrowingSince()) === null) return;
    const missing = await missingObjects(this.git, [snapshot.commit]);
    if (missing.length === 0) return;
    throw new CheckpointError(
      'CORRUPT',
      `snapshot ${snapshot.id} can no longer be restored: the store is missing ${missing.length} object(s) of it (files or folders it borrowed from the project's repository, deleted there when history was pruned, e.g. by git gc or git filter-repo, before the store copied them in); nothing was changed; ${words.removeDamaged}`,
    );
  }

  /**
   * Removes the snapshots whose content was deleted from the project's repository while the store
   * borrowed it (see checkRestorable), and rebuilds the private index and HEAD: no later git walk of the
   * store then meets a missing object. Returns the ids removed. Holding the lock.
   */
  async removeDamaged(): Promise<string[]> {
    if ((await this.borrowingSince()) === null) return [];
    if ((await missingObjects(this.git, ['--all', '--indexed-objects'])).length === 0) return [];
    await this.repair();
    const damaged: string[] = [];
    // Rare (the user pruned what a snapshot borrowed): one walk per snapshot is affordable here.
    for (const { id } of await this.snapshotIds())
      if ((await missingObjects(this.git, [`${catalog.SNAPSHOT_REFS}${id}`])).length > 0) damaged.push(id);
    await this.remove(damaged);
    const { latest } = await readState(this.statePath);
    if (!latest || damaged.includes(latest.id))
      await this.setLatest((await this.listNewest(1)).snapshots[0] ?? null);
    return damaged;
  }

  /** The working tree's tree now, with changes counted against the latest snapshot. */
  async captureSinceLatest(): Promise<CaptureResult> {
    const captured = await this.capture((await this.latest())?.tree);
    // No snapshot records it, but what it read is in the store now: the size estimate counts it.
    if (captured.addedBytes > 0) this.noteAdded(captured.addedBytes);
    return captured;
  }

  /**
   * Adds to the store's size estimate and, for `snapshots` just recorded, to its count of snapshots since
   * the last pack (see store-usage.ts): the figure after.
   */
  noteAdded(bytes: number, snapshots = 0): StoreUsage {
    return noteAdded(this.storeDir, bytes, snapshots);
  }

  /**
   * `others`: the other snapshots of its second, with their exact times, when all are known (see
   * latestSecond). Without them, the same latest keeps those the state has (a gc adds no snapshot).
   */
  async setLatest(record: SnapshotRecord | null, others?: Record<string, string>): Promise<void> {
    const state = await readState(this.statePath);
    const isSame = JSON.stringify(state.latest ?? null) === JSON.stringify(record);
    const second = others ?? (isSame ? state.latestSecond : undefined);
    // Unchanged (a gc that expired nothing recent): no write, so that a gc on a full disk gets as far as
    // deleting what it can (adversarial trial, 2026-12-06: it stopped on this write before pruning).
    if (isSame && JSON.stringify(state.latestSecond) === JSON.stringify(second)) return;
    state.latest = record;
    if (second) state.latestSecond = second;
    else delete state.latestSecond;
    await writeState(this.statePath, state);
  }

  /**
   * The other snapshots of `recorded`'s second among `ids` with their exact times, when each is the
   * latest before it or one of that latest's own (see latestSecond); `undefined` when one is unknown.
   */
  async othersOfSecond(
    recorded: SnapshotRecord,
    ids: ReadonlyArray<{ id: string }>,
  ): Promise<Record<string, string> | undefined> {
    const { latest, latestSecond = {} } = await readState(this.statePath);
    const known: Record<string, string> = { ...latestSecond };
    if (latest) known[latest.id] = latest.createdAt;
    const others: Record<string, string> = {};
    for (const { id } of ids) {
      if (id === recorded.id || catalog.second(id) !== catalog.second(recorded.id)) continue;
      const createdAt = known[id];
      if (createdAt === undefined) return undefined;
      others[id] = createdAt;
    }
    return others;
  }

  /**
   * Each snapshot's trigger and session, for retention (see selectExpired): from the kinds file, one line
   * appended per snapshot (see noteKind), or from the commits of those it does not name (a store older
   * than the file, a line lost), then remembered. Holding the lock.
   */
  async snapshotKinds(existing: ReadonlyArray<{ id: string }>): Promise<Map<string, SnapshotKind>> {
    const kinds = new Map<string, SnapshotKind>();
    for (const line of (readTextOrNull(this.kindsPath) ?? '').split('\n')) {
      const entry = parseKindLine(line);
      if (entry) kinds.set(entry.id, entry.kind);
    }
    const unknown = existing.filter((entry) => !kinds.has(entry.id)).map((entry) => entry.id);
    const read =
      unknown.length === 0 ? [] : await catalog.listSnapshotRecords(this.git, this.gitDir, unknown);
    for (const record of read) kinds.set(record.id, kindOf(record));
    // Rewritten when it learnt something, or when removed snapshots' lines outnumber the others.
    if (read.length > 0 || kinds.size > 2 * existing.length) {
      const present = existing.flatMap((entry) => {
        const kind = kinds.get(entry.id);
        return kind ? [kindLine(entry.id, kind)] : [];
      });
      writeFileAtomicSync(this.kindsPath, present.join(''), { mode: 0o600 });
    }
    return kinds;
  }

  /** Remembers a snapshot's trigger and session for retention (see snapshotKinds). Holding the lock. */
  noteKind(snapshot: SnapshotMeta): void {
    // Security: appended to in place, so never through a link (safety audit of 2026-12-07, item 4).
    refuseStoreFileLink(this.kindsPath);
    writeStoreFileInPlace(this.kindsPath, kindLine(snapshot.id, kindOf(snapshot)), 'append');
  }

  /** `aside`: the commit of what a restore kept aside (see keepAside), recorded as the snapshot's parent. */
  record(meta: SnapshotMeta, tree: string, aside?: string): Promise<SnapshotRecord> {
    return catalog.recordSnapshot(this.gitDir, meta, tree, this.objectFormat, aside);
  }

  /**
   * The snapshots a reference (`latest`, `latest~N`, an id or an id prefix) can name, newest first:
   * what resolveRef needs to resolve it or to say why not, read without listing a long history whole.
   */
  async candidatesFor(ref: string): Promise<SnapshotRecord[]> {
    const given = ref.trim();
    const ids = await this.snapshotIds();
    const back = latestBack(given);
    if (back !== undefined && back + 1 < ids.length)
      return (
        await catalog.listSnapshotRecords(this.git, this.gitDir, catalog.newestIds(ids, back + 1))
      ).slice(0, back + 1);
    const matching = ids.filter((entry) => entry.id.startsWith(given));
    // Errors name the count and the oldest: for those, and for a prefix that matches many, the whole list.
    if (back !== undefined || given.startsWith('latest') || matching.length === 0 || matching.length > 64)
      return this.list();
    return catalog.listSnapshotRecords(
      this.git,
      this.gitDir,
      matching.map((entry) => entry.id),
    );
  }

  remove(ids: readonly string[]): Promise<void> {
    return catalog.removeSnapshots(this.gitDir, this.git, ids);
  }

  /**
   * Security: a snapshot taken before the store's own folder was left out may hold it: its files are
   * never a change, so a restore neither writes its old objects over the live ones nor deletes them.
   */
  async changesBetween(
    fromTree: string,
    toTree: string,
    paths: readonly string[] = [],
  ): Promise<TreeChange[]> {
    const changes = await diff.changesBetween(this.git, fromTree, toTree, paths);
    return this.ourFolders.length === 0
      ? changes
      : changes.filter((change) => !isOurPath(change.path, this.ourFolders));
  }

  /** The sides of `changes` that are symbolic links to themselves, as `<oid> <path>` (see snapshot-diff.ts). */
  linksToThemselves(changes: readonly TreeChange[], everyLink = false): Promise<Set<string>> {
    return diff.linksToThemselves(this.git, changes, everyLink);
  }

  /** The changes between each pair of trees, from one git process. */
  async changesBetweenPairs(
    pairs: ReadonlyArray<readonly [from: string, to: string]>,
  ): Promise<TreeChange[][]> {
    const all = await diff.changesBetweenPairs(this.git, pairs);
    const within = this.ourFolders;
    return within.length === 0
      ? all
      : all.map((changes) => changes.filter((change) => !isOurPath(change.path, within)));
  }

  async diffStat(fromTree: string, toTree: string, paths: readonly string[] = []): Promise<diff.DiffEntry[]> {
    const entries = await diff.diffStat(this.git, fromTree, toTree, paths);
    return this.ourFolders.length === 0
      ? entries
      : entries.filter((entry) => !isOurPath(entry.path, this.ourFolders));
  }

  treeHasPath(tree: string, file: string): Promise<boolean> {
    return diff.treeHasPath(this.git, tree, file);
  }

  unifiedDiff(fromTree: string, toTree: string, file: string): Promise<string> {
    return diff.unifiedDiff(this.git, fromTree, toTree, file);
  }

  /**
   * Plans a restore from `fromTree` (the safety snapshot's, just captured) to `target` against the disk:
   * what the safety snapshot does not hold is kept aside or refused (see guardRestore).
   */
  async guardRestore(
    fromTree: string,
    target: {
      tree: string;
      aside?: AsideContent | null;
      skipped?: { large: ReadonlyArray<{ path: string }>; nested: readonly string[] } | undefined;
    },
    paths: readonly string[],
  ): Promise<GuardedRestore & { unheld: string[]; links: GuardedPath[]; replaced: GuardedPath[] }> {
    const changes = await this.changesBetween(fromTree, target.tree, paths);
    const aside = target.aside ? limitAside(target.aside, paths) : null;
    const held = new Set(
      changes.filter((change) => change.beforeMode !== '000000').map((change) => change.path),
    );
    // Usually every held path a restore touches is one it changes; when not (some paths only, or content
    // kept aside coming back), ask the tree about the paths the plan asked for, and plan again (listing
    // the whole tree cost seconds at a million files; issue 28).
    const askTree = paths.length > 0 || aside !== null;
    // What the target did not hold although it was there is not the target's to delete; nor is an
    // ignored file that a snapshot holds only because the settings include it (issue 25).
    const unheldThen = [
      ...(aside?.unheld ?? []),
      ...(target.skipped?.large.map((entry) => entry.path) ?? []),
      ...(target.skipped?.nested.map((dir) => `${dir}/`) ?? []),
      ...(await this.ignoredAmong(
        changes.filter((change) => change.status === 'D').map((change) => change.path),
      )),
    ];
    const settings = this.settings;
    const plan = (isHeld: (file: string) => boolean) =>
      guardRestore(
        this.root,
        changes,
        aside,
        isHeld,
        {
          maxFileBytes: settings.maxFileBytes,
          keepAsideMaxBytes: settings.keepAsideMaxBytes ?? SNAPSHOT_DEFAULTS.keepAsideMaxBytes,
          keepAsideMaxFiles: SNAPSHOT_DEFAULTS.keepAsideMaxFiles,
        },
        (file) =>
          unheldThen.some((entry) => entry === file || (entry.endsWith('/') && file.startsWith(entry))),
      );
    const asked = new Set<string>();
    let guarded = plan((file) => {
      if (!held.has(file) && askTree) asked.add(file);
      return held.has(file);
    });
    if (asked.size > 0) {
      for (const file of await treeHolds(this.git, fromTree, [...asked])) held.add(file);
      guarded = plan((file) => held.has(file));
    }
    // A restore that changes ignore rules could make what is ignored now look deleted to its undo: list
    // it (folders as one entry), so the undo leaves it where it is.
    const rulesChange = guarded.changes.some((change) => path.posix.basename(change.path) === '.gitignore');
    const unheld = rulesChange
      ? (
          await this.git(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'])
        ).stdout
          .split('\0')
          .filter(Boolean)
      : [];
    return {
      ...guarded,
      unheld,
      links: await this.linksNotRestored(fromTree, guarded, paths),
      replaced: await this.linksReplaced(guarded),
    };
  }

  /**
   * The symbolic links the plan replaces with a folder or a file, or writes in place of one (helper task,
   * issue 26): "Delete lib" and "Create lib/a.txt" did not say that lib is a link, nor that only the
   * link goes. Security: the writer never follows a link (worktree-writer.ts), so what one points to,
   * in the project or out of it, is never touched; the plan says so.
   */
  private async linksReplaced(guarded: GuardedRestore): Promise<GuardedPath[]> {
    const planned = new Set(guarded.planned.map((change) => change.path));
    const changes = guarded.changes.filter((change) => planned.has(change.path));
    const isFile = (mode: string) => mode === '100644' || mode === '100755';
    const holdsUnder = (dir: string, side: 'beforeMode' | 'afterMode') =>
      changes.some((change) => change.path.startsWith(`${dir}/`) && change[side] !== MISSING_MODE);
    const linkTarget = async (oid: string) => (await this.git(['cat-file', 'blob', oid])).stdout;
    // The link on disk now, as it is read (a change the guard added has no oid: see guardRestore).
    const linkNow = (file: string) => {
      try {
        return textFromBytes(readlinkSync(fsPath(path.join(this.root, file)), { encoding: 'buffer' }));
      } catch {
        return '?';
      }
    };

    const found: GuardedPath[] = [];
    for (const change of changes) {
      const wasLink = change.beforeMode === LINK_MODE;
      if (wasLink === (change.afterMode === LINK_MODE)) continue;
      let reason: string | null = null;
      if (wasLink) {
        const now = `a symbolic link to ${change.beforeOid ? await linkTarget(change.beforeOid) : linkNow(change.path)} now`;
        if (isFile(change.afterMode))
          reason = `${now}, a file in the snapshot: the link itself is replaced (not what it points to)`;
        else if (change.afterMode === MISSING_MODE && holdsUnder(change.path, 'afterMode'))
          reason = `${now}, a folder in the snapshot: the link itself is removed (not what it points to) and the folder written in its place`;
      } else {
        const then = `a symbolic link to ${await linkTarget(change.afterOid)} in the snapshot`;
        if (isFile(change.beforeMode)) reason = `a file now, ${then}`;
        else if (change.beforeMode === MISSING_MODE && holdsUnder(change.path, 'beforeMode'))
          reason = `a folder now, ${then}: the files in it are deleted (listed above) and the link written in its place`;
      }
      if (reason) found.push({ path: change.path, reason });
    }
    return found;
  }

  /**
   * What a restore cannot bring back through links (trial 4, item 5): a symbolic link out of the project
   * is held as the link, so edits made through it are not undone; a file with other hard links is
   * replaced by a new file (atomically, never written in place, so a package manager's shared store is
   * never edited), and its other links keep what it holds now.
   */
  private async linksNotRestored(
    fromTree: string,
    guarded: GuardedRestore,
    paths: readonly string[],
  ): Promise<GuardedPath[]> {
    const found: GuardedPath[] = [];
    for (const change of guarded.planned) {
      if (change.action === 'create') continue;
      let stats: ReturnType<typeof lstatSync> | undefined;
      try {
        stats = lstatSync(fsPath(path.join(this.root, change.path)));
      } catch {
        continue;
      }
      if (!stats.isFile() || stats.nlink < 2) continue;
      const others = stats.nlink - 1;
      found.push({
        path: change.path,
        reason: `a hard link (${others} other link(s) to the same file): ${change.action === 'delete' ? 'deleted here' : 'restored here as a new file'}; the other link(s) keep what it holds now`,
      });
    }
    const listed = await this.git([
      '--literal-pathspecs',
      'ls-tree',
      '-r',
      '-z',
      '--full-tree',
      fromTree,
      ...(paths.length > 0 ? ['--', ...diff.coveringPathspecs(paths)] : []),
    ]);
    const links = symlinkRecords(listed.stdout).filter((link) => diff.isUnder(link, paths));
    // The root as given and as the file system names it (a link to a folder inside, written absolute).
    const roots = links.length > 0 ? [this.root, realpathOr(this.root)] : [];
    for (const link of links) {
      const at = path.join(this.root, link);
      let target: string;
      try {
        target = textFromBytes(readlinkSync(fsPath(at), { encoding: 'buffer' }));
      } catch {
        continue; // gone, or no longer a link: nothing reached through it
      }
      const resolved = path.resolve(path.dirname(at), target);
      if (roots.some((root) => isInside(root, resolved))) continue;
      found.push({
        path: link,
        reason: `a symbolic link to ${target}, outside the project: snapshots hold the link, not what it points to, so edits made through it are not undone`,
      });
    }
    return found;
  }

  /** Which of these paths the ignore rules match, whether or not the store's index holds them. */
  private async ignoredAmong(files: readonly string[]): Promise<string[]> {
    if (files.length === 0) return [];
    const { stdout } = await this.git(['check-ignore', '--no-index', '-z', '--stdin'], {
      input: `${files.join('\0')}\0`,
      okExitCodes: [0, 1],
    });
    return stdout.split('\0').filter(Boolean);
  }

  /**
   * The tree without the git-ignored files a snapshot holds only because the settings include them
   * (issue 25): what may leave the machine. Ignored files the project's own index tracks stay.
   */
  async withoutIncludedIgnored(tree: string): Promise<string> {
    const listing = await this.git(['ls-tree', '-r', '-z', '--full-tree', '--name-only', tree]);
    const ignored = await this.ignoredAmong(listing.stdout.split('\0').filter(Boolean));
    if (ignored.length === 0) return tree;
    const tracked = await runGit(['ls-files', '-z', '--cached', '--ignored', '--exclude-standard'], {
      exactNames: true,
      cwd: this.root,
      okExitCodes: [0, 128],
    });
    const projectTracks = new Set(tracked.stdout.split('\0'));
    const strip = ignored.filter((file) => !projectTracks.has(file));
    if (strip.length === 0) return tree;
    // A private index of our own: the store's index (and the user's) stay as they are.
    const env = { GIT_INDEX_FILE: path.join(this.gitDir, `strip-index-${uniqueSuffix()}`) };
    try {
      await this.git(['read-tree', tree], { extraEnv: env });
      await this.git(['update-index', '-z', '--force-remove', '--stdin'], {
        input: `${strip.join('\0')}\0`,
        extraEnv: env,
      });
      return (await this.git(['write-tree'], { extraEnv: env })).stdout.trim();
    } finally {
      await fsp.rm(env.GIT_INDEX_FILE, { force: true });
    }
  }

  /** Copies paths no snapshot holds into the store; returns the commit to record with the safety snapshot. */
  keepAside(
    keep: readonly KeptLeaf[],
    created: readonly string[],
    unheld: readonly string[],
    folders: readonly string[] = [],
    checkpoint?: { text: string | null; files: CheckpointFiles },
  ): Promise<string> {
    return keepAside(this.git, this.gitDir, keep, created, unheld, folders, checkpoint);
  }

  /** What a snapshot kept aside, or `null`. */
  readAside(commit: string): Promise<AsideContent | null> {
    return readAside(this.git, commit);
  }

  /**
   * Makes the working tree match `changes` (from the current tree to the target); see WorktreeWriter.
   * The private index is left as it is: the next capture sees exactly these files as changed and re-reads
   * only them, so a restore costs what it restores, not what the tree holds.
   */
  apply(
    changes: readonly TreeChange[],
    onProgress?: (done: number, total: number) => void,
    folders: readonly string[] = [],
  ): Promise<void> {
    return new WorktreeWriter(this.root, this.gitDir).apply(changes, onProgress, folders);
  }

  beginRestore(entry: journal.RestoreJournal): Promise<void> {
    return journal.beginRestore(this.journalPath, entry);
  }

  endRestore(): Promise<void> {
    return journal.endRestore(this.journalPath);
  }

  recoverInterruptedRestore(): Promise<journal.RestoreJournal | null> {
    return journal.recoverInterruptedRestore(this.journalPath, this.root);
  }

  /**
   * `incremental`: pack what is loose into a pack of its own, leaving the other packs be (see gcStore).
   * Snapshots whose borrowed content the user deleted are removed first (see removeDamaged): `damaged`.
   * The store is walked twice for its size: before anything is removed, and at the end.
   */
  async gc(options: { incremental?: boolean } = {}): Promise<GcSizes & { damaged: string[] }> {
    const beforeBytes = await this.sizeBytes();
    const damaged = (await this.exists()) ? await this.removeDamaged() : [];
    const sizes = await gcStore(
      { gitDir: this.gitDir, exists: () => this.exists(), sizeBytes: () => this.sizeBytes() },
      this.git,
      { ...options, objectFormat: this.objectFormat ?? (await repositoryObjectFormat(this.gitDir)) },
    );
    return { ...sizes, beforeBytes, damaged };
  }

  /** The undo an interrupted restore names (its journal is still there), or `null`; changes nothing. */
  async pendingUndo(): Promise<string | null> {
    const text = await fsp.readFile(this.journalPath, 'utf8').catch(() => null);
    if (text === null) return null;
    try {
      const undo = (JSON.parse(text) as Partial<journal.RestoreJournal>).undo;
      return typeof undo === 'string' ? undo : null;
    } catch {
      return null;
    }
  }

  /** What each snapshot adds to the store, in `order` (see snapshotFootprints). */
  async footprints(order: readonly SnapshotRecord[]): Promise<Map<string, number>> {
    const format = this.objectFormat ?? (await repositoryObjectFormat(this.gitDir));
    return snapshotFootprints(this.gitDir, this.root, order, format);
  }

  /**
   * The bytes of the store's objects, loose and packed: measured before and after what writes objects
   * outside a capture (a handoff's fetch, its commit), whose difference then goes to noteAdded.
   */
  objectBytes(): Promise<number> {
    return storeSizeBytes(path.join(this.gitDir, 'objects'), this.lockPath);
  }
}

/** Only what lies under the paths given (all of it when none are). */
function limitAside(aside: AsideContent, paths: readonly string[]): AsideContent {
  if (paths.length === 0) return aside;
  const within = (file: string) => paths.some((given) => file === given || file.startsWith(`${given}/`));
  return {
    entries: aside.entries.filter((entry) => within(entry.path)),
    created: aside.created.filter(within),
    folders: (aside.folders ?? []).filter(within),
  };
}

/** Which of these paths `tree` holds as a file, link or submodule: `ls-tree` asked about them alone. */
/** git's modes for a symbolic link, and for no entry (one side of an added or deleted path). */
const LINK_MODE = '120000';
const MISSING_MODE = '000000';

/**
 * The paths of the symbolic links in `ls-tree -r -z` output. Found with indexOf rather than split into
 * records: a million files' listing has few links, and an array of every record costs far more.
 */
function symlinkRecords(listing: string): string[] {
  const links: string[] = [];
  const mark = '\x00120000 ';
  let at = listing.startsWith('120000 ') ? 0 : listing.indexOf(mark);
  while (at !== -1) {
    const tab = listing.indexOf('\t', at);
    const end = listing.indexOf('\0', tab);
    links.push(listing.slice(tab + 1, end === -1 ? listing.length : end));
    if (end === -1) break;
    at = listing.indexOf(mark, end);
  }
  return links;
}

function isInside(root: string, file: string): boolean {
  const relative = path.relative(root, file);
  return relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

function realpathOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

async function treeHolds(git: StoreGit, tree: string, files: readonly string[]): Promise<string[]> {
  const wanted = new Set(files);
  const found: string[] = [];
  // A few hundred paths per call keeps each command line far below the system's limit.
  for (let start = 0; start < files.length; start += 500) {
    const chunk = files.slice(start, start + 500);
    const { stdout } = await git([
      '--literal-pathspecs',
      'ls-tree',
      '-r',
      '-z',
      '--full-tree',
      '--name-only',
      tree,
      '--',
      ...diff.coveringPathspecs(chunk),
    ]);
    for (const file of stdout.split('\0')) if (wanted.has(file)) found.push(file);
  }
  return found;
}

function kindOf(snapshot: {
  trigger: string;
  sessionId?: string | undefined;
  createdAt?: string | undefined;
}): SnapshotKind {
  return {
    trigger: snapshot.trigger,
    ...(snapshot.sessionId !== undefined ? { sessionId: snapshot.sessionId } : {}),
    ...(snapshot.createdAt !== undefined ? { createdAt: snapshot.createdAt } : {}),
  };
}

function kindLine(id: string, kind: SnapshotKind): string {
  return `${JSON.stringify({ id, ...kind })}\n`;
}

/** One line of the kinds file; null for a damaged one (a line cut short by a crash), read again from git. */
function parseKindLine(line: string): { id: string; kind: SnapshotKind } | null {
  if (line === '') return null;
  try {
    const value = JSON.parse(line) as Record<string, unknown>;
    if (typeof value.id !== 'string' || typeof value.trigger !== 'string') return null;
    const sessionId = typeof value.sessionId === 'string' ? value.sessionId : undefined;
    const createdAt = typeof value.createdAt === 'string' ? value.createdAt : undefined;
    return { id: value.id, kind: kindOf({ trigger: value.trigger, sessionId, createdAt }) };
  } catch {
    return null;
  }
}
