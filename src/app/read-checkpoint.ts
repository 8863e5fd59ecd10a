import { CheckpointStore, type LoadResult } from '../store/checkpoint-store.js';
import type { AppDeps } from './deps.js';
import { type ResolvedRoot, resolveProjectRoot } from './root.js';

/**
 * Only reads the checkpoint (with the backup fallback): no git, no brief. For callers that need what was
 * saved, not what changed since, such as the startup notice or a validity check.
 */
export async function readCheckpoint(
  deps: AppDeps,
  input: { projectRoot?: string | undefined },
): Promise<LoadResult & { root: ResolvedRoot }> {
  const resolved = await resolveProjectRoot({
    argument: input.projectRoot,
    env: deps.env,
    cwd: deps.cwd,
    surface: deps.surface,
    argumentLabel: deps.rootArgument,
  });
  const loaded = await new CheckpointStore(resolved.root, deps.fs).load();
  return { ...loaded, root: resolved };
}
