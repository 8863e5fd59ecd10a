import { CHECKPOINT_FILE } from '../core/paths.js';
import { type SettingOrigin, settingErrors } from '../core/settings.js';
import { isIgnoredByGit, locateRepo } from '../git/repo.js';
import { readSettings } from '../store/settings-file.js';
import type { AppDeps } from './deps.js';
import { type LoadOutcome, loadCheckpoint } from './load.js';
import { listSnapshots } from './rewind.js';
import { type ResolvedRoot, resolveProjectRoot } from './root.js';
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
  /** `null` outside a git repository. */
  checkpointIgnored: boolean | null;
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
  const root = await resolveProjectRoot({ argument: request.projectRoot, env: deps.env, cwd: deps.cwd() });
  // Whether git ignores the checkpoint is asked alongside the rest: its git process need not wait.
  const ignored = locateRepo(root.root).then((found) =>
    found ? isIgnoredByGit(root.root, CHECKPOINT_FILE) : null,
  );
  ignored.catch(() => undefined); // awaited below
  const [checkpoint, snapshots] = await Promise.all([
    // The latest snapshot comes from the listing below: the load need not look it up again.
    loadCheckpoint(deps, { projectRoot: root.root }, {}, { mentionSnapshot: false }).catch(
      (error: Error) => ({
        found: 'error' as const,
        error: error.message,
      }),
    ),
    // A folder where snapshots are refused (a home folder) still gets its status, without snapshots; a
    // wrong setting is said below, not in the way of the listing.
    listSnapshots({ ...deps, settingsProblem: () => undefined }, { projectRoot: root.root, limit: 1 }).catch(
      () => null,
    ),
  ]);
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
    checkpointIgnored: await ignored,
    includeIgnored: {
      patterns: settings.values.snapshotIncludeIgnored,
      from: settings.origins.snapshotIncludeIgnored,
    },
    settingErrors: settingErrors(settings.problems).map((problem) => problem.message),
    wholeStore: await storeDiskUse(deps.env),
  };
}
