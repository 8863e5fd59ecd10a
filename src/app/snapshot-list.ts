import type { SettingValues } from '../core/settings.js';
import type { SnapshotRecord, SnapshotSettings } from '../core/snapshot.js';
import { readSettings, settingsOf, userConfigDir } from '../store/settings-file.js';
import { SnapshotReader } from '../store/snapshot-reader.js';
import { defaultStoreBase, projectStoreDir } from '../store/store-location.js';
import type { AppDeps } from './deps.js';
import { type ResolvedRoot, refuseNonProjectRoot, resolveProjectRoot } from './root.js';
import type { RootContext } from './save.js';

// Listing a project's snapshots, apart from taking and restoring them (rewind.ts): `list`, `status` and
// the resume brief load only this, and their bundle holds no snapshot writer, restore or gc (issue 26).

/** Retention, size cap and the ignored files to include, from the settings. */
export function snapshotSettings(settings: SettingValues): SnapshotSettings {
  return {
    maxCount: settings.snapshotMaxCount,
    maxAgeDays: settings.snapshotMaxAgeDays,
    maxFileBytes: Math.floor(settings.snapshotMaxFileMb * 1024 * 1024),
    keepAsideMaxBytes: Math.floor(settings.keepAsideMaxMb * 1024 * 1024),
    includeIgnored: settings.snapshotIncludeIgnored,
  };
}

/** Where a project's store is and its settings, every setting checked: what openStore opens. */
export async function storePlace(
  deps: AppDeps,
  projectRoot: string | undefined,
  context: RootContext,
): Promise<{ root: ResolvedRoot; storeDir: string; settings: SnapshotSettings }> {
  const root = await resolveProjectRoot({
    argument: projectRoot,
    env: deps.env,
    clientRoots: context.clientRoots,
    cwd: deps.cwd,
    surface: deps.surface,
    argumentLabel: deps.rootArgument,
  });
  refuseNonProjectRoot(root, deps.env, deps.surface, {
    home: true,
    action: 'snapshot',
    argumentLabel: deps.rootArgument,
    isHook: deps.isHook,
  });
  // Every setting, the size caps too, is checked here: a wrong one is named before any work.
  const settings = {
    ...snapshotSettings(settingsOf(deps, root.root)),
    userConfigDir: userConfigDir(deps.env),
  };
  const storeDir = projectStoreDir(defaultStoreBase(deps.env), root.root);
  return { root, storeDir, settings };
}

export async function listSnapshots(
  deps: AppDeps,
  request: { projectRoot?: string | undefined; limit?: number | undefined },
  context: RootContext = {},
): Promise<{
  /** Newest first; the `limit` newest when one is given. */
  snapshots: SnapshotRecord[];
  total: number;
  storeDir: string;
  storeBytes: number;
  root: ResolvedRoot;
}> {
  const { root, storeDir, settings } = await storePlace(deps, request.projectRoot, context);
  const store = new SnapshotReader(root.root, storeDir, settings);
  // Without the lock while no writer is at work, else under it, so a snapshot whose hook has answered
  // (see onContentTaken) but is still being written is listed too. No store, no lock: listing must not
  // create one. With a limit, only the snapshots shown are read: a history of 10,000 lists as fast as
  // one of 100.
  const listing = async () =>
    request.limit === undefined
      ? { snapshots: await store.list(), total: -1 }
      : store.listNewest(request.limit);
  const read = (isLocked: boolean) => Promise.all([listing(), store.usageBytes({ mayMeasure: isLocked })]);
  store.assertUsable();
  const [{ snapshots, total }, storeBytes] = (await store.exists())
    ? await store.readWithoutWriters(read)
    : [{ snapshots: [], total: 0 }, 0];
  return {
    snapshots,
    total: total < 0 ? snapshots.length : total,
    storeDir: store.storeDir,
    storeBytes,
    root,
  };
}

/** The latest snapshot, without creating a store; for the resume brief. */
export async function latestSnapshot(deps: AppDeps, root: string): Promise<SnapshotRecord | null> {
  // Only the store's place matters here: a wrong setting must not keep the brief from loading.
  const settings = snapshotSettings(readSettings(deps.env, root).values);
  const store = new SnapshotReader(root, projectStoreDir(defaultStoreBase(deps.env), root), settings);
  // The store's state file names the latest snapshot: no git process on the load path.
  return (await store.exists()) ? store.latest() : null;
}
