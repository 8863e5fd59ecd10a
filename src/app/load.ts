import path from 'node:path';
import { renderResumeBrief } from '../core/brief.js';
import type { Drift } from '../core/drift.js';
import type { Checkpoint } from '../core/schema.js';
import { wordsFor } from '../core/surface.js';
import { locateRepo, type RepoState, type RepoUnreadable, readRepoStateOrReason } from '../git/repo.js';
import { CheckpointStore } from '../store/checkpoint-store.js';
import type { AppDeps } from './deps.js';

export { readCheckpoint } from './read-checkpoint.js';

import { projectOurFolders } from '../store/store-location.js';
import { detectDrift } from './drift.js';
import { type ResolvedRoot, resolveProjectRoot } from './root.js';
import type { RootContext } from './save.js';
import { latestSnapshot } from './snapshot-list.js';

export type LoadOutcome =
  | { found: false; path: string; root: ResolvedRoot; warnings: string[] }
  | {
      found: true;
      path: string;
      root: ResolvedRoot;
      fromBackup: boolean;
      checkpoint: Checkpoint;
      drift: Drift | null;
      /** Why `drift` is `null` for a checkpoint with git facts. */
      driftUnchecked?: string;
      warnings: string[];
      /** What the load says of the file itself (a field over its limit, the backup used, a damaged copy kept). */
      fileNotices: string[];
      brief: string;
    };

/**
 * Reads the checkpoint, compares it with the working tree, and renders the resume brief. Read-only.
 * `mentionSnapshot: false` skips looking up the latest snapshot, for callers that list snapshots themselves.
 */
export async function loadCheckpoint(
  deps: AppDeps,
  input: { projectRoot?: string | undefined },
  context: RootContext = {},
  options: {
    mentionSnapshot?: boolean;
    /** How long git's scan may take; past it the brief comes without drift and says why (hooks' budgets). */
    scanTimeoutMs?: number | undefined;
    /** Handed git's scan of the project as it starts (none starts without a checkpoint file). */
    onScan?: (repo: Promise<RepoState | RepoUnreadable | null>) => void;
    /** `false`: no brief (`''`), for a caller that shows the rest only (`status`). */
    renderBrief?: boolean;
  } = {},
): Promise<LoadOutcome> {
  const resolved = await resolveProjectRoot({
    argument: input.projectRoot,
    env: deps.env,
    clientRoots: context.clientRoots,
    cwd: deps.cwd,
    surface: deps.surface,
    argumentLabel: deps.rootArgument,
  });
  const { root } = resolved;
  const store = new CheckpointStore(root, deps.fs);
  return deps.queue.run(root, async () => {
    // git's scan is most of a load: it starts as soon as there is a checkpoint to compare with, while
    // the checkpoint is read and checked.
    const scan = store.mayExist().then(async (present) => {
      if (!present) return undefined;
      const location = await locateRepo(root);
      const repo = location
        ? readRepoStateOrReason(root, location, options.scanTimeoutMs, projectOurFolders(root, deps.env))
        : Promise.resolve(null);
      repo.catch(() => undefined); // awaited by detectDrift; a failure must not go unhandled meanwhile
      options.onScan?.(repo);
      return { location, repo };
    });
    const [loaded, known] = await Promise.all([store.load(), scan]);
    if (!loaded.found) return { found: false, path: loaded.path, root: resolved, warnings: [] };

    const warnings = [...loaded.notices];
    let driftUnchecked: string | undefined;
    const [drift, snapshot] = await Promise.all([
      detectDrift(root, loaded.checkpoint, warnings, deps.env, known, {
        onUnchecked: (reason) => {
          driftUnchecked = reason;
        },
      }),
      // The brief only mentions the latest snapshot; a broken store must not cost the agent its brief.
      options.mentionSnapshot === false ? null : latestSnapshot(deps, root).catch(() => null),
    ]);
    const brief =
      options.renderBrief === false
        ? ''
        : renderResumeBrief({
            checkpoint: loaded.checkpoint,
            drift,
            driftUnchecked,
            now: deps.now(),
            notices: warnings,
            latestSnapshot: snapshot,
            surface: wordsFor(deps.surface, deps.commandRoot),
            // Saves name the project by its folder here; a pulled checkpoint names the other machine's.
            projectName: path.basename(root) || undefined,
          });
    return {
      found: true,
      path: loaded.path,
      root: resolved,
      fromBackup: loaded.fromBackup,
      checkpoint: loaded.checkpoint,
      drift,
      ...(driftUnchecked === undefined ? {} : { driftUnchecked }),
      warnings,
      fileNotices: loaded.notices,
      brief,
    };
  });
}
