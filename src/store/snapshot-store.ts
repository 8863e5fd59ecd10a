import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { CheckpointError } from '../core/errors.js';
import {
  type ChangeCounts,
  isRestorablePath,
  type SnapshotMeta,
  type SnapshotRecord,
  type SnapshotSettings,
  snapshotMetaSchema,
} from '../core/snapshot.js';
import { readHead } from '../git/repo.js';
import { runGit } from '../git/run.js';
import { parseStatusV2 } from '../git/status.js';
import { writeFileAtomic } from './atomic-write.js';
import { errorCode } from './fs-seam.js';
import { inheritedIgnoreRules } from './inherited-ignores.js';
import { withFileLock } from './lock.js';
import { localProbe } from './lock-owner.js';
import { RESTORE_TEMP_PREFIX, type TreeChange, WorktreeWriter } from './worktree-writer.js';

export type { TreeChange } from './worktree-writer.js';

export interface CaptureResult {
  tree: string;
  changes: ChangeCounts;
  skipped: SnapshotMeta['skipped'];
}

export interface RestoreJournal {
  target: string;
  undo: string;
  /** Folders (relative, '.' for the root) where the restore writes temp files. */
  dirs: string[];
  startedAt: string;
}

export interface DiffEntry {
  path: string;
  status: 'A' | 'M' | 'D' | 'T';
  added: number | null;
  deleted: number | null;
}

const SNAPSHOT_REFS = 'refs/snapshots/';
const GIT_LONG_TIMEOUT_MS = 10 * 60_000;
const IDENTITY = {
  GIT_AUTHOR_NAME: 'claude-checkpoint',
  GIT_AUTHOR_EMAIL: 'claude-checkpoint@localhost',
  GIT_COMMITTER_NAME: 'claude-checkpoint',
  GIT_COMMITTER_EMAIL: 'claude-checkpoint@localhost',
};
/** Raw bytes in and out: no EOL conversion, no LFS or other filters, whatever the project's attributes say. */
const RAW_ATTRIBUTES = '* -text -eol -filter -ident -working-tree-encoding\n';
const OWN_EXCLUDES = `/.claude-checkpoint\n/.claude-checkpoint.*\n${RESTORE_TEMP_PREFIX}*\n`;

/**
 * The private snapshot store of one project: a shadow git directory with its own index, config and no
 * hooks, outside the working tree. It reads the project's files and writes only inside `storeDir`;
 * the user's repository (HEAD, index, refs, config, hooks, .gitignore) is never touched.
 */
export class SnapshotStore {
  readonly gitDir: string;
  private readonly lockPath: string;
  private readonly journalPath: string;
  private readonly statePath: string;

  constructor(
    readonly root: string,
    readonly storeDir: string,
    readonly settings: SnapshotSettings,
  ) {
    this.gitDir = path.join(storeDir, 'git');
    this.lockPath = path.join(storeDir, 'lock');
    this.journalPath = path.join(storeDir, 'restore-journal.json');
    this.statePath = path.join(storeDir, 'state.json');
  }

  /** Whether a store exists for this project (read-only callers should not create one). */
  async exists(): Promise<boolean> {
    return fsp.access(path.join(this.gitDir, 'HEAD')).then(
      () => true,
      () => false,
    );
  }

  /** When the store started borrowing the project's objects (see borrowFromProjectRepo), or `null`. */
  async borrowingSince(): Promise<Date | null> {
    const stats = await fsp.stat(path.join(this.gitDir, 'objects', 'info', 'alternates')).catch(() => null);
    return stats ? stats.mtime : null;
  }

  /** Runs `task` holding the store's lock: snapshots, restores and GC never interleave across processes. */
  async withLock<T>(task: () => Promise<T>): Promise<T> {
    // The folders first (safe to race: mkdir tolerates an existing folder), then the lock inside them.
    await this.ensurePrivateDir(path.dirname(path.dirname(this.storeDir)));
    await this.ensurePrivateDir(path.dirname(this.storeDir));
    await this.ensurePrivateDir(this.storeDir);
    return withFileLock(
      fsp,
      this.lockPath,
      async () => {
        // A killed owner's git child lives on: a `git gc --prune=now` still running would delete the
        // objects this call writes. git names it in gc.pid until it exits.
        await this.waitForOrphanedGc();
        // Holding our lock means no git process of ours runs on this store: an index.lock is a leftover
        // of one that was killed, and would block every later call.
        await fsp.rm(path.join(this.gitDir, 'index.lock'), { force: true });
        return task();
      },
      { timeoutMs: 60_000, staleMs: 15 * 60_000 },
    );
  }

  private async waitForOrphanedGc(): Promise<void> {
    const gcPid = path.join(this.gitDir, 'gc.pid');
    const deadline = Date.now() + GIT_LONG_TIMEOUT_MS;
    for (;;) {
      const text = await fsp.readFile(gcPid, 'utf8').catch(() => null);
      const [pid, host] = (text ?? '').trim().split(/\s+/);
      const owner = Number(pid);
      if (!text || host !== localProbe().host || !Number.isSafeInteger(owner) || !localProbe().isAlive(owner))
        return;
      if (Date.now() > deadline) return; // git's own gc.pid rules take over from here
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Creates the shadow repository on first use, or repairs one whose set-up was interrupted. Call it holding the lock. */
  async init(): Promise<void> {
    const ready = path.join(this.gitDir, 'claude-checkpoint-ready');
    if (
      await fsp.access(ready).then(
        () => true,
        () => false,
      )
    )
      return;
    // Owner-only files and folders whatever the umask (--shared=0600), and no sample hooks (--template=).
    await runGit(['init', '--quiet', '--bare', '--shared=0600', '--template=', this.gitDir], {
      cwd: this.storeDir,
    });
    // Written in one go rather than one `git config` process per key.
    const config = [
      '[core]',
      '\tbare = false',
      '\tautocrlf = false',
      '\tsafecrlf = false',
      '\tsymlinks = true',
      '\tfilemode = true',
      '\tfsmonitor = false',
      '\tlogAllRefUpdates = false',
      `\thooksPath = ${path.join(this.gitDir, 'no-hooks')}`,
      '\tuntrackedCache = true',
      // Each index write then rewrites only the entries that changed, not the whole 100k-entry index.
      '\tsplitIndex = true',
      '[gc]',
      '\tauto = 0',
      '[maintenance]',
      '\tauto = false',
      '[commit]',
      '\tgpgSign = false',
      '[index]',
      '\tthreads = true',
      // Index v4, the untracked cache and no index checksum: what git recommends for large trees.
      '[feature]',
      '\tmanyFiles = true',
      '',
    ].join('\n');
    await fsp.appendFile(path.join(this.gitDir, 'config'), config);
    await fsp.mkdir(path.join(this.gitDir, 'info'), { recursive: true, mode: 0o700 });
    await this.borrowFromProjectRepo();
    await fsp.writeFile(ready, `${this.root}\n`, { mode: 0o600 });
  }

  /**
   * When the project is the top of a git repository, start from a copy of its index and read its
   * objects through `alternates`, so the first snapshot hashes only the dirty files instead of the whole
   * tree. Both are read, never written. `gc` copies the borrowed objects into the store and stops
   * borrowing, so the store then no longer depends on what the repository keeps.
   */
  private async borrowFromProjectRepo(): Promise<void> {
    let stdout: string;
    try {
      ({ stdout } = await runGit(
        [
          'rev-parse',
          '--show-prefix',
          '--show-object-format',
          '--path-format=absolute',
          '--git-common-dir',
          '--git-path',
          'index',
        ],
        { cwd: this.root },
      ));
    } catch {
      return; // not a repository, or git too old for --path-format: start empty
    }
    const [prefix, format, commonDir, indexPath] = stdout.split('\n');
    if (prefix !== '' || format !== 'sha1' || !commonDir || !indexPath) return;
    const head = await readHead(this.root);
    if (!head) return;
    const shared = await fsp.readdir(path.dirname(indexPath)).catch(() => [] as string[]);
    if (shared.some((name) => name.startsWith('sharedindex.'))) return; // a split index cannot be copied alone
    try {
      await fsp.copyFile(indexPath, path.join(this.gitDir, 'index'));
      await fsp.chmod(path.join(this.gitDir, 'index'), 0o600);
    } catch {
      return; // no index yet
    }
    await fsp.mkdir(path.join(this.gitDir, 'objects', 'info'), { recursive: true, mode: 0o700 });
    await fsp.writeFile(
      path.join(this.gitDir, 'objects', 'info', 'alternates'),
      `${path.join(commonDir, 'objects')}\n`,
      { mode: 0o600 },
    );
    // HEAD at the project's commit, so the first status lists only what differs from it; and the copied
    // index rewritten in the store's own format (v4, untracked cache, split).
    await this.git(['update-ref', 'refs/heads/master', head.head]);
    await this.git(['update-index', '--index-version', '4', '--untracked-cache', '--split-index']);
  }

  /**
   * Brings the private index up to date with the working tree and writes its tree, then counts what
   * changed since `baseTree` (the latest snapshot's). One `git status` in the store finds what changed:
   * its index is tuned for many files (v4, untracked cache, split index, no checksum) and its HEAD is the latest
   * snapshot, so the scan is cheaper than the user's own `git status`. Only the changed paths are then
   * hashed, and an unchanged tree costs nothing more. Files over the size cap and nested repositories
   * are left out, excluded from then on, and reported with every snapshot.
   */
  async capture(baseTree?: string): Promise<CaptureResult> {
    const state = await this.readState();
    await this.refreshExclusions(state);
    await this.syncInfo(state.exclusions);
    const { stdout } = await this.git([
      'status',
      '--porcelain=v2',
      '-z',
      '--untracked-files=all',
      '--no-renames',
      '--ignore-submodules=all',
    ]);
    const toAdd: string[] = [];
    const toDrop: string[] = [];
    const exclude = (file: string, bytes: number, tracked: boolean) => {
      state.exclusions.large = state.exclusions.large.filter((entry) => entry.path !== file);
      state.exclusions.large.push({ path: file, bytes });
      if (tracked) toDrop.push(file);
    };
    // Counted against HEAD, which is the latest snapshot: what was in it (headOid) and what is there now.
    const counts: ChangeCounts = { added: 0, modified: 0, deleted: 0 };
    for (const entry of parseStatusV2(stdout).entries) {
      if (entry.isSubmodule) continue;
      const untracked = entry.status === '??';
      if (untracked && entry.path.endsWith('/')) {
        // git does not descend into another repository: a nested repo, skipped visibly.
        const dir = entry.path.slice(0, -1);
        if (!state.exclusions.nested.includes(dir)) state.exclusions.nested.push(dir);
        continue;
      }
      const inBase = entry.headOid !== null;
      const stats = await fsp.lstat(path.join(this.root, entry.path)).catch(() => null);
      if (!stats || stats.isDirectory()) {
        if (!untracked) toDrop.push(entry.path);
        if (inBase) counts.deleted++;
      } else if (stats.isFile() && stats.size > this.settings.maxFileBytes) {
        exclude(entry.path, stats.size, !untracked);
        if (inBase) counts.deleted++;
      } else {
        toAdd.push(entry.path);
        if (inBase) counts.modified++;
        else counts.added++;
      }
    }
    if (toDrop.length > 0) {
      // Drop first: a file that became a folder must leave the index before the folder's files enter it.
      await this.git(['update-index', '-z', '--force-remove', '--stdin'], { input: nulJoin(toDrop) });
    }
    if (toAdd.length > 0) {
      await this.git(['update-index', '-z', '--add', '--remove', '--stdin'], { input: nulJoin(toAdd) });
    }
    await this.syncInfo(state.exclusions);
    const indexChanged = toAdd.length > 0 || toDrop.length > 0;
    const tree =
      !indexChanged && state.index ? state.index.tree : (await this.git(['write-tree'])).stdout.trim();
    // Status counts hold when HEAD is the base (the usual case); otherwise ask git for the exact diff.
    const headIsBase = baseTree !== undefined && state.latest?.tree === baseTree;
    const changes =
      tree === baseTree
        ? { added: 0, modified: 0, deleted: 0 }
        : headIsBase
          ? counts
          : await this.countChanges(baseTree, tree);
    state.index = { tree };
    await this.writeState(state);
    return {
      tree,
      changes,
      skipped: { large: [...state.exclusions.large], nested: [...state.exclusions.nested] },
    };
  }

  /** Files added, modified and deleted between two trees (folders of nested repositories not counted). */
  private async countChanges(baseTree: string | undefined, tree: string): Promise<ChangeCounts> {
    const counts: ChangeCounts = { added: 0, modified: 0, deleted: 0 };
    if (!baseTree) {
      const { stdout } = await this.git(['ls-tree', '-r', '-z', '--full-tree', '--name-only', tree]);
      counts.added = stdout.split('\0').filter(Boolean).length;
      return counts;
    }
    for (const change of await this.changesBetween(baseTree, tree)) {
      if (change.afterMode === '160000' || change.beforeMode === '160000') continue;
      if (change.status === 'A') counts.added++;
      else if (change.status === 'D') counts.deleted++;
      else counts.modified++;
    }
    return counts;
  }

  /** Large files that shrank under the cap, or went away, and nested repositories that went away, come back. */
  private async refreshExclusions(state: StoreState): Promise<void> {
    const large: StoreState['exclusions']['large'] = [];
    for (const entry of state.exclusions.large) {
      const stats = await fsp.lstat(path.join(this.root, entry.path)).catch(() => null);
      if (stats?.isFile() && stats.size > this.settings.maxFileBytes)
        large.push({ path: entry.path, bytes: stats.size });
    }
    const nested: string[] = [];
    for (const dir of state.exclusions.nested) {
      if (
        await fsp.lstat(path.join(this.root, dir, '.git')).then(
          () => true,
          () => false,
        )
      )
        nested.push(dir);
    }
    state.exclusions = { large, nested };
  }

  /** The working tree's tree now, with changes counted against the latest snapshot. */
  async captureSinceLatest(): Promise<CaptureResult> {
    return this.capture((await this.latest())?.tree);
  }

  /** The latest snapshot, from the state file (no git process), or from the refs when the file is missing. */
  async latest(): Promise<SnapshotRecord | null> {
    const state = await this.readState();
    if (state.latest !== undefined) return state.latest;
    return (await this.list())[0] ?? null;
  }

  async setLatest(record: SnapshotRecord | null): Promise<void> {
    const state = await this.readState();
    state.latest = record;
    await this.writeState(state);
  }

  private async readState(): Promise<StoreState> {
    try {
      const parsed = JSON.parse(await fsp.readFile(this.statePath, 'utf8')) as Partial<StoreState>;
      return {
        ...(parsed.latest !== undefined ? { latest: parsed.latest } : {}),
        ...(parsed.index ? { index: parsed.index } : {}),
        exclusions: {
          large: Array.isArray(parsed.exclusions?.large) ? parsed.exclusions.large : [],
          nested: Array.isArray(parsed.exclusions?.nested) ? parsed.exclusions.nested : [],
        },
      };
    } catch {
      return { exclusions: { large: [], nested: [] } };
    }
  }

  private async writeState(state: StoreState): Promise<void> {
    // A cache of what git can tell again: atomic, but not worth an fsync on every snapshot.
    await writeFileAtomic(fsp, this.statePath, `${JSON.stringify(state)}\n`, { durable: false });
  }

  /** Records a captured tree as a snapshot. */
  async record(meta: SnapshotMeta, tree: string): Promise<SnapshotRecord> {
    const message = `${JSON.stringify(meta)}\n`;
    const date = `${Math.floor(new Date(meta.createdAt).getTime() / 1000)} +0000`;
    const { stdout } = await this.git(['commit-tree', '--no-gpg-sign', tree, '-F', '-'], {
      input: message,
      extraEnv: { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
    });
    const commit = stdout.trim();
    // The snapshot's ref, and HEAD (master) at the latest snapshot so the next status compares with it.
    // Written as loose ref files, git's stable on-disk format, in this private repository: one process
    // less on every prompt. A loose ref takes precedence over a packed one of the same name.
    await this.writeLooseRef(`${SNAPSHOT_REFS}${meta.id}`, commit);
    await this.writeLooseRef('refs/heads/master', commit);
    return { ...meta, tree, commit };
  }

  private async writeLooseRef(ref: string, oid: string): Promise<void> {
    const file = path.join(this.gitDir, ...ref.split('/'));
    await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await writeFileAtomic(fsp, file, `${oid}\n`, { durable: false });
  }

  /**
   * The ids of all snapshots, from the ref files and packed-refs, without starting git. Ids begin with
   * their UTC creation time, which is all that retention needs.
   */
  async snapshotIds(): Promise<Array<{ id: string; createdAt: string }>> {
    const ids = new Set<string>(
      await fsp.readdir(path.join(this.gitDir, 'refs', 'snapshots')).catch(() => [] as string[]),
    );
    const packed = await fsp.readFile(path.join(this.gitDir, 'packed-refs'), 'utf8').catch(() => '');
    for (const line of packed.split('\n')) {
      const ref = line.split(' ')[1];
      if (ref?.startsWith(SNAPSHOT_REFS)) ids.add(ref.slice(SNAPSHOT_REFS.length));
    }
    return [...ids]
      .filter((id) => /^\d{8}-\d{6}-[0-9a-f]{6}$/.test(id))
      .map((id) => ({
        id,
        createdAt: `${id.slice(0, 4)}-${id.slice(4, 6)}-${id.slice(6, 8)}T${id.slice(9, 11)}:${id.slice(11, 13)}:${id.slice(13, 15)}.000Z`,
      }));
  }

  /** Every snapshot, newest first. */
  async list(): Promise<SnapshotRecord[]> {
    if (!(await this.exists())) return [];
    const { stdout } = await this.git([
      'for-each-ref',
      '--sort=-creatordate',
      '--format=%(objectname) %(tree)%00%(contents)%00',
      SNAPSHOT_REFS,
    ]);
    const records: SnapshotRecord[] = [];
    for (const entry of stdout.split('\0\n')) {
      const [head = '', body = ''] = entry.split('\0');
      const [commit, tree] = head.trim().split(' ');
      if (!commit || !tree) continue;
      try {
        const meta = snapshotMetaSchema.parse(JSON.parse(body));
        records.push({ ...meta, tree, commit });
      } catch {
        // Not one of ours, or damaged: listing the rest is more useful than failing.
      }
    }
    return records.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
  }

  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const input = ids.map((id) => `delete ${SNAPSHOT_REFS}${id}\n`).join('');
    await this.git(['update-ref', '--stdin'], { input });
  }

  /** Files that differ between two trees, optionally limited to some paths. */
  async changesBetween(
    fromTree: string,
    toTree: string,
    paths: readonly string[] = [],
  ): Promise<TreeChange[]> {
    const { stdout } = await this.git([
      'diff-tree',
      '-r',
      '-z',
      '--no-renames',
      '--raw',
      fromTree,
      toTree,
      '--',
      ...paths,
    ]);
    const parts = stdout.split('\0');
    const changes: TreeChange[] = [];
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const [beforeMode = '', afterMode = '', beforeOid = '', afterOid = '', status = ''] = (parts[i] ?? '')
        .slice(1)
        .split(' ');
      const file = parts[i + 1] ?? '';
      if (status === 'A' || status === 'M' || status === 'D' || status === 'T') {
        changes.push({ path: file, status, beforeMode, afterMode, beforeOid, afterOid });
      }
    }
    return changes;
  }

  /** A file list with line counts (null for binary files). */
  async diffStat(fromTree: string, toTree: string, paths: readonly string[] = []): Promise<DiffEntry[]> {
    const changes = await this.changesBetween(fromTree, toTree, paths);
    const { stdout } = await this.git([
      'diff-tree',
      '-r',
      '-z',
      '--no-renames',
      '--numstat',
      fromTree,
      toTree,
      '--',
      ...paths,
    ]);
    const counts = new Map<string, { added: number | null; deleted: number | null }>();
    for (const record of stdout.split('\0')) {
      const match = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(record);
      if (!match) continue;
      const [, added = '-', deleted = '-', file = ''] = match;
      counts.set(file, {
        added: added === '-' ? null : Number(added),
        deleted: deleted === '-' ? null : Number(deleted),
      });
    }
    return changes.map((change) => ({
      path: change.path,
      status: change.status,
      ...(counts.get(change.path) ?? { added: null, deleted: null }),
    }));
  }

  /** A unified diff of one path between two trees. */
  async unifiedDiff(fromTree: string, toTree: string, file: string): Promise<string> {
    const { stdout } = await this.git([
      'diff-tree',
      '-p',
      '--no-renames',
      '--no-ext-diff',
      '--no-textconv',
      '--no-color',
      fromTree,
      toTree,
      '--',
      file,
    ]);
    return stdout;
  }

  /**
   * Makes the working tree match `changes` (from the current tree to the target); see WorktreeWriter.
   * The private index is left as it is: the next capture sees exactly these files as changed and re-reads
   * only them, so a restore costs what it restores, not what the tree holds.
   */
  apply(changes: readonly TreeChange[], onProgress?: (done: number, total: number) => void): Promise<void> {
    return new WorktreeWriter(this.root, this.gitDir).apply(changes, onProgress);
  }

  /**
   * Notes a restore in progress (its target, the snapshot that undoes it, the folders it writes in), so
   * an interrupted one can be named, and its temp files found and removed, by the next restore.
   */
  async beginRestore(journal: RestoreJournal): Promise<void> {
    await writeFileAtomic(fsp, this.journalPath, JSON.stringify(journal));
  }

  async endRestore(): Promise<void> {
    await fsp.rm(this.journalPath, { force: true });
  }

  /** Cleans up after a restore that was killed midway; returns what it was doing, or `null`. */
  async recoverInterruptedRestore(): Promise<RestoreJournal | null> {
    let journal: RestoreJournal;
    try {
      journal = JSON.parse(await fsp.readFile(this.journalPath, 'utf8')) as RestoreJournal;
    } catch {
      return null;
    }
    for (const dir of Array.isArray(journal.dirs) ? journal.dirs : []) {
      if (dir !== '.' && !isRestorablePath(dir)) continue;
      const absolute = path.join(this.root, dir);
      const names = await fsp.readdir(absolute).catch(() => [] as string[]);
      for (const name of names) {
        if (name.startsWith(RESTORE_TEMP_PREFIX)) await fsp.rm(path.join(absolute, name), { force: true });
      }
    }
    return journal;
  }

  /** Deletes unreferenced content; returns the store's size before and after, in bytes. */
  async gc(): Promise<{ beforeBytes: number; afterBytes: number }> {
    const beforeBytes = await this.sizeBytes();
    if (await this.exists()) {
      await this.git(['reflog', 'expire', '--expire=now', '--all']);
      const alternates = path.join(this.gitDir, 'objects', 'info', 'alternates');
      if (
        await fsp.access(alternates).then(
          () => true,
          () => false,
        )
      ) {
        // Copy what snapshots borrow from the project's repository into the store, then stop borrowing.
        await this.git(['repack', '-a', '-d', '-q']);
        await fsp.rm(alternates, { force: true });
      }
      await this.git(['gc', '--prune=now', '--quiet']);
    }
    return { beforeBytes, afterBytes: await this.sizeBytes() };
  }

  async sizeBytes(): Promise<number> {
    let total = 0;
    const walk = async (dir: string): Promise<void> => {
      const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (full === this.lockPath)
          continue; // transient, and held while GC measures
        else total += (await fsp.lstat(full).catch(() => null))?.size ?? 0;
      }
    };
    await walk(this.storeDir);
    return total;
  }

  private git(
    args: readonly string[],
    options: { input?: string; extraEnv?: Record<string, string>; okExitCodes?: number[] } = {},
  ) {
    return runGit(['--git-dir', this.gitDir, '--work-tree', this.root, ...args], {
      cwd: this.root,
      timeoutMs: GIT_LONG_TIMEOUT_MS,
      // Optional locks on: this index is ours (we hold the store lock), and letting status write back
      // refreshed stat data and the untracked cache is what keeps the next scan cheap.
      extraEnv: { ...IDENTITY, GIT_OPTIONAL_LOCKS: '1', ...options.extraEnv },
      ...(options.okExitCodes ? { okExitCodes: options.okExitCodes } : {}),
      ...(options.input !== undefined ? { input: options.input } : {}),
    });
  }

  /**
   * The project's own exclude rules (.git/info/exclude) apply to snapshots too, plus our own files and
   * the paths we excluded; our attributes override the project's so content is stored byte for byte.
   */
  private async syncInfo(exclusions: StoreState['exclusions']): Promise<void> {
    // The project's own .git/info/exclude and, for a folder inside a bigger repository, the rules it
    // inherits from the folders above it (see inheritedIgnoreRules).
    const inherited = await inheritedIgnoreRules(this.root);
    const ours = [...exclusions.large.map((entry) => entry.path), ...exclusions.nested]
      .map(anchoredPattern)
      .join('');
    await this.writeIfChanged(
      path.join(this.gitDir, 'info', 'exclude'),
      `${OWN_EXCLUDES}${ours}${inherited}`,
    );
    await this.writeIfChanged(path.join(this.gitDir, 'info', 'attributes'), RAW_ATTRIBUTES);
  }

  private async writeIfChanged(file: string, wanted: string): Promise<void> {
    const current = await fsp.readFile(file, 'utf8').catch(() => null);
    if (current !== wanted) await fsp.writeFile(file, wanted, { mode: 0o600 });
  }

  /** Security: the store folder is created 0700 and must not be a symlink someone planted. */
  private async ensurePrivateDir(dir: string): Promise<void> {
    try {
      await fsp.mkdir(dir, { mode: 0o700 });
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') {
        if (errorCode(error) === 'ENOENT') {
          await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
          return;
        }
        throw new CheckpointError(
          'IO_FAILED',
          `could not create the snapshot store ${dir}: ${(error as Error).message}`,
        );
      }
    }
    const stats = await fsp.lstat(dir);
    if (stats.isSymbolicLink() || !stats.isDirectory()) {
      throw new CheckpointError(
        'UNSAFE_PATH',
        `refusing to use the snapshot store ${dir}: it is a symbolic link or not a folder`,
      );
    }
  }
}

/** What the store remembers between calls, in `state.json`; rebuilt from git when missing. */
interface StoreState {
  latest?: SnapshotRecord | null;
  /** The tree of the private index as last written. */
  index?: { tree: string };
  exclusions: { large: Array<{ path: string; bytes: number }>; nested: string[] };
}

/** An exclude pattern that matches exactly one path from the root: wildcards and specials escaped. */
function anchoredPattern(file: string): string {
  const escaped = file.replace(/[\\*?[\]!#]/g, (char) => `\\${char}`).replace(/ $/, '\\ ');
  return `/${escaped}\n`;
}

function nulJoin(paths: readonly string[]): string {
  return `${paths.join('\0')}\0`;
}
