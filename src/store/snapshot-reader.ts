import { accessSync, constants, lstatSync, statSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { CheckpointError } from '../core/errors.js';
import type { SnapshotRecord, SnapshotSettings } from '../core/snapshot.js';
import { isGitTimeout } from '../git/run.js';
import { withFileLock } from './lock.js';
import * as catalog from './snapshot-catalog.js';
import {
  ensureStoreFolders,
  refuseFanOutLinks,
  refuseStoreFileLink,
  refuseStoreFolderLink,
} from './store-folder.js';
import { type StoreGit, storeGit } from './store-git.js';
import { isWholeSecond, storeFolderStamp } from './store-scan.js';
import { ensurePrivateDirs, waitForOrphanedGc, waitForOrphanedGit } from './store-setup.js';
import { storeSizeBytes } from './store-size.js';
import { readState } from './store-state.js';
import { estimatedBytes, isMeasured, readUsage, writeUsage } from './store-usage.js';
import { isProjectInStore } from './store-within.js';

/**
 * What reads a project's snapshot store: its places, its lock, the list of its snapshots, the latest one
 * and its size. `list` and `status` need no more, and their bundle (cli-fast.ts) holds no more: what
 * writes, restores, diffs and collects garbage is SnapshotStore's (snapshot-store.ts), which extends it
 * (issue 26: every module in a command's bundle costs its start).
 */
export class SnapshotReader {
  readonly gitDir: string;
  readonly git: StoreGit;
  protected readonly lockPath: string;
  protected readonly statePath: string;

  constructor(
    readonly root: string,
    readonly storeDir: string,
    readonly settings: SnapshotSettings,
  ) {
    this.gitDir = path.join(storeDir, 'git');
    this.lockPath = path.join(storeDir, 'lock');
    this.statePath = path.join(storeDir, 'state.json');
    this.git = storeGit(this.gitDir, root);
  }

  /**
   * Whether a store exists for this project (read-only callers should not create one). One lstat,
   * synchronous: `status` asks it and otherwise never loads `fs/promises`.
   */
  async exists(): Promise<boolean> {
    try {
      return lstatSync(path.join(this.gitDir, 'HEAD'), { throwIfNoEntry: false }) !== undefined;
    } catch {
      return false;
    }
  }

  /**
   * Refuses a store that is there but cannot be used: a link or a file in its folder's place, or a folder
   * this user cannot read. For read-only callers, which would otherwise take it for no store at all and
   * say "no snapshots yet" (adversarial trial, 2026-12-06); a writer meets the same in withLock.
   */
  assertUsable(): void {
    if (lstatSync(this.storeDir, { throwIfNoEntry: false }) === undefined) return;
    refuseStoreFolderLink(this.storeDir);
    this.refuseGitFolderLinks();
    try {
      accessSync(this.storeDir, constants.R_OK | constants.X_OK);
    } catch (error) {
      throw new CheckpointError(
        'IO_FAILED',
        `could not read the snapshot store ${this.storeDir}: ${(error as Error).message}`,
      );
    }
  }

  /**
   * Security: the store's git folder and the folders in it that we write in ourselves (refs, objects, our
   * exclude rules) are real folders, and its own files plain files: a link there would carry git's writes
   * and ours into whatever it points at, another repository's `.git` say (safety audit of 2026-12-07,
   * items 2 and 4). Checked before anything is written, so a refusal leaves the store as it was.
   */
  protected refuseGitFolderLinks(): void {
    for (const dir of STORE_GIT_FOLDERS) refuseStoreFolderLink(path.join(this.gitDir, dir));
    for (const file of STORE_FILES) refuseStoreFileLink(path.join(this.storeDir, file));
    for (const file of STORE_GIT_FILES) refuseStoreFileLink(path.join(this.gitDir, file));
  }

  /** When the store started borrowing the project's objects (see store-setup), or `null`. */
  async borrowingSince(): Promise<Date | null> {
    // Synchronous: one stat, for which a snapshot in its own process would otherwise load fs/promises.
    try {
      const stats = statSync(path.join(this.gitDir, 'objects', 'info', 'alternates'), {
        throwIfNoEntry: false,
      });
      return stats ? stats.mtime : null;
    } catch {
      return null;
    }
  }

  /**
   * Runs `task` holding the store's lock: snapshots, restores and GC never interleave across processes.
   * `readsOnly`: a listing, which writes no object (spared the fan-out folders' check, which every writer
   * gets: `status` and `list` run one on every call) and whose caller has just refused a store that
   * cannot be used (assertUsable, which checks the same links).
   */
  async withLock<T>(task: () => Promise<T>, options: { readsOnly?: boolean } = {}): Promise<T> {
    this.refuseProjectInStore();
    // The folders first (safe to race: mkdir tolerates an existing folder), then the lock inside them.
    await ensurePrivateDirs(this.storeFolders());
    // Every writer holds the lock: a snapshot's git writes its objects into the fan-out folders.
    if (!options.readsOnly) {
      this.refuseGitFolderLinks();
      refuseFanOutLinks(path.join(this.gitDir, 'objects'));
    }
    // Read before this process takes the lock: unchanged, and the lock taken at the first try, says no
    // one held it since (a scan the CLI's loader started may then stand; see takeEarlyScan).
    const folderBefore = storeFolderStamp(this.storeDir);
    return withFileLock(
      this.lockPath,
      async () => {
        const [, leftover] = await Promise.all([
          waitForOrphanedGc(this.gitDir),
          waitForOrphanedGit(this.gitDir),
        ]);
        // Holding our lock means no git process of ours runs on this store: an index.lock is a leftover
        // of one that was killed, and would block every later call.
        if (leftover) await fsp.rm(path.join(this.gitDir, 'index.lock'), { force: true });
        return task();
      },
      {
        timeoutMs: 60_000,
        staleMs: 15 * 60_000,
        onTaken: (atFirstTry) => {
          this.lockedFrom = atFirstTry ? folderBefore : null;
        },
      },
    ).finally(() => {
      this.lockedFrom = null;
    });
  }

  /**
   * Runs a read of the store as git's readers do: without its lock while no writer is at work, that is
   * no lock, no gc or git process a killed owner left running, and none that came and went during the
   * read (the store folder's stamp: every writer takes the lock in it). Otherwise, or when that read
   * fails, it reads again holding the lock (withLock's `readsOnly`), so a listing still waits for a
   * snapshot being written (see onContentTaken). `read` is told whether it holds the lock: without it,
   * it may write nothing (throw ReadNeedsLock instead). Taking the lock, with its owner record, link and
   * clean-up, was a tenth of `list`'s work (issue 26).
   */
  async readWithoutWriters<T>(read: (isLocked: boolean) => Promise<T>): Promise<T> {
    this.refuseProjectInStore();
    // The folders withLock checks first: a link in their place is refused here too.
    ensureStoreFolders(this.storeFolders());
    const before = this.quietStamp();
    if (before !== null) {
      try {
        const value = await read(false);
        if (this.quietStamp() === before) return value;
      } catch (error) {
        // A git that ran out of time would only run out again under the lock, as long (review).
        if (isGitTimeout(error)) throw error;
        // Else read again below, under the lock: a writer's change mid-read, or an error the lock's read repeats.
      }
    }
    return this.withLock(() => read(true), { readsOnly: true });
  }

  /**
   * The store folder's times while no writer is at work in the store, else `null`. Not storeFolderStamp's
   * nanoseconds: their BigInt stats cost `list` 0.5M instructions, where a double keeps a fraction of a
   * microsecond, well under the file system's clock tick.
   */
  private quietStamp(): string | null {
    const folder = lstatSync(this.storeDir, { throwIfNoEntry: false });
    const stamp =
      folder?.isDirectory() && !isWholeSecond(folder.mtimeMs % 1000)
        ? `${folder.mtimeMs}:${folder.ctimeMs}`
        : null;
    const busy = [this.lockPath, path.join(this.gitDir, 'gc.pid'), path.join(this.gitDir, 'index.lock')].some(
      (file) => lstatSync(file, { throwIfNoEntry: false }) !== undefined,
    );
    return busy ? null : stamp;
  }

  /** The store's base, its `projects` folder and this project's folder, outermost first. */
  private storeFolders(): string[] {
    return [path.dirname(path.dirname(this.storeDir)), path.dirname(this.storeDir), this.storeDir];
  }

  private refuseProjectInStore(): void {
    const base = path.dirname(path.dirname(this.storeDir));
    if (isProjectInStore(this.root, base))
      throw new CheckpointError(
        'UNSAFE_PATH',
        `refusing to take snapshots of ${this.root}: it lies inside the snapshot store ${base}, which a snapshot or restore of it would hold or write over; run it from your project, or set storeDir elsewhere`,
      );
  }

  /**
   * While this process holds the lock, having taken it at its first try: the store folder's stamp from
   * just before (storeFolderStamp); `null` otherwise.
   */
  protected lockedFrom: string | null = null;

  /**
   * The store's size: measured by the last gc plus what was added since, at most; walked and written down
   * when never measured, which `mayMeasure: false` (a read without the lock) refuses with ReadNeedsLock.
   */
  async usageBytes({ mayMeasure = true }: { mayMeasure?: boolean } = {}): Promise<number> {
    const usage = readUsage(this.storeDir);
    if (usage && isMeasured(usage)) return estimatedBytes(usage);
    if (!mayMeasure) throw new ReadNeedsLock('the store was never measured');
    const measuredBytes = await this.sizeBytes();
    writeUsage(this.storeDir, {
      measuredBytes,
      measuredAt: new Date().toISOString(),
      addedBytes: 0,
      unpackedSnapshots: 0,
    });
    return measuredBytes;
  }

  /** The latest snapshot, from the state file (no git process), or from the refs when the file is missing. */
  async latest(): Promise<SnapshotRecord | null> {
    const state = await readState(this.statePath);
    if (state.latest !== undefined) return state.latest;
    return (await this.list())[0] ?? null;
  }

  snapshotIds(): Promise<Array<{ id: string; createdAt: string }>> {
    return catalog.snapshotIds(this.gitDir);
  }

  /** Every snapshot, newest first. */
  async list(): Promise<SnapshotRecord[]> {
    return (await this.exists()) ? catalog.listSnapshotRecords(this.git, this.gitDir) : [];
  }

  /** The `limit` newest snapshots and how many there are, reading only those `limit` (see newestIds). */
  async listNewest(
    limit: number,
    known?: ReadonlyArray<{ id: string }>,
  ): Promise<{ snapshots: SnapshotRecord[]; total: number }> {
    if (!(await this.exists())) return { snapshots: [], total: 0 };
    const ids = known ?? (await this.snapshotIds());
    // The state file names the latest snapshot: when that is the newest by name, alone in its second or
    // newer than the others of its second the state knows (see latestSecond), the newest one needs no
    // commit read (`status` on every call).
    const newest = catalog.newestIds(ids, 1);
    if (limit === 1 && newest.length > 0) {
      const { latest, latestSecond = {} } = await readState(this.statePath);
      const isNewest = (id: string) => {
        const createdAt = latestSecond[id];
        return createdAt !== undefined && latest != null && catalog.isNewer(latest, { id, createdAt });
      };
      if (latest && newest.includes(latest.id) && newest.every((id) => id === latest.id || isNewest(id)))
        return { snapshots: [latest], total: ids.length };
    }
    if (ids.length <= limit) {
      const snapshots = await catalog.listSnapshotRecords(
        this.git,
        this.gitDir,
        ids.map((entry) => entry.id),
      );
      return { snapshots, total: snapshots.length };
    }
    const records = await catalog.listSnapshotRecords(this.git, this.gitDir, catalog.newestIds(ids, limit));
    return { snapshots: records.slice(0, limit), total: ids.length };
  }

  sizeBytes(): Promise<number> {
    return storeSizeBytes(this.storeDir, this.lockPath);
  }
}

/** A read without the store's lock (readWithoutWriters) would have to write: it reads again holding it. */
class ReadNeedsLock extends Error {}

/** The folders of the store's git folder checked by refuseGitFolderLinks, the git folder itself first. */
const STORE_GIT_FOLDERS = [
  '',
  'info',
  'objects',
  path.join('objects', 'info'),
  // gc deletes the packs it replaces in here (review of 2026-12-07: through a link, another repository's).
  path.join('objects', 'pack'),
  'refs',
  path.join('refs', 'heads'),
  path.join('refs', 'snapshots'),
];

/** The store's own files that are written in place or replaced (SnapshotStore's kinds and restore journal). */
const STORE_FILES = ['kinds.jsonl', 'state.json', 'restore-journal.json'];

/**
 * The files of the store's git folder that git writes through a link in their place: its lock files
 * follow links, and the new content is renamed over the link's target (the index on every snapshot,
 * packed-refs when refs are packed or one packed is deleted, HEAD, config). What git only replaces or
 * unlinks (sharedindex.*, index.lock, the packs' files) and gc.pid, which we write with O_NOFOLLOW, are
 * harmless as links and not checked. The fan-out folders objects/xx are checked by withLock, before
 * every writer (refuseFanOutLinks: one listing of objects/), and by loose-object.ts and snapshot-gc.ts
 * where they write or prune; not by a listing (withLock's `readsOnly`).
 */
const STORE_GIT_FILES = ['index', 'packed-refs', 'HEAD', 'config'];
