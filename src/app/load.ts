import { renderResumeBrief } from '../core/brief.js';
import { type CommitChange, changedOutsideRecorded, computeDrift, type Drift } from '../core/drift.js';
import type { Checkpoint } from '../core/schema.js';
import { WorktreeHasher } from '../git/oid.js';
import { compareHistory, diffCommits, hashWithFilters, locateRepo, readRepoState } from '../git/repo.js';
import { CheckpointStore, type LoadResult } from '../store/checkpoint-store.js';
import type { AppDeps } from './deps.js';
import { latestSnapshot } from './rewind.js';
import { type ResolvedRoot, resolveProjectRoot } from './root.js';
import type { RootContext } from './save.js';

export type LoadOutcome =
  | { found: false; path: string; root: ResolvedRoot; warnings: string[] }
  | {
      found: true;
      path: string;
      root: ResolvedRoot;
      fromBackup: boolean;
      checkpoint: Checkpoint;
      drift: Drift | null;
      warnings: string[];
      brief: string;
    };

/**
 * Only reads the checkpoint (with the backup fallback): no git, no brief. For callers that need what was
 * saved, not what changed since, such as the startup notice or a validity check.
 */
export async function readCheckpoint(
  deps: AppDeps,
  input: { projectRoot?: string | undefined },
): Promise<LoadResult & { root: ResolvedRoot }> {
  const resolved = await resolveProjectRoot({ argument: input.projectRoot, env: deps.env, cwd: deps.cwd() });
  const loaded = await new CheckpointStore(resolved.root, deps.fs).load();
  return { ...loaded, root: resolved };
}

/**
 * Reads the checkpoint, compares it with the working tree, and renders the resume brief. Read-only.
 * `mentionSnapshot: false` skips looking up the latest snapshot, for callers that list snapshots themselves.
 */
export async function loadCheckpoint(
  deps: AppDeps,
  input: { projectRoot?: string | undefined },
  context: RootContext = {},
  options: { mentionSnapshot?: boolean } = {},
): Promise<LoadOutcome> {
  const resolved = await resolveProjectRoot({
    argument: input.projectRoot,
    env: deps.env,
    clientRoots: context.clientRoots,
    cwd: deps.cwd(),
  });
  const { root } = resolved;
  const store = new CheckpointStore(root, deps.fs);
  return deps.queue.run(root, async () => {
    const loaded = await store.load();
    if (!loaded.found) return { found: false, path: loaded.path, root: resolved, warnings: [] };

    const warnings = [...loaded.notices];
    const [drift, snapshot] = await Promise.all([
      detectDrift(root, loaded.checkpoint, warnings),
      // The brief only mentions the latest snapshot; a broken store must not cost the agent its brief.
      options.mentionSnapshot === false ? null : latestSnapshot(deps, root).catch(() => null),
    ]);
    const brief = renderResumeBrief({
      checkpoint: loaded.checkpoint,
      drift,
      now: deps.now(),
      notices: warnings,
      latestSnapshot: snapshot,
    });
    return {
      found: true,
      path: loaded.path,
      root: resolved,
      fromBackup: loaded.fromBackup,
      checkpoint: loaded.checkpoint,
      drift,
      warnings,
      brief,
    };
  });
}

/** Drift since the save, with as few git processes as the question allows (two when HEAD has not moved). */
async function detectDrift(root: string, saved: Checkpoint, warnings: string[]): Promise<Drift | null> {
  if (!saved.git) return null;
  const location = await locateRepo(root);
  const repo = location ? await readRepoState(root, location) : null;
  if (!location || !repo?.head) {
    warnings.push('The project is no longer a git repository with commits, so drift could not be checked.');
    return null;
  }
  const history = await compareHistory(root, saved.git.head, repo.head);
  let commitChanges = new Map<string, CommitChange>();
  if (history.kind === 'known' && saved.git.head !== repo.head) {
    commitChanges = await diffCommits(root, location, saved.git.head, repo.head);
  }
  const recorded = new Set(saved.modifiedFiles.map((file) => file.path));
  const dirty = repo.entries.map(({ path, headOid, isSubmodule }) => ({ path, headOid, isSubmodule }));
  const toHash = new Set(recorded);
  for (const entry of dirty) if (!entry.isSubmodule) toHash.add(entry.path);
  const currentOids = await new WorktreeHasher(root, location.objectFormat).oids(toHash);

  const outside = changedOutsideRecorded({ recorded, dirty, commitChanges, currentOids });
  return computeDrift({
    saved,
    currentBranch: repo.branch,
    history,
    currentOids,
    changedOutsideRecorded: await withoutFilterOnlyChanges(root, outside, dirty, commitChanges),
  });
}

/**
 * A dirty file's bytes are compared with a blob git stored after its clean filters (autocrlf, LFS):
 * where those differ only by the filter, git's own hash of the file settles it. Paths with newline
 * characters cannot go through --stdin-paths and are kept as changed.
 */
async function withoutFilterOnlyChanges(
  root: string,
  outside: readonly string[],
  dirty: ReadonlyArray<{ path: string; headOid: string | null }>,
  commitChanges: ReadonlyMap<string, CommitChange>,
): Promise<string[]> {
  const before = new Map<string, string>();
  for (const entry of dirty) {
    const base = commitChanges.has(entry.path)
      ? (commitChanges.get(entry.path)?.before ?? null)
      : entry.headOid;
    if (base && outside.includes(entry.path) && !entry.path.includes('\n')) before.set(entry.path, base);
  }
  if (before.size === 0) return [...outside];
  const filtered = await hashWithFilters(root, [...before.keys()]).catch(() => new Map<string, string>());
  return outside.filter((file) => !before.has(file) || filtered.get(file) !== before.get(file));
}
