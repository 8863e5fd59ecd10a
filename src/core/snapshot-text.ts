import { code } from './brief.js';
import { describeLeftOut, type LeftOut, leftOutOf, leftOutUnder } from './left-out.js';
import { CHECKPOINT_FILE } from './paths.js';
import { escapeControls, quotePath } from './quote.js';
import { TURN_END_TRIGGER } from './rewind-credit.js';
import type {
  CheckpointLabel,
  CheckpointSwap,
  RestorePlan,
  SnapshotMeta,
  SnapshotRecord,
} from './snapshot.js';
import { type Reader, wordsOf } from './surface.js';
import { clip } from './text.js';
import { formatAge } from './time.js';

/**
 * The stores whose project folder no longer exists, named (a few, then "and N more"), and what deleting
 * them costs: a store is found by its project's path, so a moved project's snapshots wait under the old
 * path until it is moved back.
 */
export function renderGoneStores(orphans: ReadonlyArray<{ root: string }>, max = 3): string {
  const shown = orphans.slice(0, max).map((orphan) => quotePath(orphan.root));
  const more = orphans.length > max ? ` and ${orphans.length - max} more` : '';
  const count =
    orphans.length === 1
      ? 'the store of a folder that no longer exists'
      : `${orphans.length} stores of folders that no longer exist`;
  return `${count}: ${shown.join(', ')}${more}`;
}

/** What to do about the stores of gone folders, said wherever they are reported. */
export const GONE_STORES_FIX =
  "snapshots are found by their project's path: a project that was moved finds its own again once moved back (or keep its store until you decide); `claude-checkpoint gc --all` deletes these stores and their snapshots for good";

/** What callers see of a snapshot: its metadata, without the store's internal object ids. */
export function snapshotSummary(record: SnapshotRecord): SnapshotMeta {
  const { tree: _tree, commit: _commit, ...meta } = record;
  return meta;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const { value, unit } = scaled(bytes);
  return `${value.toFixed(value < 10 ? 1 : 0)} ${unit}`;
}

/**
 * Why a store stays over its cap after a gc deleted all it may, and what helps: without it, `gc` and
 * `doctor` sent the user round in circles while every snapshot removed the one before (daily-use trial).
 */
export function describeOverCap(leftBytes: number, maxBytes: number): { reason: string; fix: string } {
  const left = formatBytes(leftBytes);
  return {
    reason: `over its cap of ${formatBytes(maxBytes)} (storeMaxMb) with every snapshot the cap may delete deleted: the ${left} left is what it never deletes (the newest snapshot, the undo of the latest restore) and the newest others that fit in a twentieth of the cap, so few snapshots are left to go back to`,
    fix: `raise storeMaxMb (CHECKPOINT_STORE_MAX_MB) above ${left}, or lower snapshotMaxFileMb to leave large files out`,
  };
}

/** A size of 1 KB or more in the largest unit it reaches. */
function scaled(bytes: number): { value: number; unit: string } {
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return { value, unit: units[unit] as string };
}

/**
 * A size over a cap, rounded up to two decimals: `formatBytes` shows a 21,000,000-byte file as "20 MB",
 * the cap it is over (new-user trial 2026-12-07).
 */
function formatBytesUp(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const { value, unit } = scaled(bytes);
  return `${(Math.ceil(value * 100) / 100).toFixed(2)} ${unit}`;
}

function describeChanges(snapshot: SnapshotMeta): string {
  const { added, modified, deleted } = snapshot.changes;
  return `+${added} ~${modified} -${deleted}`;
}

function describeSkipped(snapshot: SnapshotMeta): string[] {
  const lines: string[] = [];
  if (snapshot.skipped.large.length > 0) {
    const files = snapshot.skipped.large
      .map((file) => `${code(quotePath(file.path))} (${formatBytesUp(file.bytes)})`)
      .join(', ');
    lines.push(`⚠ Skipped ${snapshot.skipped.large.length} file(s) over the size cap: ${files}`);
  }
  if (snapshot.skipped.nested.length > 0) {
    const dirs = snapshot.skipped.nested.map((dir) => code(quotePath(dir))).join(', ');
    lines.push(
      `⚠ Skipped ${snapshot.skipped.nested.length} nested repositor(ies), which have their own history: ${dirs}`,
    );
  }
  const unreadable = snapshot.skipped.unreadable ?? [];
  if (unreadable.length > 0) {
    // The first few, as the gone stores are named: hundreds would bury the rest of the report.
    const shown = unreadable
      .slice(0, 3)
      .map((folder) => `${code(quotePath(folder.path))}: ${folder.reason}`)
      .join('; ');
    const more = unreadable.length > 3 ? `; and ${unreadable.length - 3} more` : '';
    lines.push(`⚠ Left out ${unreadable.length} folder(s) git could not read: ${shown}${more}`);
  }
  const invalid = snapshot.skipped.invalidNames ?? [];
  if (invalid.length > 0) {
    const names = invalid.map((name) => code(name)).join(', ');
    lines.push(
      `⚠ Skipped ${invalid.length} file(s) whose name is not valid UTF-8 (an earlier version could not hold them; snapshots taken now do): ${names}`,
    );
  }
  return lines;
}

/**
 * A snapshot's report. `isFirst`: the project had none before, so no "since the previous one". `hasLabel`:
 * a label was asked for, which a snapshot not taken (nothing changed) does not keep.
 */
export function renderSnapshot(
  created: boolean,
  snapshot: SnapshotMeta,
  { isFirst = false, hasLabel = false }: { isFirst?: boolean | undefined; hasLabel?: boolean } = {},
): string {
  const trigger = escapeControls(snapshot.trigger);
  const head = created
    ? isFirst
      ? `Snapshot ${snapshot.id} taken (${trigger}; the project's first, holding ${snapshot.changes.added} file(s)).`
      : `Snapshot ${snapshot.id} taken (${trigger}; files ${describeChanges(snapshot)} since the previous one).`
    : hasLabel
      ? `Nothing changed since snapshot ${snapshot.id}: no snapshot was taken, so the label was not kept.`
      : `Nothing changed since snapshot ${snapshot.id}; no new snapshot was needed.`;
  return [head, ...(created ? describeSkipped(snapshot) : [])].join('\n');
}

export function renderSnapshotList(
  snapshots: readonly SnapshotMeta[],
  total: number,
  storeBytes: number,
  now: Date,
  surface: Reader = 'mcp',
): string {
  if (total === 0)
    return `No snapshots yet for this project. Take one with ${wordsOf(surface).takeSnapshot}.`;
  const lines = [`${total} snapshot(s), newest first; the store uses ${formatBytes(storeBytes)}.`];
  for (const snapshot of snapshots) {
    const label = snapshot.label
      ? ` — ${escapeControls(snapshot.label)}`
      : snapshot.trigger === TURN_END_TRIGGER && snapshot.sessionId
        ? ` — end of a turn of session ${escapeControls(snapshot.sessionId.slice(0, 8))}${snapshot.agent ? ` (${escapeControls(snapshot.agent)})` : ''}`
        : '';
    const where = snapshot.git
      ? ` ${escapeControls(snapshot.git.branch ?? 'detached')}@${snapshot.git.head.slice(0, 9)}`
      : '';
    lines.push(
      `- ${snapshot.id} ${formatAge(new Date(snapshot.createdAt), now)} [${escapeControls(snapshot.trigger)}] ${describeChanges(snapshot)}${where}${label}`,
    );
    // What it left out, under it: a snapshot is not the whole tree when it skipped files (new-user trial 4).
    const leftOut = [
      ...leftOutOf(snapshot.skipped).map((entry) => describeLeftOut(entry)),
      ...(snapshot.skipped.invalidNames ?? []).map(
        (name) => `${code(name)} (a name that is not valid UTF-8, left out by an earlier version)`,
      ),
    ];
    if (leftOut.length > 0)
      lines.push(
        `  ⚠ left out, so not restorable from it: ${leftOut.slice(0, 3).join(', ')}${leftOut.length > 3 ? `, and ${leftOut.length - 3} more` : ''}`,
      );
  }
  // After weeks of daily use the newest 20 are an hour's work: say how to see the rest (daily-use trial).
  if (snapshots.length < total)
    lines.push(`- … and ${total - snapshots.length} older (${wordsOf(surface).listMore(total)} shows more)`);
  return lines.join('\n');
}

export interface DiffView {
  from: string;
  to: string;
  files: ReadonlyArray<{
    path: string;
    status: string;
    added: number | null;
    deleted: number | null;
    oldMode?: string | undefined;
    newMode?: string | undefined;
    linkToItself?: 'old' | 'new' | undefined;
  }>;
  patch?: string;
  notHeld?: ReadonlyArray<{ snapshot: string; leftOut: readonly LeftOut[] }> | undefined;
}

/** "mode 100644 -> 100755", as git's diff says "old mode" and "new mode"; '' with no mode change. */
export function describeModeChange(change: {
  oldMode?: string | undefined;
  newMode?: string | undefined;
}): string {
  return change.oldMode && change.newMode ? `mode ${change.oldMode} -> ${change.newMode}` : '';
}

export function renderDiff(diff: DiffView): string {
  const notHeld = (diff.notHeld ?? []).map(
    (side) =>
      `Not compared: ${side.snapshot === 'working tree' ? 'a snapshot of the working tree now' : `snapshot ${side.snapshot}`} leaves out ${side.leftOut.map((entry) => describeLeftOut(entry)).join(', ')}.`,
  );
  // One path a side left out: it was not compared, which "no differences" would hide (issue 26).
  if (diff.files.length === 0 && diff.patch !== undefined && notHeld.length > 0) return notHeld.join('\n');
  if (diff.files.length === 0)
    return [
      `No differences between snapshot ${diff.from} and ${diff.to}${notHeld.length > 0 ? ' in what they hold' : ''}.`,
      ...notHeld,
    ].join('\n');
  const lines = [`${diff.files.length} file(s) differ between snapshot ${diff.from} and ${diff.to}:`];
  for (const file of diff.files) {
    const counts = file.added === null ? 'binary' : `+${file.added} -${file.deleted}`;
    const mode = describeModeChange(file);
    // A change of mode alone has no lines: "+0 -0" would say nothing changed.
    const said = mode && counts === '+0 -0' ? [mode] : [counts, ...(mode ? [mode] : [])];
    // git calls it a typechange; what it means is that the file is gone, or back (see self-link.ts).
    if (file.linkToItself)
      said.splice(1, 0, file.linkToItself === 'new' ? 'now a link to itself' : 'was a link to itself');
    lines.push(`${file.status} ${quotePath(file.path)} (${said.join(', ')})`);
  }
  lines.push(...notHeld);
  // Security: a file's own bytes reach the terminal here; its lines stay, its control characters do not.
  if (diff.patch) lines.push('', escapeControls(diff.patch.trimEnd(), { multiline: true }));
  return lines.join('\n');
}

/** Where the repository's HEAD was when a snapshot was taken (`snapshot`), and where it is now (`current`). */
export interface HeadMove {
  snapshot: { branch: string | null; head: string };
  current: { branch: string | null; head: string };
}

/** The move when HEAD or the branch differs from the snapshot's (a commit, a checkout since); else null. */
export function headMoveSince(
  atSnapshot: { branch: string | null; head: string } | null | undefined,
  current: { branch: string | null; head: string } | null,
): HeadMove | null {
  if (!atSnapshot || !current) return null;
  if (atSnapshot.head === current.head && atSnapshot.branch === current.branch) return null;
  return {
    snapshot: { branch: atSnapshot.branch, head: atSnapshot.head },
    current: { branch: current.branch, head: current.head },
  };
}

/** A restore writes files only: when HEAD moved since the snapshot, `git status` will show the difference. */
export function renderHeadMove(move: HeadMove): string {
  const at = (where: HeadMove['snapshot']) =>
    `${escapeControls(where.branch ?? 'detached HEAD')}@${where.head.slice(0, 9)}`;
  return `Note: the snapshot was taken on ${at(move.snapshot)}; the repository is now on ${at(move.current)}. A restore writes the files only: HEAD, the branch and the index stay, so git status shows how the restored files differ from ${at(move.current)}.`;
}

export interface RestoreView {
  /** `skipped`: what the snapshot left out although it was there, which no restore from it brings back. */
  snapshot: { id: string; skipped?: SnapshotMeta['skipped'] | undefined };
  dryRun: boolean;
  plan: RestorePlan;
  undoSnapshotId: string | null;
  /** How to undo: `snapshotId` restored at `paths` (empty: the whole tree), the paths this restore was limited to. */
  undo?: { snapshotId: string; paths: readonly string[] } | null;
  interrupted?: { target: string; undo: string; current?: string } | null;
  /** HEAD or the branch moved since the snapshot (see renderHeadMove). */
  headMoved?: HeadMove | null;
  /** The paths the restore was limited to: a dry run's way to apply names them again, as does an undo. */
  paths?: readonly string[];
  /** A plan shown because nobody could confirm it (no terminal, no `--yes`), not a dry run asked for. */
  unconfirmed?: boolean;
}

/**
 * The checkpoint line of a plan: whose goes, for whose (`from`: "Alice's", "the one this snapshot kept"),
 * and that undo brings it back. Security: the goals may come from a remote: escaped.
 */
export function renderCheckpointSwap(swap: CheckpointSwap, from: string): string {
  const goal = (label: CheckpointLabel) =>
    label.goal === null ? 'no goal' : `goal: ${escapeControls(clip(label.goal, 100))}`;
  const kept = 'kept as it is on disk with the undo snapshot, which brings it back';
  if (swap.isCurrentUnusable || swap.isWrittenUnusable) {
    const damaged = (label: CheckpointLabel | null) =>
      `a damaged ${CHECKPOINT_FILE} (${label === null ? 'no usable backup' : `its backup's ${goal(label)}`})`;
    const here = swap.isCurrentUnusable
      ? `the one here, ${damaged(swap.current)},`
      : swap.current === null
        ? 'none here'
        : `the one here (${goal(swap.current)})`;
    const written = swap.isWrittenUnusable
      ? `the ${damaged(swap.written).slice(2)} this snapshot kept, byte for byte`
      : swap.written === null
        ? 'none, as when this snapshot was taken'
        : `${from} (${goal(swap.written)})`;
    return swap.current === null && !swap.isCurrentUnusable
      ? `Checkpoint: ${written} is written; there is none here, and the undo snapshot removes it.`
      : `Checkpoint: ${here} is replaced by ${written}; the one here is ${kept}.`;
  }
  if (swap.written === null)
    return `Checkpoint: the one here (${swap.current === null ? 'unreadable' : goal(swap.current)}) is removed: there was none when this snapshot was taken; the one here is kept with the undo snapshot, which brings it back.`;
  return swap.current === null
    ? `Checkpoint: ${from} (${goal(swap.written)}) is written; there is none here, and the undo snapshot removes it.`
    : `Checkpoint: the one here (${goal(swap.current)}) is replaced by ${from} (${goal(swap.written)}); the one here is kept with the undo snapshot, which brings it back.`;
}

export function renderPlan(
  plan: RestorePlan,
  limit = 50,
  /** Whose checkpoint the plan writes, for its line (see renderCheckpointSwap). */
  checkpointFrom = 'the one this snapshot kept',
): string[] {
  const lines: string[] = [];
  if (plan.checkpoint) lines.push(renderCheckpointSwap(plan.checkpoint, checkpointFrom));
  const modes = new Map((plan.modes ?? []).map((entry) => [entry.path, describeModeChange(entry)]));
  const section = (title: string, paths: readonly string[]) => {
    if (paths.length === 0) return;
    lines.push(`${title} (${paths.length}):`);
    // Quoted as git quotes names: a name with a line feed cannot add a line to what is confirmed.
    for (const file of paths.slice(0, limit)) {
      const mode = modes.get(file);
      lines.push(`  ${quotePath(file)}${mode ? ` (${mode})` : ''}`);
    }
    if (paths.length > limit) lines.push(`  … and ${paths.length - limit} more`);
  };
  section('Overwrite', plan.overwrite);
  section('Create', plan.create);
  section('Delete', plan.delete);
  lines.push(...renderGuarded(plan, limit));
  return lines;
}

/** What a restore keeps aside first, and what it refuses to change, each with the reason. */
export function renderGuarded(
  plan: Pick<RestorePlan, 'keptAside' | 'refused' | 'links' | 'replaced'>,
  limit = 50,
): string[] {
  const lines: string[] = [];
  const section = (title: string, entries: ReadonlyArray<{ path: string; reason: string }>) => {
    if (entries.length === 0) return;
    lines.push(title);
    for (const entry of entries.slice(0, limit))
      lines.push(`  ${quotePath(entry.path)}: ${escapeControls(entry.reason)}`);
    if (entries.length > limit) lines.push(`  … and ${entries.length - limit} more`);
  };
  section(
    `Kept aside first, as no snapshot holds them; undo brings them back (${plan.keptAside.length}):`,
    plan.keptAside,
  );
  section(`Refused, left as they are (${plan.refused.length}):`, plan.refused);
  const links = plan.links ?? [];
  section(`Not brought back through links (${links.length}):`, links);
  const replaced = plan.replaced ?? [];
  section(`Links replaced (${replaced.length}):`, replaced);
  return lines;
}

/** A dry run ends saying how to apply it, in the words of the reader's surface (an MCP tool or the CLI). */
export function renderRestore(outcome: RestoreView, surface: Reader = 'mcp'): string {
  const total = outcome.plan.overwrite.length + outcome.plan.create.length + outcome.plan.delete.length;
  // A snapshot that left files out is not the whole tree: "already matches" alone hid a file deleted
  // for good (new-user trial 4).
  const leftOut = leftOutUnder(leftOutOf(outcome.snapshot.skipped), outcome.paths ?? []);
  const notHeld =
    leftOut.length === 0
      ? []
      : [
          `Not in snapshot ${outcome.snapshot.id}, so no restore from it brings back: ${leftOut
            .slice(0, 10)
            .map((entry) => describeLeftOut(entry))
            .join(
              ', ',
            )}${leftOut.length > 10 ? `, and ${leftOut.length - 10} more` : ''} (left out when it was taken).`,
        ];
  if (total === 0 && !outcome.plan.checkpoint)
    return [
      outcome.plan.refused.length > 0
        ? `Nothing to restore from snapshot ${outcome.snapshot.id} but what is refused.`
        : leftOut.length > 0
          ? `The working tree already matches what snapshot ${outcome.snapshot.id} holds: nothing to restore from it.`
          : `The working tree already matches snapshot ${outcome.snapshot.id}: nothing to restore.`,
      ...notHeld,
      ...renderGuarded(outcome.plan),
    ].join('\n');
  const lines = outcome.unconfirmed
    ? [
        `Not confirmed: restoring snapshot ${outcome.snapshot.id} would change ${total} file(s); nothing was changed (no terminal to confirm on: pass --yes).`,
      ]
    : outcome.dryRun
      ? [
          `Dry run: restoring snapshot ${outcome.snapshot.id} would change ${total} file(s). Nothing was changed.`,
        ]
      : [`Restored snapshot ${outcome.snapshot.id}: ${total} file(s) changed.`];
  lines.push(...renderPlan(outcome.plan));
  lines.push(...notHeld);
  if (outcome.headMoved) lines.push(renderHeadMove(outcome.headMoved));
  if (outcome.dryRun) lines.push(wordsOf(surface).applyRestore(outcome.snapshot.id, outcome.paths ?? []));
  else if (outcome.undoSnapshotId)
    // The same paths as the restore: undoing it must not take back work done since elsewhere (issue 26).
    lines.push(
      `To undo${outcome.interrupted ? ' (back to the state before the interrupted restore)' : ''}: ${wordsOf(surface).restoreNow(outcome.undoSnapshotId, outcome.undo?.paths ?? outcome.paths ?? [])}`,
    );
  // Documented, but a trap: `restore latest a.ts` then `restore latest` undid the first (rewind trial).
  const latest = outcome.dryRun ? null : (outcome.interrupted?.current ?? outcome.undoSnapshotId);
  if (latest)
    lines.push(
      `\`latest\` is now ${latest === outcome.undoSnapshotId ? `this undo snapshot (${latest})` : `snapshot ${latest}, taken just before this restore`}; to restore more from ${outcome.snapshot.id}, name it.`,
    );
  if (outcome.interrupted) {
    lines.push(
      `Note: an earlier restore of ${outcome.interrupted.target} was interrupted; the state before it is snapshot ${outcome.interrupted.undo}.`,
    );
    if (outcome.interrupted.current && !outcome.dryRun)
      lines.push(
        `The tree as it was just before this restore, with any edits made since the interruption, is snapshot ${outcome.interrupted.current}: ${wordsOf(surface).restoreNow(outcome.interrupted.current, outcome.paths ?? [])}`,
      );
  }
  return lines.join('\n');
}
