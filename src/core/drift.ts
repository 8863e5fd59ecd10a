import { LIMITS } from './limits.js';
import type { Checkpoint, FlaggedFiles } from './schema.js';

/** How the saved HEAD relates to the current one, as git answered. */
export type HistoryComparison =
  /** The saved commit exists; `rewritten` when it is no longer an ancestor of HEAD. */
  | { kind: 'known'; commitsSince: number; rewritten: boolean }
  /** The saved commit is gone (history rewritten and collected, or another clone). */
  | { kind: 'missing' };

/** What changed between a checkpoint and the working tree now. */
export interface Drift {
  branchChanged: boolean;
  currentBranch: string | null;
  /** Commits on HEAD since the saved one; `null` when the saved commit is not reachable. */
  commitsSince: number | null;
  /** Files whose content differs from what it was at save time: re-read these. */
  changedSince: string[];
  savedHeadReachable: boolean;
  /**
   * Set when some of `changedSince` were flagged before an automatic refresh recorded their new content:
   * the time since which the agent's notes have not seen them.
   */
  flaggedSince: string | null;
  /**
   * Set after `handoff pull`: those of `changedSince` whose content is still exactly what the pull wrote,
   * that is, changed on the other machine after its checkpoint, not here. Absent otherwise.
   */
  fromHandoff?: {
    paths: string[];
    pulledAt: string;
    author: string;
    /**
     * Those of `changedSince` that the handoff left out (see LeftOutKind) and that still hold what they
     * held after the pull: the pull did not bring them, so they are not as the checkpoint describes,
     * and not changed here either. Absent when none.
     */
    leftOut?: LeftOut[];
  };
  /**
   * Files whose name is not valid UTF-8, as git shows them (`"caf\351.txt"`): drift cannot tell whether
   * they changed. Absent when there are none.
   */
  unfollowed?: string[];
}

/**
 * Why a handoff left a path out although it was there: over the size cap, in a nested repository, in a
 * folder git could not read.
 */
export type LeftOutKind = 'large' | 'nested' | 'unreadable';

/** A path a handoff left out (a folder ends with `/`), and why (a kind, never the remote's words). */
export interface LeftOut {
  path: string;
  kind: LeftOutKind;
}

/** What `handoff pull` brought: the content it wrote for each file that drifted from the pulled checkpoint. */
export interface PulledFiles {
  checkpointId: string;
  pulledAt: string;
  author: string;
  /** Blob oid of each such file as the pull wrote it; `null` for a file the pull deleted. */
  oids: Record<string, string | null>;
  /** Each such file the handoff left out: its content right after the pull (`null`: none), and why. */
  leftOut?: Record<string, { oid: string | null; kind: LeftOutKind }>;
}

/**
 * Names the drift the other machine made: a changed file whose content is still what the pull wrote.
 * A file changed here after the pull no longer matches and stays this machine's change.
 */
export function attributeToHandoff(
  drift: Drift,
  pulled: PulledFiles,
  oidNow: ReadonlyMap<string, string | null>,
): Drift {
  const paths = drift.changedSince.filter(
    (path) => Object.hasOwn(pulled.oids, path) && oidNow.has(path) && oidNow.get(path) === pulled.oids[path],
  );
  const leftOutRecord = pulled.leftOut ?? {};
  const leftOut = drift.changedSince.flatMap((path) => {
    const entry = Object.hasOwn(leftOutRecord, path) ? leftOutRecord[path] : undefined;
    return entry && oidNow.has(path) && oidNow.get(path) === entry.oid ? [{ path, kind: entry.kind }] : [];
  });
  if (paths.length === 0 && leftOut.length === 0) return drift;
  return {
    ...drift,
    fromHandoff: {
      paths,
      pulledAt: pulled.pulledAt,
      author: pulled.author,
      ...(leftOut.length > 0 ? { leftOut } : {}),
    },
  };
}

export interface DriftInput {
  saved: Checkpoint;
  currentBranch: string | null;
  history: HistoryComparison;
  /** Blob oid of each recorded file's current content; `null` when the file is gone. */
  currentOids: ReadonlyMap<string, string | null>;
  /**
   * Paths (not in the recorded list) whose content now differs from the saved HEAD's tree, or that are
   * new and untracked. At save time these matched the saved HEAD, so any difference is drift.
   */
  changedOutsideRecorded: readonly string[];
}

/**
 * Compares a checkpoint with the present. A recorded file counts as changed exactly when its content
 * oid differs from the one saved, so a file committed unchanged after the save is not flagged, and a
 * deleted one is.
 */
export function computeDrift(input: DriftInput): Drift {
  const { saved, history } = input;
  const recorded = new Set<string>();
  const changedSince: string[] = [];
  for (const file of saved.modifiedFiles) {
    recorded.add(file.path);
    const before = file.hash ?? null;
    const now = input.currentOids.get(file.path) ?? null;
    if (before !== now) changedSince.push(file.path);
  }
  const outside = [...new Set(input.changedOutsideRecorded)].filter((path) => !recorded.has(path)).sort();
  changedSince.push(...outside);
  const flagged = saved.meta.flagged;
  const listed = new Set(changedSince);
  for (const path of flagged?.paths ?? []) if (!listed.has(path)) changedSince.push(path);

  const reachable = history.kind === 'known' && !history.rewritten;
  return {
    branchChanged: (saved.git?.branch ?? null) !== input.currentBranch,
    currentBranch: input.currentBranch,
    // After an amend or a reset the count is of commits since a commit HEAD no longer has: unknown.
    commitsSince: reachable ? history.commitsSince : null,
    changedSince,
    savedHeadReachable: reachable,
    flaggedSince: flagged && flagged.paths.length > 0 ? flagged.since : null,
  };
}

/**
 * What an automatic refresh (a hook, not the agent) must keep flagged: it records every file's current
 * content, which would make a change the agent never saw look settled. Everything the previous checkpoint
 * flagged stays, with the time since which the agent's notes are behind.
 */
export function carryFlags(previous: Checkpoint, drift: Drift | null): FlaggedFiles | undefined {
  const paths = drift?.changedSince ?? previous.meta.flagged?.paths ?? [];
  if (paths.length === 0) return undefined;
  return {
    since: previous.meta.flagged?.since ?? previous.updatedAt,
    paths: paths.slice(0, LIMITS.modifiedFiles),
  };
}

/** A file git reports as uncommitted now, with its blob oid in the current HEAD. */
export interface DirtyPath {
  path: string;
  headOid: string | null;
  isSubmodule: boolean;
}

/** A path that differs between the saved HEAD and the current one. */
export interface CommitChange {
  before: string | null;
  after: string | null;
}

/**
 * Files not recorded in the checkpoint whose content now differs from what it was at save time. At save
 * time such a file was clean, so its content was the saved HEAD's blob: `before` from the commit diff,
 * or the current HEAD's blob when the commits did not touch it. Its content now is the working tree's
 * when it is dirty, or the current HEAD's blob when it is clean.
 */
export function changedOutsideRecorded(params: {
  recorded: ReadonlySet<string>;
  dirty: readonly DirtyPath[];
  commitChanges: ReadonlyMap<string, CommitChange>;
  currentOids: ReadonlyMap<string, string | null>;
}): string[] {
  const changed: string[] = [];
  const dirtyByPath = new Map(params.dirty.map((entry) => [entry.path, entry]));
  const candidates = new Set([...dirtyByPath.keys(), ...params.commitChanges.keys()]);
  for (const path of candidates) {
    if (params.recorded.has(path)) continue;
    const dirty = dirtyByPath.get(path);
    if (dirty?.isSubmodule) continue;
    const commitChange = params.commitChanges.get(path);
    const before = commitChange ? commitChange.before : (dirty?.headOid ?? null);
    const now = dirty ? (params.currentOids.get(path) ?? null) : (commitChange?.after ?? null);
    if (before !== now) changed.push(path);
  }
  return changed.sort();
}
