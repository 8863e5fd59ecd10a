import { CheckpointError, isCheckpointError } from '../core/errors.js';
import { Redactor } from '../core/redact.js';
import { compareAscii } from '../core/text.js';
import {
  checkHandoffName,
  chooseRemote,
  deleteRemoteRef,
  fetchIntoStore,
  HANDOFF_REFS,
  handoffChangedSinceListed,
  handoffRef,
  listRemoteHandoffs,
} from '../git/handoff-remote.js';
import type { AppDeps } from './deps.js';
import { goalOf, type HandoffMeta, objectDirs, readHandoffCommit, requireHead } from './handoff-common.js';
import { handoffSeen } from './handoff-seen.js';
import { loadRedactionConfig } from './redaction.js';
import { openStore } from './rewind.js';

/** Handoffs on the remote: list and drop here; push and pull in modules of their own. */
export { type PullOutcome, type PullRequest, pullHandoff } from './handoff-pull.js';
export { type HandoffFiles, type PushOutcome, type PushRequest, pushHandoff } from './handoff-push.js';

export interface HandoffListing {
  name: string;
  ref: string;
  commit: string;
  branch: string | null;
  base: string;
  /** The folder of the repository it was pushed from ('' its top); null when an earlier version pushed it (unknown). */
  root: string | null;
  createdAt: string;
  author: string;
  goal: string | null;
}

/** The handoffs on the remote, newest first, read from their commits (fetched into the store). */
export async function listHandoffs(
  deps: AppDeps,
  request: { projectRoot?: string | undefined; remote?: string | undefined },
): Promise<{ remote: string; handoffs: HandoffListing[]; notices?: string[] }> {
  const { store, root } = await openStore(deps, request.projectRoot, {});
  const head = await requireHead(root.root);
  const remote = await chooseRemote(root.root, request.remote, head.branch, deps.surface);
  const listed = await listRemoteHandoffs(root.root, remote);
  await store.withLock(() => store.init());
  const before = await store.objectBytes();
  // One dropped since the listing is left out; one pushed over then is read at its new commit (one still
  // moving after that is left out, with a notice).
  const { refs, notices } = await fetchIntoStore(root.root, remote, listed, await objectDirs(store), {
    content: false,
    gone: 'skip',
  });
  // Measured outside the lock, so the figure may count more than the fetch added: never less.
  const fetched = Math.max(0, (await store.objectBytes()) - before);
  if (fetched > 0) await store.withLock(async () => store.noteAdded(fetched));
  const handoffs: HandoffListing[] = [];
  // Security: what a handoff says of itself comes from the remote, whose client may skip the secret
  // gate: redacted as a pull does (audit item 7).
  const redactor = new Redactor((await loadRedactionConfig(deps.fs, deps.env, root.root)).config);
  for (const [ref, commit] of refs) {
    // A commit that is not a handoff is not listed; any other failure (a missing object) is not hidden.
    const { meta } = await readHandoffCommit(store, commit).catch((error: unknown) => {
      if (isCheckpointError(error, 'CORRUPT')) return { meta: null };
      throw error;
    });
    if (!meta) continue;
    handoffs.push({
      name: ref.slice(HANDOFF_REFS.length),
      ref,
      commit,
      branch: meta.branch,
      base: meta.base,
      root: meta.root ?? null,
      createdAt: meta.createdAt,
      author: redactor.text(meta.author),
      goal: listedGoal(meta, redactor),
    });
  }
  handoffs.sort((a, b) => compareAscii(b.createdAt, a.createdAt));
  return { remote, handoffs, ...(notices.length > 0 ? { notices } : {}) };
}

/** The goal a pull of the handoff would write (its checkpoint's), else the message's copy; redacted. */
function listedGoal(meta: HandoffMeta, redactor: Redactor): string | null {
  const goal = meta.checkpoint === null ? meta.goal : (goalOf(meta.checkpoint) ?? meta.goal);
  return goal === null ? null : redactor.text(goal);
}

/**
 * Deletes one handoff from the remote; with `dryRun`, only says whether it is there (`commit`), so a
 * person can be asked first.
 */
export async function dropHandoff(
  deps: AppDeps,
  request: {
    projectRoot?: string | undefined;
    remote?: string | undefined;
    name: string;
    dryRun?: boolean;
    /** The commit the person was shown: a handoff that no longer points there is not deleted. */
    expectCommit?: string | undefined;
    /** Run the project's pre-push hook, as `git push --delete` does (default true). */
    verify?: boolean | undefined;
  },
): Promise<{ remote: string; ref: string; commit: string | null; dropped: boolean }> {
  const { store, root } = await openStore(deps, request.projectRoot, {});
  const name = checkHandoffName(request.name);
  const head = await requireHead(root.root);
  const remote = await chooseRemote(root.root, request.remote, head.branch, deps.surface);
  const ref = handoffRef(name);
  const commit = (await listRemoteHandoffs(root.root, remote, name)).get(ref) ?? null;
  if (commit === null || request.dryRun) return { remote, ref, commit, dropped: false };
  if (request.expectCommit !== undefined && request.expectCommit !== commit)
    throw new CheckpointError('GIT_FAILED', handoffChangedSinceListed(ref, remote));
  const dropped = await deleteRemoteRef(root.root, remote, ref, commit, {
    verify: request.verify ?? true,
  });
  await (await handoffSeen(store, root.root, remote, ref)).remember(null);
  return { remote, ref, commit, dropped };
}
