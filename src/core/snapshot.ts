import { compareAscii, parseJsonFile } from './text.js';

export const SNAPSHOT_DEFAULTS = {
  /** Keep this many prompts per session (Claude Code keeps 100 checkpoints per session); see selectExpired. */
  maxCount: 100,
  /** Drop snapshots older than this (Claude Code's retention sweep runs after about 30 days). */
  maxAgeDays: 30,
  /** Files larger than this are skipped and listed, never stored. */
  maxFileBytes: 20 * 1024 * 1024,
  /**
   * What one restore may copy into the store before changing paths no snapshot holds (ignored files,
   * files over the cap); beyond it, such paths are refused rather than lost.
   */
  keepAsideMaxBytes: 100 * 1024 * 1024,
  keepAsideMaxFiles: 10_000,
  labelChars: 200,
  /** A trigger is a short name (`manual`, `pre-deploy`): printed in every list, kept in each commit message. */
  triggerChars: 40,
} as const;

/**
 * The largest file over the size cap that a pre-command snapshot holds all the same because the command
 * names it (`rm big.bin`): copying it into the store must fit the hook's 10 s budget (HOOK_BUDGET_MS, about
 * 2 s per 100 MB) and not fill the disk. Larger, it is left out and the hook warns.
 */
export const HELD_NAMED_MAX_BYTES = 100 * 1024 * 1024;

/**
 * The most one pre-command snapshot holds of such files in all, in the order the command names them (one
 * that would go over is left out and warned about; a smaller one named after it may still fit): `rm -rf
 * data/` over twelve 90 MB files must not cost the snapshot of the rest (review A).
 */
export const HELD_NAMED_TOTAL_MAX_BYTES = 100 * 1024 * 1024;

/**
 * How long copying them into the store may take (the scan runs beside it) before the snapshot is taken
 * without them, and they are warned about: well inside the hook's 10 s budget, on a slow disk too.
 */
export const HELD_NAMED_TIME_LIMIT_MS = 4_000;

/** For tests only (never a setting): a lower total for the files held, in bytes. */
export const TEST_ONLY_HELD_TOTAL_ENV = 'CHECKPOINT_TEST_ONLY_HELD_TOTAL_BYTES';
/** For tests only (never a setting): a shorter time limit for holding them, in ms (0: gives up at once). */
export const TEST_ONLY_HELD_TIME_ENV = 'CHECKPOINT_TEST_ONLY_HELD_TIME_LIMIT_MS';

/** What one pre-command snapshot may hold of the files over the size cap its command names. */
export interface HeldLimits {
  maxBytes: number;
  totalMaxBytes: number;
  timeLimitMs: number;
}

/** The limits above, lowered by the test-only variables when they are set to a number. */
export function heldLimits(env: Readonly<Record<string, string | undefined>>): HeldLimits {
  const lowered = (name: string, limit: number) => {
    const value = Number(env[name] ?? Number.NaN);
    return Number.isFinite(value) && value >= 0 ? Math.min(value, limit) : limit;
  };
  return {
    maxBytes: HELD_NAMED_MAX_BYTES,
    totalMaxBytes: lowered(TEST_ONLY_HELD_TOTAL_ENV, HELD_NAMED_TOTAL_MAX_BYTES),
    timeLimitMs: lowered(TEST_ONLY_HELD_TIME_ENV, HELD_NAMED_TIME_LIMIT_MS),
  };
}

/**
 * What tells one file from another of the same size: its modification time in nanoseconds and its inode,
 * as decimal strings (JSON numbers lose digits past 2^53).
 */
export interface FileStamp {
  mtimeNs: string;
  ino: string;
}

/** Whether two stamps are known and the same: a missing one (an older snapshot's) cannot tell. */
export function sameStamp(a: Partial<FileStamp> | undefined, b: Partial<FileStamp> | undefined): boolean {
  return a?.mtimeNs !== undefined && a.ino !== undefined && a.mtimeNs === b?.mtimeNs && a.ino === b?.ino;
}

/** The triggers this package records itself; any other one is a person's (`snapshot --trigger`), and is checked. */
export const BUILT_IN_TRIGGERS: ReadonlySet<string> = new Set([
  'manual',
  'prompt',
  'pre-command',
  'pre-compact',
  'pre-restore',
  'turn-end',
  'handoff',
]);

/**
 * The triggers of the snapshots a session's turn takes by itself (commands, compactions, turn ends): past
 * the ceiling, they go before any other (see selectExpired).
 */
const AUTOMATIC_IN_TURN: ReadonlySet<string> = new Set(['pre-command', 'pre-compact', 'turn-end']);

/** Why a trigger is not a name (lowercase letters, digits and dashes, within the limit), or null. */
export function triggerProblem(trigger: string): string | null {
  if (trigger.length > SNAPSHOT_DEFAULTS.triggerChars) return `got ${trigger.length} characters`;
  if (trigger === '') return 'got an empty one';
  return /^[a-z][a-z0-9-]*$/.test(trigger) ? null : 'got other characters';
}

export interface SnapshotSettings {
  maxCount: number;
  maxAgeDays: number;
  maxFileBytes: number;
  /** See SNAPSHOT_DEFAULTS.keepAsideMaxBytes; the default when absent. */
  keepAsideMaxBytes?: number;
  /** Git-ignored files to snapshot anyway: patterns as in .gitignore (the snapshotIncludeIgnored setting). */
  includeIgnored?: readonly string[];
  /** The user's configuration folder (absolute): inside the project, it is left out like the store. */
  userConfigDir?: string | undefined;
}

// The schema of this metadata is in snapshot-schema.ts, loaded only where snapshots are listed: the
// prompt hook, which records one, never needs zod.
export type { ChangeCounts, SnapshotMeta } from './snapshot-schema.js';

import type { SnapshotMeta } from './snapshot-schema.js';

/** A snapshot as listed: its metadata plus the tree it captured. */
export interface SnapshotRecord extends SnapshotMeta {
  tree: string;
  commit: string;
}

/** `20261130-140102-a1b2c3`: sortable by time, readable, unique enough with 24 random bits. */
export function formatSnapshotId(time: Date, randomHex: string): string {
  const iso = time.toISOString();
  return `${iso.slice(0, 10).replaceAll('-', '')}-${iso.slice(11, 19).replaceAll(':', '')}-${randomHex.slice(0, 6)}`;
}

/** What retention reads of a snapshot besides its id and time: its trigger and the session that took it. */
export interface SnapshotKind {
  trigger: string;
  sessionId?: string;
  /** Its exact creation time (an id carries only the second). */
  createdAt?: string;
}

/**
 * A project's store keeps at most this many times `maxCount` snapshots in all, whatever their kind and
 * session (1,000 at the default): past it, the oldest of a session's turn go first, then the oldest
 * others that are not prompts, then the oldest prompts (see selectExpired).
 */
export const SNAPSHOT_CEILING_FACTOR = 10;

/**
 * The snapshots retention removes. Counted as Claude Code counts its checkpoints, per session: the
 * `maxCount` newest prompt snapshots of each session are kept (those with no session count as one). A
 * snapshot of another kind that a session took after one of its prompts (pre-command, pre-compact,
 * pre-restore, turn-end, manual) goes with that prompt's turn: kept while the prompt is, never counted,
 * so `maxCount` kept still means `maxCount` prompts to go back to in every session. The others (taken with
 * no session, or before the session's first prompt) are kept `maxCount` newest. Then the ceiling (see
 * SNAPSHOT_CEILING_FACTOR: a turn's automatic snapshots go first, then the others, then prompts), and none older
 * than `maxAgeDays`; the newest snapshot is always kept, so there
 * is always something to go back to. A snapshot whose kind `kindOf` cannot tell is one of the others.
 * `justTaken` names the snapshot just taken, which counts as the newest.
 */
export function selectExpired<T extends { id: string; createdAt: string }>(
  snapshots: readonly T[],
  settings: Pick<SnapshotSettings, 'maxCount' | 'maxAgeDays'>,
  now: Date,
  kindOf: (id: string) => SnapshotKind | undefined = () => undefined,
  justTaken?: string,
): T[] {
  // The snapshot just taken is the newest, whatever its id: ids (and the times read from them) carry the
  // second, and within one second their random part decides the order.
  const newestFirst = [...snapshots].sort(
    (a, b) =>
      Number(b.id === justTaken) - Number(a.id === justTaken) ||
      compareAscii(b.createdAt, a.createdAt) ||
      compareAscii(b.id, a.id),
  );
  const isPrompt = (snapshot: T) => kindOf(snapshot.id)?.trigger === 'prompt';
  // Each snapshot of a session's turn, with the prompt that opened it (the session's latest before it).
  const turnOf = new Map<T, T>();
  const lastPrompt = new Map<string, T>();
  for (const snapshot of [...newestFirst].reverse()) {
    const kind = kindOf(snapshot.id);
    if (kind === undefined) continue;
    if (kind.trigger === 'prompt') lastPrompt.set(kind.sessionId ?? '', snapshot);
    else if (kind.sessionId !== undefined) {
      const prompt = lastPrompt.get(kind.sessionId);
      if (prompt) turnOf.set(snapshot, prompt);
    }
  }
  const promptsSeen = new Map<string, number>();
  const countedIn = new Set<T>();
  for (const snapshot of newestFirst) {
    if (!isPrompt(snapshot)) continue;
    const session = kindOf(snapshot.id)?.sessionId ?? '';
    const seen = promptsSeen.get(session) ?? 0;
    promptsSeen.set(session, seen + 1);
    if (seen < settings.maxCount) countedIn.add(snapshot);
  }
  const oldestAllowed = now.getTime() - settings.maxAgeDays * 86_400_000;
  let others = 0;
  const kept = newestFirst.filter((snapshot, index) => {
    const turn = turnOf.get(snapshot);
    const isCounted = isPrompt(snapshot)
      ? countedIn.has(snapshot)
      : turn
        ? countedIn.has(turn)
        : others++ < settings.maxCount;
    return index === 0 || (isCounted && new Date(snapshot.createdAt).getTime() >= oldestAllowed);
  });
  // The ceiling: the oldest taken automatically within a session's turn go first (commands, compactions,
  // turn ends), then the oldest of the others (one taken on purpose, by hand, with its label or by the
  // agent's tool, and a restore's undo, outlived hundreds of automatic ones no longer: daily-use trial,
  // review B), then (past ten sessions' worth) the oldest prompts.
  let excess = kept.length - settings.maxCount * SNAPSHOT_CEILING_FACTOR;
  const dropped = new Set<T>();
  const isAutomaticInTurn = (snapshot: T) =>
    turnOf.has(snapshot) && AUTOMATIC_IN_TURN.has(kindOf(snapshot.id)?.trigger ?? '');
  const tierOf = (snapshot: T) => (isPrompt(snapshot) ? 2 : isAutomaticInTurn(snapshot) ? 0 : 1);
  for (const tier of [0, 1, 2])
    for (let at = kept.length - 1; at > 0 && excess > 0; at--) {
      const snapshot = kept[at] as T;
      if (tierOf(snapshot) !== tier) continue;
      dropped.add(snapshot);
      excess--;
    }
  const keep = new Set(kept.filter((snapshot) => !dropped.has(snapshot)));
  return newestFirst.filter((snapshot) => !keep.has(snapshot));
}

/** One change a restore makes to the working tree. */
export interface PlannedChange {
  path: string;
  action: 'overwrite' | 'create' | 'delete';
}

/** A path the safety snapshot does not hold, and why: kept aside before it changes, or left alone. */
export interface GuardedPath {
  path: string;
  reason: string;
}

export interface RestorePlan {
  overwrite: string[];
  create: string[];
  delete: string[];
  /** Not in the safety snapshot (ignored, over the size cap): copied into the store first, so undo brings them back. */
  keptAside: GuardedPath[];
  /** Changes not made, because undo could not bring back what they would destroy (nested repositories, submodules, ...). */
  refused: GuardedPath[];
  /**
   * What the restore cannot bring back through links: edits made through a symbolic link out of the
   * project, and a hard-linked file's other links (the restore replaces the file). Present when any.
   */
  links?: GuardedPath[];
  /**
   * The symbolic links replaced by a folder or a file, or written in place of one: only the link itself
   * is removed or written, never what it points to. Present when any.
   */
  replaced?: GuardedPath[];
  /** The paths to overwrite whose mode changes (git's modes: now, then in the target). Present when any. */
  modes?: ModeChange[];
  /**
   * The checkpoint the restore writes besides the files (a pull's, or the one a pull replaced, brought
   * back by its undo; or none, when the undo of a pull where there was none removes whatever is there), when
   * it differs from the one here: the safety snapshot keeps the one here, so that undo brings it back.
   * Absent when the checkpoint stays as it is.
   */
  checkpoint?: CheckpointSwap;
}

/** A path's mode change, in git's words ("old mode", "new mode"): `100644` to `100755`. */
export interface ModeChange {
  path: string;
  oldMode: string;
  newMode: string;
}

/** A path's mode change between two trees (git's modes on each side), when it is on both and they differ. */
export function modeChangeOf(change: {
  beforeMode: string;
  afterMode: string;
}): { oldMode: string; newMode: string } | undefined {
  const absent = '000000';
  const isOnBoth = change.beforeMode !== absent && change.afterMode !== absent;
  return isOnBoth && change.beforeMode !== change.afterMode
    ? { oldMode: change.beforeMode, newMode: change.afterMode }
    : undefined;
}

/** A checkpoint as a plan names it: its id, its goal's first line and when it was saved. */
export interface CheckpointLabel {
  id: string;
  goal: string | null;
  updatedAt: string | null;
}

/**
 * The checkpoint here (null: none) and the one a restore writes in its place (null: it removes the one
 * here, as the undo of a pull onto a machine that had none).
 */
export interface CheckpointSwap {
  current: CheckpointLabel | null;
  written: CheckpointLabel | null;
  /** The checkpoint file here is damaged (`current`: its backup's, which a load gives, if any): kept byte for byte. */
  isCurrentUnusable?: boolean;
  /** The file written back is the damaged one a safety snapshot kept, byte for byte (`written`: its backup's). */
  isWrittenUnusable?: boolean;
}

/** The label of a checkpoint file's text (already validated where it came from), or null if unreadable. */
export function labelCheckpoint(text: string): CheckpointLabel | null {
  try {
    const parsed = parseJsonFile(text) as { id?: unknown; updatedAt?: unknown; goal?: { primary?: unknown } };
    const primary = parsed.goal?.primary;
    return {
      id: typeof parsed.id === 'string' ? parsed.id : '',
      goal: typeof primary === 'string' ? (primary.split('\n')[0] ?? null) : null,
      updatedAt: typeof parsed.updatedAt === 'string' ? parsed.updatedAt : null,
    };
  } catch {
    return null;
  }
}

/**
 * What writing `incoming` over `current` (checkpoint texts; null: none, and an `incoming` null removes the
 * one here) changes, or undefined: nothing.
 */
export function checkpointSwap(
  current: string | null,
  incoming: string | null | undefined,
): CheckpointSwap | undefined {
  if (incoming === undefined || incoming === current) return undefined;
  if (incoming === null)
    return current === null ? undefined : { current: labelCheckpoint(current), written: null };
  const written = labelCheckpoint(incoming);
  if (written === null) return undefined;
  return { current: current === null ? null : labelCheckpoint(current), written };
}

/** Whether a restore changes nothing at all: no path, and not the checkpoint. */
export function changesNothing(plan: RestorePlan): boolean {
  return planSize(plan) === 0 && plan.checkpoint === undefined;
}

export function summarizePlan(
  changes: readonly PlannedChange[],
  guarded: {
    keptAside?: readonly GuardedPath[];
    refused?: readonly GuardedPath[];
    links?: readonly GuardedPath[];
    replaced?: readonly GuardedPath[];
    modes?: readonly ModeChange[];
    checkpoint?: CheckpointSwap;
  } = {},
): RestorePlan {
  const plan: RestorePlan = {
    overwrite: [],
    create: [],
    delete: [],
    keptAside: [...(guarded.keptAside ?? [])],
    refused: [...(guarded.refused ?? [])],
    ...(guarded.links && guarded.links.length > 0 ? { links: [...guarded.links] } : {}),
    ...(guarded.replaced && guarded.replaced.length > 0 ? { replaced: [...guarded.replaced] } : {}),
    ...(guarded.checkpoint ? { checkpoint: guarded.checkpoint } : {}),
  };
  const overwritten = new Set(
    changes.filter((change) => change.action === 'overwrite').map((change) => change.path),
  );
  const modes = (guarded.modes ?? []).filter((entry) => overwritten.has(entry.path));
  if (modes.length > 0) plan.modes = modes;
  for (const change of changes) plan[change.action].push(change.path);
  return plan;
}

/** How many paths a restore changes (what it refuses is not counted). */
export function planSize(plan: RestorePlan): number {
  return plan.overwrite.length + plan.create.length + plan.delete.length;
}

/**
 * Security: a path taken from a snapshot tree is written only if it stays inside the root and
 * never enters a `.git` folder or touches the checkpoint files.
 */
export function isRestorablePath(relativePath: string): boolean {
  if (relativePath === '' || relativePath.startsWith('/') || relativePath.includes('\0')) return false;
  const parts = relativePath.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..' || part.toLowerCase() === '.git'))
    return false;
  const first = parts[0] ?? '';
  return !(first === '.claude-checkpoint' || first.startsWith('.claude-checkpoint.'));
}
