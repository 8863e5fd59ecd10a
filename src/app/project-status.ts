import { lstatSync } from 'node:fs';
import path from 'node:path';
import { CHECKPOINT_FILE } from '../core/paths.js';
import { type SettingOrigin, settingErrors } from '../core/settings.js';
import { mayIndexList } from '../git/index-file.js';
import {
  gitCannotRead,
  isIgnoredByGit,
  isReadable,
  locateRepo,
  type RepoState,
  type RepoUnreadable,
} from '../git/repo.js';
import { readSettings } from '../store/settings-file.js';
import type { AppDeps } from './deps.js';
import { type LoadOutcome, loadCheckpoint } from './load.js';
import { type ResolvedRoot, resolveProjectRoot } from './root.js';
import { listSnapshots } from './snapshot-list.js';
import { storeDiskUse, type WholeStoreReport } from './store-caps.js';

// Apart from `doctor` (status.ts), whose checks load what `status` never uses.

export interface StatusReport {
  root: ResolvedRoot;
  checkpoint: LoadOutcome | { found: 'error'; error: string };
  /** `null` where snapshots are not taken (a home folder, the file-system root). */
  snapshots: {
    count: number;
    latest: { id: string; createdAt: string; trigger: string } | null;
    storeBytes: number;
    storeDir: string;
  } | null;
  /** `null` outside a git repository, or where git cannot answer (see `gitProblem`). */
  checkpointIgnored: boolean | null;
  /** Why git could not answer in this repository (not installed, could not read it); `null` when it could. */
  gitProblem: string | null;
  /** The git-ignored files every snapshot includes anyway (patterns; none by default), and whose they are. */
  includeIgnored: { patterns: readonly string[]; from: SettingOrigin[] };
  /** Wrong values in the user's settings, which commands stop on (see `doctor`). */
  settingErrors: string[];
  /** Disk use of every project's store together (see storeDiskUse). */
  wholeStore: WholeStoreReport;
}

/** Everything `status` shows, gathered once. */
export async function projectStatus(
  deps: AppDeps,
  request: { projectRoot?: string | undefined },
): Promise<StatusReport> {
  const root = await resolveProjectRoot({
    argument: request.projectRoot,
    env: deps.env,
    cwd: deps.cwd,
    surface: deps.surface,
    argumentLabel: deps.rootArgument,
  });
  const checkpointFile = path.join(root.root, CHECKPOINT_FILE);
  const isFile = () => deps.fs.lstatSync(checkpointFile, { throwIfNoEntry: false })?.isFile() === true;
  // With a checkpoint file, the load's `git status` answers whether git ignores it (ignoredFromStatus);
  // without one, or where status cannot tell, `git check-ignore` does, alongside the rest.
  const askGit = () => {
    const asked = locateRepo(root.root)
      .then((found) => (found ? isIgnoredByGit(root.root, CHECKPOINT_FILE) : null))
      .catch((error: unknown) => {
        // Issue 26: git missing from PATH or a bad `.git/config` made `status` exit 1.
        const unreadable = gitCannotRead(error);
        if (unreadable === null) throw error;
        return { unreadable };
      });
    asked.catch(() => undefined); // awaited below
    return asked;
  };
  const wasFile = isFile();
  const early = wasFile ? null : askGit();
  let scan: Promise<RepoState | RepoUnreadable | null> | undefined;
  let wholeStore: Promise<WholeStoreReport> | undefined;
  const [checkpoint, snapshots] = await Promise.all([
    // The latest snapshot comes from the listing below: the load need not look it up again.
    loadCheckpoint(
      deps,
      { projectRoot: root.root },
      {},
      {
        mentionSnapshot: false,
        // `status` shows the checkpoint at a glance, never its brief.
        renderBrief: false,
        onScan: (repo) => {
          scan = repo;
        },
      },
    ).catch((error: Error) => ({
      found: 'error' as const,
      error: error.message,
    })),
    // A folder where snapshots are refused (a home folder) still gets its status, without snapshots; a
    // wrong setting is said below, not in the way of the listing.
    listSnapshots({ ...deps, settingsProblem: () => undefined }, { projectRoot: root.root, limit: 1 })
      .catch(() => null)
      .then((listing) => {
        // While the load waits for its `git status`: the figures of every project's store, read once the
        // listing, which may update this one's, is done (issue 26).
        wholeStore = storeDiskUse(deps.env);
        wholeStore.catch(() => undefined); // awaited below
        return listing;
      }),
  ]);
  const scanned = scan ? await scan.catch(() => null) : null;
  const repo = isReadable(scanned) ? scanned : null;
  const fromStatus = wasFile && repo && isFile() ? ignoredFromStatus(root.root, repo) : undefined;
  const ignored = early ?? (fromStatus === undefined ? askGit() : Promise.resolve(fromStatus));
  const answer = await ignored;
  const gitProblem =
    answer !== null && typeof answer === 'object'
      ? answer.unreadable
      : scanned && !isReadable(scanned)
        ? scanned.unreadable
        : null;
  const latest = snapshots?.snapshots[0];
  const settings = readSettings(deps.env, root.root);
  return {
    root,
    checkpoint,
    snapshots: snapshots && {
      count: snapshots.total,
      latest: latest ? { id: latest.id, createdAt: latest.createdAt, trigger: latest.trigger } : null,
      storeBytes: snapshots.storeBytes,
      storeDir: snapshots.storeDir,
    },
    checkpointIgnored: typeof answer === 'boolean' ? answer : null,
    gitProblem,
    includeIgnored: {
      patterns: settings.values.snapshotIncludeIgnored,
      from: settings.origins.snapshotIncludeIgnored,
    },
    settingErrors: settingErrors(settings.problems).map((problem) => problem.message),
    wholeStore: await (wholeStore ?? storeDiskUse(deps.env)),
  };
}

/**
 * What `git check-ignore` answers for the checkpoint file, read from a `git status --untracked-files=all`
 * that ran while the file was there: listed (untracked, or tracked and changed), it is not ignored; not
 * listed, it is ignored, unless git tracks it (check-ignore answers no for a tracked file), which only
 * the index tells. `undefined` where that cannot be settled without git (see mayIndexList).
 */
function ignoredFromStatus(root: string, repo: RepoState): boolean | undefined {
  if (repo.listedOwnFiles.includes(CHECKPOINT_FILE)) return false;
  const depth = repo.prefix.split('/').filter(Boolean).length;
  const gitDir = path.join(path.resolve(root, ...Array<string>(depth).fill('..')), '.git');
  try {
    if (!lstatSync(gitDir).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  return mayIndexList(path.join(gitDir, 'index'), `${repo.prefix}${CHECKPOINT_FILE}\0`) ? undefined : true;
}
