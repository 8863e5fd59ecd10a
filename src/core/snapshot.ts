import { compareAscii } from './text.js';

export const SNAPSHOT_DEFAULTS = {
  /** Keep at most this many snapshots (Claude Code keeps 100 checkpoints per session). */
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

/**
 * The snapshots retention removes: beyond the `maxCount` most recent, or older than `maxAgeDays`.
 * The newest snapshot is always kept, so there is always something to go back to. A turn-end snapshot
 * (`isTurnEnd`) only marks where a turn ended: it is not counted, and goes with its turn (once
 * `maxCount` snapshots newer than it are kept), so 100 kept still means 100 prompts to go back to.
 * `justTaken` names the snapshot just taken, which counts as the newest.
 */
export function selectExpired<T extends { id: string; createdAt: string }>(
  snapshots: readonly T[],
  settings: Pick<SnapshotSettings, 'maxCount' | 'maxAgeDays'>,
  now: Date,
  isTurnEnd: (id: string) => boolean = () => false,
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
  const oldestAllowed = now.getTime() - settings.maxAgeDays * 86_400_000;
  let counted = 0;
  let turnEnds = 0;
  return newestFirst.filter((snapshot, index) => {
    // Turn ends are bounded too: at most maxCount of them.
    const isBeyond = isTurnEnd(snapshot.id)
      ? counted >= settings.maxCount || turnEnds++ >= settings.maxCount
      : counted++ >= settings.maxCount;
    return index > 0 && (isBeyond || new Date(snapshot.createdAt).getTime() < oldestAllowed);
  });
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
}

export function summarizePlan(
  changes: readonly PlannedChange[],
  guarded: {
    keptAside?: readonly GuardedPath[];
    refused?: readonly GuardedPath[];
    links?: readonly GuardedPath[];
  } = {},
): RestorePlan {
  const plan: RestorePlan = {
    overwrite: [],
    create: [],
    delete: [],
    keptAside: [...(guarded.keptAside ?? [])],
    refused: [...(guarded.refused ?? [])],
    ...(guarded.links && guarded.links.length > 0 ? { links: [...guarded.links] } : {}),
  };
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
