import { lstat, stat } from 'node:fs/promises';
import path from 'node:path';
import { CheckpointError, describeError } from '../core/errors.js';
import { type LeftOut, leftOutOf, leftOutUnder } from '../core/left-out.js';
import { isInGitFolder, isOwnFile } from '../core/paths.js';
import { escapeControls, quotePath, unquotePath } from '../core/quote.js';
import { bytesFromText, fsPath, hasRawBytes, textFromBytes } from '../core/raw-path.js';
import { PRE_RESTORE_TRIGGER, TURN_END_TRIGGER } from '../core/rewind-credit.js';
import { resolveRef } from '../core/rewind-refs.js';
import {
  BUILT_IN_TRIGGERS,
  type CheckpointSwap,
  changesNothing,
  checkpointSwap,
  formatSnapshotId,
  type GuardedPath,
  heldLimits,
  labelCheckpoint,
  modeChangeOf,
  type RestorePlan,
  SNAPSHOT_DEFAULTS,
  type SnapshotKind,
  type SnapshotRecord,
  selectExpired,
  summarizePlan,
  triggerProblem,
} from '../core/snapshot.js';
import { type HeadMove, headMoveSince } from '../core/snapshot-text.js';
import { type Reader, type SurfaceWords, WORDS, wordsFor, wordsOf } from '../core/surface.js';
import { clip, cutChars } from '../core/text.js';
import { readHeadFast } from '../git/repo.js';
import { type CheckpointFiles, CheckpointStore } from '../store/checkpoint-store.js';
import { settingsOf } from '../store/settings-file.js';
import {
  type AsideContent,
  type CaptureProgress,
  type CaptureResult,
  type DiffEntry,
  type GuardedRestore,
  type HeldFile,
  SnapshotStore,
  snapshotIdEntry,
  type WorktreeRead,
} from '../store/snapshot-store.js';
import { defaultStoreBase } from '../store/store-location.js';
import {
  estimatedBytes,
  isMeasured,
  isPackDue,
  listProjectStores,
  readUsage,
  type StoreUsage,
  writeUsage,
} from '../store/store-usage.js';
import { pruneTranscriptMemory } from '../store/transcript-memory.js';
import type { AppDeps } from './deps.js';
import { projectPathOf, rootRelativeHint } from './given-path.js';
import type { ResolvedRoot } from './root.js';
import type { RootContext } from './save.js';
import { snapshotSettings, storePlace } from './snapshot-list.js';
import {
  capDueBytes,
  removeOrphanStore,
  totalOverCap,
  trimProjectToCap,
  trimWholeStore,
  wholeStoreUsage,
} from './store-caps.js';
import { type StoreLimits, storeLimits } from './store-limits.js';

export { latestSnapshot, listSnapshots, snapshotSettings } from './snapshot-list.js';

export async function openStore(
  deps: AppDeps,
  projectRoot: string | undefined,
  context: RootContext,
): Promise<{ store: SnapshotStore; root: ResolvedRoot }> {
  const { root, storeDir, settings } = await storePlace(deps, projectRoot, context);
  return { store: new SnapshotStore(root.root, storeDir, settings), root };
}

export interface SnapshotOutcome {
  created: boolean;
  snapshot: SnapshotRecord;
  /** How many old snapshots retention removed. */
  expired: number;
  /** The project's first snapshot: its changes count from nothing, not from a previous one. */
  isFirst?: boolean;
  root: ResolvedRoot;
  /** The store has borrowed the project's objects long enough: time for a `gc` to copy them in. */
  detachDue: boolean;
  /**
   * This snapshot may have taken the project's store, or all stores together, past a size cap (or the
   * store was never measured): time for a `gc`, which measures and trims (see store-caps.ts).
   */
  capDue: boolean;
  /**
   * Enough snapshots were recorded since the store was last packed (see isPackDue): time for a `gc` to
   * pack them, as `git gc --auto` does, before a long history's loose commits slow every listing.
   */
  packDue: boolean;
}

/** Whether a snapshot's outcome asks for a gc: what the hooks start in the background (`gc --if-due`). */
export function isGcDue(outcome: Pick<SnapshotOutcome, 'detachDue' | 'capDue' | 'packDue'>): boolean {
  return outcome.detachDue || outcome.capDue || outcome.packDue;
}

/** A snapshot's commit and refs, generously, for the store's size estimate. */
const COMMIT_BYTES = 1024;

export interface SnapshotRequest {
  projectRoot?: string | undefined;
  trigger: string;
  label?: string | undefined;
  sessionId?: string | undefined;
  /** For a prompt's snapshot: the agent, its prompt id and its transcript (see rewind-menu). */
  prompt?: { agent?: string | undefined; promptId?: string | undefined; transcriptPath?: string | undefined };
  /**
   * Called once the snapshot's content is taken: the working tree and the project's HEAD have been read.
   * What is left (the tree, the commit, retention) touches only the store, under its lock, so a caller
   * that waits only for the content can go on here; a later call on the store waits for the rest.
   */
  onContentTaken?: (() => void) | undefined;
  /**
   * Told, just before onContentTaken, the files over the size cap and the nested repositories the
   * snapshot leaves out: a caller that must say so (the pre-command hook) holds its answer for it.
   */
  onContentLeftOut?: ((leftOut: Parameters<WorktreeRead>[0], root: string) => void) | undefined;
  /** Told what the capture is doing, for progress on a terminal (see CaptureProgress). */
  onProgress?: CaptureProgress | undefined;
  /**
   * Of the files over the size cap the capture leaves out, those this snapshot holds all the same (the
   * pre-command hook: those the command names), within heldLimits (each, in all, in time). Their content is in the
   * store before onContentTaken, and onContentLeftOut is told the rest.
   */
  holdLarge?: ((large: readonly LeftOut[], root: string) => string[]) | undefined;
  /**
   * A tree (a restore's target) whose files over the size cap this snapshot holds too where they are
   * unchanged on disk: their content is in the store already, and the restore then leaves them be.
   */
  holdUnchangedFrom?: string | undefined;
}

/** Captures the whole working tree; an unchanged tree gives back the latest snapshot instead of a new one. */
export async function takeSnapshot(
  deps: AppDeps,
  request: SnapshotRequest,
  context: RootContext = {},
): Promise<SnapshotOutcome> {
  const { store, root } = await openStore(deps, request.projectRoot, context);
  if (!BUILT_IN_TRIGGERS.has(request.trigger)) await checkTrigger(deps, root.root, request.trigger);
  return store.withLock(async () => {
    await store.init();
    const repeated = await repeatedPrompt(deps, store, request);
    if (repeated) {
      request.onContentTaken?.();
      return {
        created: false,
        snapshot: repeated,
        expired: 0,
        root,
        detachDue: false,
        capDue: false,
        packDue: false,
      };
    }
    const { usage, ...result } = await snapshotLocked(deps, store, request);
    return { ...result, root, ...(await dueAfter(deps, store, usage)) };
  });
}

/**
 * The snapshot of this very prompt, taken already: the latest one is this session's prompt with the
 * agent's id for it (Claude Code's `prompt_id`, Codex's `turn_id`, OpenCode's message id) and the same
 * label. The same hook delivered twice (hooks wired in two scopes, which agents run concurrently; an
 * agent that retries) gave two prompts, and `latest~1` named the same one (issue 26); a message a person
 * sends into a running turn may come with that turn's id, and its words differ. Under the store's lock,
 * so one of two hooks at once takes it, the other finds it.
 */
async function repeatedPrompt(
  deps: AppDeps,
  store: SnapshotStore,
  request: SnapshotRequest,
): Promise<SnapshotRecord | null> {
  const promptId = request.prompt?.promptId;
  if (request.trigger !== 'prompt' || !promptId || request.sessionId === undefined) return null;
  const latest = await store.latest();
  if (latest?.trigger !== 'prompt' || latest.sessionId !== request.sessionId || latest.promptId !== promptId)
    return null;
  const label = request.label === undefined ? undefined : await redactLabel(deps, store.root, request.label);
  return latest.label === label ? latest : null;
}

/** What a snapshot's outcome says is due; `usage` is null when no snapshot was recorded. */
async function dueAfter(
  deps: AppDeps,
  store: SnapshotStore,
  usage: StoreUsage | null,
): Promise<Pick<SnapshotOutcome, 'detachDue' | 'capDue' | 'packDue'>> {
  return {
    detachDue: await isDetachDue(deps, store),
    capDue: usage !== null && isCapDue(deps, usage),
    packDue: usage !== null && isPackDue(usage),
  };
}

async function isDetachDue(deps: AppDeps, store: SnapshotStore): Promise<boolean> {
  const since = await store.borrowingSince();
  return (
    since !== null && deps.now().getTime() - since.getTime() >= settingsOf(deps).detachAfterHours * 3_600_000
  );
}

/** From the cached figures only (no walk): cheap enough for every snapshot. */
function isCapDue(deps: AppDeps, usage: StoreUsage): boolean {
  const limits = storeLimits(settingsOf(deps));
  return (
    !isMeasured(usage) ||
    estimatedBytes(usage) > capDueBytes(usage, limits.maxBytes) ||
    totalOverCap(defaultStoreBase(deps.env), limits)
  );
}

/** What a safety snapshot holds besides its tree (see SnapshotStore.keepAside). */
interface KeptAside {
  commit: string;
  counts: { kept: number; created: number };
}

function promptFields(prompt: SnapshotRequest['prompt']): Partial<SnapshotRecord> {
  const fields: Partial<SnapshotRecord> = {};
  if (prompt?.agent) fields.agent = prompt.agent;
  if (prompt?.promptId) fields.promptId = prompt.promptId;
  if (prompt?.transcriptPath) fields.transcriptPath = prompt.transcriptPath;
  return fields;
}

async function snapshotLocked(
  deps: AppDeps,
  store: SnapshotStore,
  request: SnapshotRequest,
  /** For a safety snapshot: given the captured tree, keeps aside what it must and returns that commit. */
  keepAside?: (tree: string) => Promise<KeptAside | null>,
): Promise<Recorded> {
  const taken = await takeContent(deps, store, request);
  const aside = keepAside ? await keepAside(taken.captured.tree) : null;
  return recordContent(deps, store, request, taken, aside);
}

/** A snapshot's content, taken and not yet recorded (see takeContent). */
interface TakenContent {
  latest: SnapshotRecord | null;
  captured: CaptureResult;
  head: Awaited<ReturnType<typeof readHeadFast>>;
  label: string | undefined;
}

/** What recordContent did; `usage` is the store's size estimate after it (null: nothing recorded). */
interface Recorded {
  created: boolean;
  snapshot: SnapshotRecord;
  expired: number;
  usage: StoreUsage | null;
  /** The project had no snapshot before this one: there is no previous one its changes count from. */
  isFirst?: boolean;
}

/** The working tree's content now, in the store, and the project's HEAD: the first half of a snapshot. */
async function takeContent(
  deps: AppDeps,
  store: SnapshotStore,
  request: SnapshotRequest,
): Promise<TakenContent> {
  const latest = await store.latest();
  const headReading = readHeadFast(store.root);
  const { onContentTaken: taken, onContentLeftOut: toldLeftOut, holdLarge } = request;
  // Files over the cap that this snapshot holds all the same: stored as soon as the scan has found them,
  // before the content is said to be taken.
  let holding: Promise<HeldFile[]> | null = null;
  const hold = (leftOut: Parameters<WorktreeRead>[0]) => {
    const files = holdLarge?.(leftOutOf({ large: leftOut.large, nested: [] }), store.root) ?? [];
    holding = files.length > 0 ? store.storeHeld(files, heldLimits(deps.env)) : Promise.resolve([]);
    // A failure to store them leaves them out, as any capture would: said, never a stop.
    holding = holding.catch(() => []);
    return holding;
  };
  const onRead: WorktreeRead | undefined =
    taken || toldLeftOut || holdLarge
      ? (leftOut) => {
          const held = hold(leftOut);
          void held.then((files) => {
            const paths = new Set(files.map((file) => file.path));
            toldLeftOut?.(
              { ...leftOut, large: leftOut.large.filter((file) => !paths.has(file.path)) },
              store.root,
            );
            if (taken) void headReading.then(taken, taken);
          });
        }
      : undefined;
  const capturing = Promise.all([store.capture(latest?.tree, onRead, request.onProgress), headReading]);
  capturing.catch(() => undefined); // awaited below
  // The label is redacted while git scans: the detector's first use costs a hook a few milliseconds.
  const label = request.label === undefined ? undefined : await redactLabel(deps, store.root, request.label);
  const [scanned, head] = await capturing;
  const held = await (holding ?? hold(scanned.skipped));
  // A restore's safety snapshot holds those its target holds unchanged on disk: already in the store.
  const heldPaths = new Set(held.map((file) => file.path));
  const unchanged = request.holdUnchangedFrom
    ? await store
        .heldUnchangedOnDisk(
          request.holdUnchangedFrom,
          scanned.skipped.large.map((file) => file.path).filter((file) => !heldPaths.has(file)),
        )
        .catch(() => [])
    : [];
  // Should the tree with them fail, the snapshot is taken without them, and lists them as left out.
  const captured = await store.withHeld(scanned, latest, [...held, ...unchanged]).catch(() => scanned);
  return { latest, captured, head, label };
}

/**
 * A snapshot id no snapshot has: its second and a random suffix, drawn again while it names one (its ref
 * would be overwritten). Math.random is enough for a name checked this way, under the store's lock, and
 * leaves `node:crypto` unloaded (Node seeds it per process from OpenSSL's entropy).
 */
function newSnapshotId(ids: ReadonlyArray<{ id: string }>, now: Date): string {
  const taken = new Set(ids.map((entry) => entry.id));
  for (;;) {
    const suffix = Math.floor(Math.random() * 0x1000000)
      .toString(16)
      .padStart(6, '0');
    const id = formatSnapshotId(now, suffix);
    if (!taken.has(id)) return id;
  }
}

/** Records content taken by takeContent as a snapshot (unless it is the latest one again); retention after. */
async function recordContent(
  deps: AppDeps,
  store: SnapshotStore,
  request: SnapshotRequest,
  { latest, captured, head, label }: TakenContent,
  aside: KeptAside | null,
): Promise<Recorded> {
  // A session's prompt is recorded even on an unchanged tree, so that rewind can go back to every prompt,
  // and so is the end of its turn, which says where its work stopped (see rewind-credit.ts), and a
  // restore's safety snapshot for a session, which credits the restore's changes to it: the latest one
  // reused (a turn's end) gave them to no one, and its undo then had no session to take over. A snapshot
  // that holds content kept aside is more than its tree: it is never reused for another.
  const isSessionMark =
    (request.trigger === 'prompt' ||
      request.trigger === TURN_END_TRIGGER ||
      request.trigger === PRE_RESTORE_TRIGGER) &&
    request.sessionId !== undefined;
  // The same tree with other files left out (one over the size cap appeared) is news: its record says
  // what it left out, which a push, the snapshot's report and a restore go by (trial of issue 26).
  if (
    latest &&
    latest.tree === captured.tree &&
    sameLeftOut(latest.skipped, captured.skipped) &&
    !aside &&
    !latest.aside &&
    !isSessionMark
  )
    return { created: false, snapshot: latest, expired: 0, usage: null };

  const now = deps.now();
  const before = await store.snapshotIds();
  const snapshot = await store.record(
    {
      id: newSnapshotId(before, now),
      createdAt: now.toISOString(),
      trigger: request.trigger,
      ...(label ? { label } : {}),
      ...(request.sessionId ? { sessionId: request.sessionId } : {}),
      ...promptFields(request.prompt),
      git: head ? { branch: head.branch, head: head.head } : null,
      changes: captured.changes,
      skipped: captured.skipped,
      ...(aside ? { aside: aside.counts } : {}),
      ...(captured.held ? { held: captured.held } : {}),
    },
    captured.tree,
    aside?.commit,
  );
  store.noteKind(snapshot);
  // The store's snapshots now: those before and this one (no one else writes while the lock is held).
  const ids = [...before, snapshotIdEntry(snapshot.id)];
  const expired = await expiredOf(store, ids, now, snapshot.id);
  await store.remove(expired.map((record) => record.id));
  const gone = new Set(expired.map((record) => record.id));
  // Read before setLatest replaces the latest it names.
  const others = await store.othersOfSecond(
    snapshot,
    ids.filter((entry) => !gone.has(entry.id)),
  );
  await store.setLatest(snapshot, others);
  const noted = store.noteAdded(captured.addedBytes + COMMIT_BYTES, 1);
  // A store new with this snapshot is measured now, while it is small: what was just added is not all it
  // holds (its config and index, what a handoff pull fetched into it; issue 26). One with older
  // snapshots and no figure stays unmeasured, so the gc this starts in the background measures it.
  let usage = noted;
  if (latest === null && !isMeasured(usage)) {
    usage = {
      ...usage,
      measuredBytes: await store.sizeBytes(),
      measuredAt: now.toISOString(),
      // What this call writes after the measure (this file, a restore's journal, a pull's list of the
      // handoffs seen) is covered as every snapshot's own bookkeeping is.
      addedBytes: COMMIT_BYTES,
    };
    writeUsage(store.storeDir, usage);
  }
  return { created: true, snapshot, expired: expired.length, usage, isFirst: latest === null };
}

/**
 * Whether two snapshots left out the same paths; sizes aside, so that a large file growing (a log over
 * the cap) does not make a new snapshot of the same tree each time.
 */
function sameLeftOut(a: SnapshotRecord['skipped'], b: SnapshotRecord['skipped']): boolean {
  const paths = (skipped: SnapshotRecord['skipped']) =>
    JSON.stringify([
      skipped.large.map((entry) => entry.path),
      skipped.nested,
      skipped.invalidNames ?? [],
      (skipped.unreadable ?? []).map((entry) => entry.path),
    ]);
  return paths(a) === paths(b);
}

/**
 * What retention removes now (see selectExpired). Each snapshot's kind and session are read only when
 * there are more snapshots than the count keeps, the one case where they matter.
 */
async function expiredOf<T extends { id: string; createdAt: string }>(
  store: SnapshotStore,
  ids: readonly T[],
  now: Date,
  justTaken?: string,
): Promise<T[]> {
  const kinds: Map<string, SnapshotKind> =
    ids.length > store.settings.maxCount ? await store.snapshotKinds(ids) : new Map();
  // Ordered by their exact times where known: several snapshots may share the second their ids carry.
  const timed = ids.map((entry) => {
    const createdAt = kinds.get(entry.id)?.createdAt;
    return createdAt ? { ...entry, createdAt } : entry;
  });
  return selectExpired(timed, store.settings, now, (id) => kinds.get(id), justTaken);
}

/**
 * Marks the end of a session's turn (the agent's Stop hook, or its equivalent): a snapshot with trigger
 * `turn-end`, so that what changes after it, until the next snapshot, is known to be made outside any
 * agent session (see rewind-credit.ts). Never creates a store, and costs nothing when the latest snapshot
 * already is this session's turn end; otherwise one capture, cheap on an unchanged tree.
 */
export async function markTurnEnd(
  deps: AppDeps,
  request: { projectRoot?: string | undefined; sessionId: string; agent?: string | undefined },
): Promise<SnapshotOutcome | null> {
  const { store, root } = await openStore(deps, request.projectRoot, {});
  // No snapshot yet, no prompt to have ended a turn of: no store is made for it.
  if (!(await store.exists())) return null;
  return store.withLock(async () => {
    const latest = await store.latest();
    if (!latest || (latest.trigger === TURN_END_TRIGGER && latest.sessionId === request.sessionId))
      return null;
    await store.init();
    const { usage, ...result } = await snapshotLocked(deps, store, {
      trigger: TURN_END_TRIGGER,
      sessionId: request.sessionId,
      prompt: { agent: request.agent },
    });
    return { ...result, root, ...(await dueAfter(deps, store, usage)) };
  });
}

/** The detector loads only for a label: `list`, `status` and the brief never load it (issue 26). */
async function redactLabel(deps: AppDeps, root: string, label: string): Promise<string> {
  const [{ Redactor }, { loadRedactionConfig }] = await Promise.all([
    import('../core/redact.js'),
    import('./redaction.js'),
  ]);
  const redaction = await loadRedactionConfig(deps.fs, deps.env, root);
  // A hook says what is wrong with a redaction file (a save lists it in its warnings).
  for (const problem of redaction.problems) deps.settingsProblem?.(problem);
  const redacted = new Redactor(redaction.config).text(label.trim());
  return cutChars(redacted, SNAPSHOT_DEFAULTS.labelChars);
}

/**
 * A person's trigger (`snapshot --trigger`) is printed in every list and kept in each commit message,
 * unredacted: a name, never free text, and never one the detector takes for a secret (issue 26).
 */
async function checkTrigger(deps: AppDeps, root: string, trigger: string): Promise<void> {
  const rule = `${WORDS[deps.surface].trigger} must be a name of lowercase letters, digits and dashes, at most ${SNAPSHOT_DEFAULTS.triggerChars} characters, such as pre-deploy`;
  // Security: the value is never echoed: it may be a token pasted in the wrong place.
  const problem = triggerProblem(trigger);
  if (problem) throw new CheckpointError('INVALID_INPUT', `${rule} (${problem})`);
  if ((await redactLabel(deps, root, trigger)) !== trigger)
    throw new CheckpointError('INVALID_INPUT', `${rule} (this one looks like a secret)`);
}

/** Finds a snapshot by id, unique id prefix, "latest" or "latest~N" (N snapshots before the latest). */
export function findSnapshot(
  snapshots: readonly SnapshotRecord[],
  ref: string,
  reader: Reader,
): SnapshotRecord {
  if (snapshots.length === 0)
    throw new CheckpointError('INVALID_INPUT', 'there are no snapshots for this project yet');
  return resolveRef(snapshots, ref, 'snapshot', `see them with ${wordsOf(reader).listSnapshots}`);
}

export interface DiffRequest {
  projectRoot?: string | undefined;
  snapshotId: string;
  /** Another snapshot to compare with; the current working tree when absent. */
  against?: string | undefined;
  /** One path for a unified diff. */
  path?: string | undefined;
  /** The folder a relative path is taken from: the CLI's current folder; the root when absent (the tools'). */
  pathsFrom?: string | undefined;
}

export interface DiffOutcome {
  from: string;
  to: string;
  files: DiffEntry[];
  patch?: string;
  /**
   * What each snapshot compared left out although it was there (over the size cap, a nested repository),
   * within the path compared: not compared, so "no differences" says nothing of it (new-user trial 4).
   */
  notHeld?: Array<{ snapshot: string; leftOut: LeftOut[] }>;
}

/** What differs between a snapshot and the working tree (or another snapshot): files with line counts, or one path's diff. */
export async function diffSnapshot(
  deps: AppDeps,
  request: DiffRequest,
  context: RootContext = {},
): Promise<DiffOutcome> {
  const { store } = await openStore(deps, request.projectRoot, context);
  const readings =
    request.path === undefined
      ? undefined
      : snapshotPath(store.root, request.path, 'path', request.pathsFrom);
  return store.withLock(async () => {
    await store.init();
    const from = findSnapshot(
      await store.candidatesFor(request.snapshotId),
      request.snapshotId,
      wordsFor(deps.surface, deps.commandRoot),
    );
    const to = request.against
      ? findSnapshot(
          await store.candidatesFor(request.against),
          request.against,
          wordsFor(deps.surface, deps.commandRoot),
        )
      : null;
    for (const snapshot of to ? [from, to] : [from])
      await store.checkRestorable(snapshot, wordsFor(deps.surface, deps.commandRoot));
    const current = to ? null : await store.captureComparedWith(from.tree);
    const toTree = to ? to.tree : (current as CaptureResult).tree;
    const file = readings && (await pickGivenPath(store, [from.tree, toTree], readings));
    const files = await store.diffStat(from.tree, toTree, file ? [file] : []);
    // "No differences" about a path neither side has would be a false all-clear (issue 26). One that a side
    // left out (over the size cap, nested) is named as not compared below, as restore names it (review).
    const leftOutBySide = (file: string) =>
      [from.skipped, to ? to.skipped : current?.skipped].some(
        (skipped) => leftOutUnder(leftOutOf(skipped), [file]).length > 0,
      );
    if (file && files.length === 0 && !leftOutBySide(file) && !(await store.treeHasPath(from.tree, file))) {
      const onDisk = !to && (await isOnDisk(store, file));
      throw new CheckpointError(
        'INVALID_INPUT',
        isOwnFile(file)
          ? checkpointFileNotHeld(file)
          : onDisk
            ? notHeldOnDisk(file, from.id)
            : `path '${file}'${takenFrom(request.path, file, request.pathsFrom)} is in neither snapshot ${from.id} nor ${to ? `snapshot ${to.id}` : 'the working tree'}${rawNameHint(file)}${rootRelativeHint(store.root, request.path ?? '', request.pathsFrom)}${
                to || request.path === undefined
                  ? ''
                  : await snapshotHint(deps, store, request.path, (words) =>
                      words.compareSnapshots(request.snapshotId, request.path ?? ''),
                    )
              }`,
      );
    }
    const sides = [from, to ?? { id: 'working tree', skipped: current?.skipped }];
    const notHeld = sides
      .map((side) => ({
        snapshot: side.id,
        leftOut: leftOutUnder(leftOutOf(side.skipped), file ? [file] : []),
      }))
      .filter((entry) => entry.leftOut.length > 0);
    // A path one side left out is not compared: its absence there is no deletion (nor its presence on the
    // other side an addition); it is named under notHeld instead (docs/rewind.md; rewind trial).
    const leftOut = notHeld.flatMap((side) => side.leftOut);
    const isLeftOut = (path: string) =>
      leftOut.some((entry) => path === entry.path || path.startsWith(`${entry.path}/`));
    const compared = files.filter((entry) => !isLeftOut(entry.path));
    const outcome: DiffOutcome = { from: from.id, to: to ? to.id : 'working tree', files: compared };
    if (file) outcome.patch = compared.length > 0 ? await store.unifiedDiff(from.tree, toTree, file) : '';
    if (notHeld.length > 0) outcome.notHeld = notHeld;
    return outcome;
  });
}

export interface RestoreRequest {
  projectRoot?: string | undefined;
  snapshotId: string;
  paths?: readonly string[] | undefined;
  /** The folder a relative path is taken from: the CLI's current folder; the root when absent (the tools'). */
  pathsFrom?: string | undefined;
  dryRun: boolean;
  sessionId?: string | undefined;
  onProgress?: (done: number, total: number) => void;
  /** Not a dry run, but a plan that changes no file is not applied (see restoreTreeLocked). */
  unlessEmpty?: boolean | undefined;
}

export interface RestoreOutcome {
  snapshot: SnapshotRecord;
  dryRun: boolean;
  plan: RestorePlan;
  /** The paths the restore was limited to, relative to the project; empty: the whole tree. */
  paths: string[];
  /**
   * The snapshot of the state before the restore: restore it to undo. After an interrupted restore, the
   * state before that one (the first attempt), whatever the attempts in between left.
   */
  undoSnapshotId: string | null;
  /**
   * How to undo: restore `snapshotId`, limited to `paths` (empty: the whole tree). A path-limited
   * restore's undo names the same paths, so it leaves what was edited elsewhere since (issue 26).
   */
  undo: RestoreUndo | null;
  /**
   * Set when an earlier restore was interrupted; this one completes it. `current`: this restore's own
   * safety snapshot, which holds what was edited since the interruption, when it differs from `undo`.
   */
  interrupted: { target: string; undo: string; current?: string } | null;
  /** HEAD or the branch moved since the snapshot: the restore writes files only, and says so. */
  headMoved?: HeadMove | null;
}

/** A restore's undo: the snapshot to restore, and the paths to limit it to (empty: the whole tree). */
export interface RestoreUndo {
  snapshotId: string;
  paths: string[];
}

/**
 * The paths an undo must cover: those of this restore and, when it completes an interrupted one (the
 * undo then names the state before that first attempt), that one's too. Empty: the whole tree, as for
 * an interrupted restore of the whole tree, or one whose journal an older version wrote without paths.
 */
function undoPaths(
  paths: readonly string[],
  interrupted: { paths?: unknown } | null,
  changes: ReadonlyArray<{ path: string }> = [],
): string[] {
  if (paths.length === 0) return [];
  const isCovered = (file: string) => paths.some((given) => file === given || file.startsWith(`${given}/`));
  const beyond = changes.map((change) => change.path).filter((file) => !isCovered(file));
  if (!interrupted) return [...new Set([...beyond, ...paths])];
  const earlier = interrupted.paths;
  if (!Array.isArray(earlier) || earlier.length === 0 || !earlier.every((file) => typeof file === 'string'))
    return [];
  return [...new Set([...beyond, ...paths, ...(earlier as string[])])];
}

/**
 * Brings the working tree (or some paths) back to a snapshot. Plans first; when not a dry run, takes a
 * `pre-restore` snapshot so the restore can be undone, then changes only the files in the plan.
 */
export async function restoreSnapshot(
  deps: AppDeps,
  request: RestoreRequest,
  context: RootContext = {},
): Promise<RestoreOutcome> {
  const { store } = await openStore(deps, request.projectRoot, context);
  const readings = (request.paths ?? []).map((given, index) =>
    snapshotPath(store.root, given, WORDS[deps.surface].restorePath(index), request.pathsFrom),
  );
  return store.withLock(async () => {
    await store.init();
    const snapshot = findSnapshot(
      await store.candidatesFor(request.snapshotId),
      request.snapshotId,
      wordsFor(deps.surface, deps.commandRoot),
    );
    // The target first: a snapshot whose content was pruned says so before its tree is read for the paths.
    const target = await restoreTargetOf(store, snapshot, wordsFor(deps.surface, deps.commandRoot));
    const paths: string[] = [];
    for (const given of readings) paths.push(await pickGivenPath(store, [snapshot.tree], given));
    await refuseUnknownPaths(store, snapshot, paths, request.paths ?? [], deps, request.pathsFrom);
    // An undo (a restore of a restore's safety snapshot) takes back what that restore did: what it
    // brings back is credited as that restore's was, to its session (see rewind-credit.ts), unless the
    // caller names its own. Else a person's undo between turns gave the session's work to no one.
    const sessionId =
      request.sessionId ?? (snapshot.trigger === PRE_RESTORE_TRIGGER ? snapshot.sessionId : undefined);
    const done = await restoreTreeLocked(deps, store, target, { ...request, paths, sessionId });
    const headMoved = headMoveSince(snapshot.git, await readHeadFast(store.root));
    // A restore that applied always names its undo: none, with unlessEmpty, means nothing was changed.
    return { snapshot, dryRun: request.dryRun || done.undoSnapshotId === null, ...done, headMoved };
  });
}

/**
 * A path in neither the snapshot nor the working tree restores nothing: "nothing to restore" would hide a
 * typo, so it is the error `diff` gives (issue 26).
 */
async function refuseUnknownPaths(
  store: SnapshotStore,
  snapshot: SnapshotRecord,
  paths: readonly string[],
  given: readonly string[],
  deps: AppDeps,
  from: string | undefined,
): Promise<void> {
  let current: Promise<CaptureResult> | undefined;
  for (const [index, file] of paths.entries()) {
    // "Already matches" about a file no snapshot holds would be a false all-clear (newcomer trial).
    if (isOwnFile(file)) throw new CheckpointError('INVALID_INPUT', checkpointFileNotHeld(file));
    if (await store.treeHasPath(snapshot.tree, file)) continue;
    // What the snapshot left out when it was taken: the restore's output names it (see renderRestore).
    if (leftOutUnder(leftOutOf(snapshot.skipped), [file]).length > 0) continue;
    if (await isOnDisk(store, file)) {
      // On disk and not in the snapshot: a file made since is restored by deleting it; one that no
      // snapshot takes (git-ignored, over the size cap, nested) is not this restore's to touch.
      current ??= store.captureComparedWith(snapshot.tree);
      if (await store.treeHasPath((await current).tree, file)) continue;
      throw new CheckpointError('INVALID_INPUT', notHeldOnDisk(file, snapshot.id));
    }
    const typed = given[index];
    const hint =
      typed === undefined ? '' : await snapshotHint(deps, store, typed, (words) => words.restoreOther(typed));
    throw new CheckpointError(
      'INVALID_INPUT',
      `path '${file}'${takenFrom(typed, file, from)} is in neither snapshot ${snapshot.id} nor the working tree${rawNameHint(file)}${typed === undefined ? '' : rootRelativeHint(store.root, typed, from)}${hint}`,
    );
  }
}

/**
 * What a path a person typed in another folder than the root was resolved to, for a "not found" error:
 * ` (from 'a.ts' in the current folder /p/src)`; nothing where the path is the one typed.
 */
function takenFrom(typed: string | undefined, file: string, from: string | undefined): string {
  if (typed === undefined || from === undefined || typed === file || path.isAbsolute(typed)) return '';
  return ` (from '${escapeControls(typed)}' in the current folder ${escapeControls(from)})`;
}

/** A file on disk that no snapshot takes: named as diff and restore refuse it. */
function notHeldOnDisk(file: string, snapshotId: string): string {
  return `path '${file}' is in neither snapshot ${snapshotId} nor what a snapshot of the working tree holds: it is there, but snapshots leave it out (git-ignored, over the size cap, in a nested repository, or a folder with no file a snapshot holds: snapshots hold files, not empty folders)`;
}

/** The checkpoint and its backups: never in a snapshot, for a reason of their own. */
function checkpointFileNotHeld(file: string): string {
  return `path '${file}' is the checkpoint's own file, which snapshots never hold: it keeps the session's notes (save and load write and read it), not the project's files`;
}

/**
 * When a path that names no file names a snapshot (`diff <id1> <id2>`, `latest~1`): "; '<ref>' names a
 * snapshot: " and what to do, in the reader's words; else nothing (issue 26).
 */
async function snapshotHint(
  deps: AppDeps,
  store: SnapshotStore,
  ref: string,
  advice: (words: SurfaceWords) => string,
): Promise<string> {
  try {
    const words = wordsFor(deps.surface, deps.commandRoot);
    findSnapshot(await store.candidatesFor(ref), ref, words);
    return `; '${ref}' names a snapshot: ${advice(words)}`;
  } catch {
    return '';
  }
}

/** A snapshot as a restore's target: its tree, and what it kept aside and left out. */
export async function restoreTargetOf(
  store: SnapshotStore,
  snapshot: SnapshotRecord,
  words: SurfaceWords,
): Promise<RestoreTarget> {
  // A snapshot whose borrowed content the user pruned fails here, before a plan or safety snapshot.
  await store.checkRestorable(snapshot, words);
  const aside = snapshot.aside ? await store.readAside(snapshot.commit) : null;
  return {
    id: snapshot.id,
    tree: snapshot.tree,
    aside,
    skipped: snapshot.skipped,
    ...(aside?.checkpoint === undefined ? {} : { checkpoint: aside.checkpoint }),
    ...(aside?.checkpointFiles === undefined ? {} : { checkpointFiles: aside.checkpointFiles }),
  };
}

export interface RestoreTarget {
  id: string;
  tree: string;
  /** What the target snapshot kept aside: written back, and the paths created after it removed. */
  aside?: AsideContent | null;
  /** What the target snapshot (or handoff) left out although it was there: not deleted. */
  skipped?: { large: ReadonlyArray<{ path: string }>; nested: readonly string[] } | undefined;
  /**
   * The checkpoint file's text that comes with the tree (a handoff's, or the one a pull's safety snapshot
   * kept; null: that there was none): a restore of the whole tree writes it (removes the one here),
   * keeping the one it replaces with its safety snapshot.
   */
  checkpoint?: string | null | undefined;
  /**
   * The checkpoint file and its backup byte for byte, as the pull's safety snapshot kept them (a damaged
   * one too): a restore of the whole tree puts both back as they were. Absent: older snapshots, a handoff.
   */
  checkpointFiles?: CheckpointFiles | undefined;
}

/**
 * The restore itself, for any tree in the store (a snapshot's, or a handoff's), run holding the store's
 * lock. A dry run only plans; otherwise a `pre-restore` snapshot is taken first, holding also what it
 * could not capture but the restore changes (kept aside), so it can be undone exactly. A restore that
 * fails midway puts the tree back as it was before it.
 */
export async function restoreTreeLocked(
  deps: AppDeps,
  store: SnapshotStore,
  target: RestoreTarget,
  options: {
    paths: readonly string[];
    dryRun: boolean;
    sessionId?: string | undefined;
    onProgress?: ((done: number, total: number) => void) | undefined;
    /**
     * Apply only a plan that changes a file; otherwise record and change nothing, as a dry run, and name
     * no undo. For a caller that would not apply such a plan: one pass instead of a dry run first.
     */
    unlessEmpty?: boolean | undefined;
    /** For a dry run: the working tree's tree, captured just now by the caller under the same lock. */
    currentTree?: string | undefined;
    /** The CLI's current folder, which the paths of a command printed on failure are written from. */
    pathsFrom?: string | undefined;
  },
): Promise<Omit<RestoreOutcome, 'snapshot' | 'dryRun'>> {
  // Only a restore of the whole tree brings a checkpoint: one of some paths leaves it as it is.
  const incoming = options.paths.length === 0 ? target.checkpoint : undefined;
  const incomingFiles = options.paths.length === 0 ? target.checkpointFiles : undefined;
  const checkpoints =
    incoming === undefined && incomingFiles === undefined ? null : new CheckpointStore(store.root, deps.fs);
  if (options.dryRun) {
    const current = options.currentTree ?? (await store.captureComparedWith(target.tree)).tree;
    const guarded = await store.guardRestore(current, target, options.paths);
    const swap = checkpoints
      ? swapOf(await readCheckpointHere(checkpoints), incoming, incomingFiles)
      : undefined;
    return {
      plan: planOf(guarded, swap),
      paths: [...options.paths],
      undoSnapshotId: null,
      undo: null,
      interrupted: null,
    };
  }
  const interrupted = await store.recoverInterruptedRestore();
  const request = {
    trigger: PRE_RESTORE_TRIGGER,
    label: `before restoring ${target.id}`,
    sessionId: options.sessionId,
    holdUnchangedFrom: target.tree,
  };
  const taken = await takeContent(deps, store, request);
  const plan = await store.guardRestore(taken.captured.tree, target, options.paths);
  // The checkpoint's lock from reading the one here to writing the new one: a save in between would be
  // lost. The one here goes into the safety snapshot first (never only into `.prev`, which the next write
  // replaces: a trial lost a machine's own checkpoint to two pulls), then the new one is written.
  const recordAndSwap = async (): Promise<{ before: Recorded; swap: CheckpointSwap | undefined } | null> => {
    const here = checkpoints ? await readCheckpointHere(checkpoints) : null;
    const swap = here ? swapOf(here, incoming, incomingFiles) : undefined;
    if (options.unlessEmpty && changesNothing(planOf(plan, swap))) return null;
    const folders = plan.emptyFolders.map((folder) => folder.path);
    // The one here, or that there was none (null), and its files byte for byte (a damaged one too: a
    // pull or an undo may replace or remove it), so that undo brings back exactly that.
    const kept = swap && here ? here : undefined;
    const isKept =
      plan.keep.length + plan.created.length + plan.unheld.length + folders.length > 0 || kept !== undefined;
    const before = await recordContent(
      deps,
      store,
      request,
      taken,
      isKept
        ? {
            commit: await store.keepAside(plan.keep, plan.created, plan.unheld, folders, kept),
            counts: { kept: plan.keep.length, created: plan.created.length },
          }
        : null,
    );
    if (checkpoints && swap) {
      if (incomingFiles !== undefined) await checkpoints.writeFilesLocked(incomingFiles);
      else if (incoming === null) await checkpoints.removeLocked();
      else if (incoming !== undefined) await checkpoints.writeLocked(incoming);
    }
    return { before, swap };
  };
  const recorded = checkpoints ? await checkpoints.withLock(recordAndSwap) : await recordAndSwap();
  if (recorded === null) {
    // Nothing to change: as a dry run, nothing recorded. What the capture read is in the store now.
    if (taken.captured.addedBytes > 0) store.noteAdded(taken.captured.addedBytes);
    return {
      plan: planOf(plan),
      paths: [...options.paths],
      undoSnapshotId: null,
      undo: null,
      interrupted: null,
    };
  }
  const { before, swap } = recorded;
  // Security: after an interrupted restore, the state worth going back to is the one before it, not
  // the half-restored one this snapshot holds; every later attempt keeps naming it.
  const undo = interrupted?.undo ?? before.snapshot.id;
  // The undo names this restore's paths (and an interrupted one's): the rest of the tree is not its to
  // take back, and may hold work done since (new-user trial, 2026-12-06).
  // And what the plan changes beyond those paths (a link in the way of a path restored: restore-guard.ts).
  const paths = undoPaths(options.paths, interrupted, plan.changes);
  await store.beginRestore({
    target: target.id,
    undo,
    paths,
    dirs: [...new Set(plan.changes.map((change) => path.posix.dirname(change.path)))],
    startedAt: deps.now().toISOString(),
  });
  try {
    await store.apply(plan.changes, options.onProgress, plan.folders);
  } catch (error) {
    // Put back where this attempt wrote: its paths, and what its plan changed beyond them (a link in the
    // way of a path restored, replaced by a folder): limited to its paths only, the link was lost and
    // the folder made for it stayed.
    const written = undoPaths(options.paths, null, plan.changes);
    throw await rollBack(deps, store, before.snapshot, target, written, error, options.pathsFrom);
  }
  await store.endRestore();
  return {
    plan: planOf(plan, swap),
    paths: [...options.paths],
    undoSnapshotId: undo,
    undo: { snapshotId: undo, paths },
    // The undo named goes back to before the first attempt, but the tree just before this one may hold
    // edits made since (adversarial trial, 2026-12-06): name that snapshot too, so that neither is lost.
    interrupted: interrupted
      ? {
          target: interrupted.target,
          undo: interrupted.undo,
          ...(before.snapshot.id !== interrupted.undo ? { current: before.snapshot.id } : {}),
        }
      : null,
  };
}

/**
 * A restore that failed midway (a name this file system refuses, a full disk) must not leave a tree
 * half one and half the other: put back the safety snapshot, what it kept aside included. Returns the
 * error to throw; when even that fails, the journal stays and names the snapshot to restore.
 */
async function rollBack(
  deps: AppDeps,
  store: SnapshotStore,
  before: SnapshotRecord,
  target: RestoreTarget,
  paths: readonly string[],
  error: unknown,
  from: string | undefined,
): Promise<CheckpointError> {
  // A name too long for the file system is the usual cause: say which, not all 4,000 bytes of it.
  const full = describeError(error);
  const why = clip(full, 301);
  try {
    const aside = before.aside ? await store.readAside(before.commit) : null;
    const back = await restoreTreeLocked(
      deps,
      store,
      {
        id: before.id,
        tree: before.tree,
        aside,
        skipped: before.skipped,
        // The checkpoint the failed restore replaced comes back with the files.
        ...(aside?.checkpoint === undefined ? {} : { checkpoint: aside.checkpoint }),
        ...(aside?.checkpointFiles === undefined ? {} : { checkpointFiles: aside.checkpointFiles }),
      },
      // Only where the failed restore wrote: the rest of the tree may be changing under an editor.
      { paths, dryRun: false },
    );
    return new CheckpointError('IO_FAILED', `restoring ${target.id} failed (${why}); ${putBack(back.plan)}`, {
      cause: error,
    });
  } catch (again) {
    return new CheckpointError(
      'IO_FAILED',
      `restoring ${target.id} failed (${why}), and putting the tree back failed too (${describeError(again)}): to go back, ${wordsFor(deps.surface, deps.commandRoot, from === undefined ? undefined : { projectRoot: store.root, cwd: from }).restoreNow(before.id, paths)}`,
      { cause: error },
    );
  }
}

/**
 * What a rollback did, exactly (audit item 13: "nothing changed" was said with files left over): how
 * many files it put back, and each it refused to, which stay as the failed restore left them.
 */
function putBack(plan: RestorePlan): string {
  const count = plan.overwrite.length + plan.create.length + plan.delete.length;
  const done =
    count === 0
      ? 'it had changed no file yet'
      : `the ${count} file(s) it had changed were put back as they were`;
  if (plan.refused.length === 0) return `${done}; nothing else was changed`;
  const shown = plan.refused
    .slice(0, 10)
    .map((entry) => `${quotePath(entry.path)} (${entry.reason})`)
    .join('; ');
  const more = plan.refused.length > 10 ? `; and ${plan.refused.length - 10} more` : '';
  return `${done}, but not these ${plan.refused.length}, left as the failed restore made them: ${shown}${more}`;
}

/** The checkpoint here: its text as a load gives it (null: none), and its files byte for byte. */
interface CheckpointHere {
  text: string | null;
  files: CheckpointFiles;
}

async function readCheckpointHere(checkpoints: CheckpointStore): Promise<CheckpointHere> {
  return { text: await checkpoints.readCurrentText(), files: await checkpoints.readFiles() };
}

/** Whether the checkpoint file is there but a load does not give it (it is damaged: a load falls back). */
function isMainUnusable(text: string | null, files: CheckpointFiles): boolean {
  return files.main !== null && (text === null || !files.main.equals(Buffer.from(text)));
}

function isSameBytes(one: Buffer | null, other: Buffer | null): boolean {
  return one === null || other === null ? one === other : one.equals(other);
}

/**
 * What writing the incoming checkpoint over the one here changes: its text (null: removes it), or its
 * files byte for byte as a safety snapshot kept them. Undefined: nothing a load would see.
 */
function swapOf(
  here: CheckpointHere,
  incoming: string | null | undefined,
  incomingFiles: CheckpointFiles | undefined,
): CheckpointSwap | undefined {
  const isCurrentUnusable = isMainUnusable(here.text, here.files);
  const flags = (swap: CheckpointSwap, isWrittenUnusable: boolean): CheckpointSwap => ({
    ...swap,
    ...(isCurrentUnusable ? { isCurrentUnusable: true } : {}),
    ...(isWrittenUnusable ? { isWrittenUnusable: true } : {}),
  });
  if (incomingFiles === undefined) {
    const swap = checkpointSwap(here.text, incoming);
    return swap && flags(swap, false);
  }
  // The backup matters only where a load reads it: no usable file in front of it.
  const isSame =
    isSameBytes(here.files.main, incomingFiles.main) &&
    ((here.files.main !== null && !isCurrentUnusable) || isSameBytes(here.files.prev, incomingFiles.prev));
  if (isSame) return undefined;
  const text = incoming ?? null;
  return flags(
    {
      current: here.text === null ? null : labelCheckpoint(here.text),
      written: text === null ? null : labelCheckpoint(text),
    },
    isMainUnusable(text, incomingFiles),
  );
}

function planOf(
  guarded: GuardedRestore & { links?: GuardedPath[]; replaced?: GuardedPath[] },
  checkpoint?: CheckpointSwap,
): RestorePlan {
  const folders = guarded.emptyFolders
    .filter((folder) => folder.removed)
    .map((folder) => ({ path: `${folder.path}/`, reason: 'an empty folder, which no snapshot holds' }));
  return summarizePlan(guarded.planned, {
    keptAside: [...guarded.keep.map((leaf) => ({ path: leaf.path, reason: leaf.reason })), ...folders],
    refused: guarded.refused,
    ...(guarded.links ? { links: guarded.links } : {}),
    ...(guarded.replaced ? { replaced: guarded.replaced } : {}),
    modes: guarded.changes.flatMap((change) => {
      const mode = modeChangeOf(change);
      return mode ? [{ path: change.path, ...mode }] : [];
    }),
    ...(checkpoint ? { checkpoint } : {}),
  });
}

export interface GcOutcome {
  /** Snapshots deleted: expired by count or age, plus `trimmed`. */
  removed: number;
  /** Of those, deleted to bring the store under its size cap. */
  trimmed: number;
  kept: number;
  beforeBytes: number;
  afterBytes: number;
  /**
   * Snapshots deleted because content they borrowed from the project's repository was deleted there
   * (history pruned) before the store copied it in: they could no longer be restored.
   */
  damaged: string[];
  /** Bytes copied in from the project's repository, so that the store no longer borrows from it. */
  copiedBytes: number;
  /** Snapshots deleted, per project (this one included), to bring all stores together under the whole-store cap. */
  wholeStore: Array<{ root: string; trimmed: number }>;
  /** With `ifDue`: nothing was due, so nothing was done. */
  skipped?: boolean;
  /** This project's cap (`storeMaxMb`) in bytes; `null` when off. */
  maxBytes: number | null;
  /**
   * Still over that cap with every snapshot the size cap may delete deleted: what is left (the newest, a
   * restore's undo, the newest others within a margin) is larger than the cap, so only a higher cap helps.
   */
  isOverCap: boolean;
}

/**
 * Applies retention now (count, age, then the size caps, oldest first) and deletes content no snapshot
 * references. `ifDue`: only when a snapshot said a gc is due (see SnapshotOutcome), for the gc the hooks
 * start in the background: several started while one runs do not each repack the store again.
 * `onPhase` names each step as it starts, for progress on a terminal.
 */
export async function gcSnapshots(
  deps: AppDeps,
  request: { projectRoot?: string | undefined; ifDue?: boolean | undefined },
  context: RootContext = {},
  onPhase?: (phase: string) => void,
): Promise<GcOutcome> {
  const { store } = await openStore(deps, request.projectRoot, context);
  const limits = storeLimits(settingsOf(deps));
  const base = defaultStoreBase(deps.env);
  const empty = {
    removed: 0,
    trimmed: 0,
    kept: 0,
    beforeBytes: 0,
    afterBytes: 0,
    damaged: [],
    copiedBytes: 0,
    wholeStore: [],
    maxBytes: Number.isFinite(limits.maxBytes) ? limits.maxBytes : null,
    isOverCap: false,
  };
  if (!(await store.exists()))
    return { ...empty, wholeStore: await trimOthers(deps, base, limits, store, onPhase) };
  const outcome = await store.withLock(async () => {
    if (!request.ifDue) return collectLocked(deps, store, limits, onPhase);
    const usage = readUsage(store.storeDir);
    const isFullDue =
      usage === null ||
      !isMeasured(usage) ||
      estimatedBytes(usage) > capDueBytes(usage, limits.maxBytes) ||
      totalOverCap(base, limits) ||
      (await isDetachDue(deps, store));
    // Due only for the snapshots gone loose: packing them is enough, the store's other packs stay.
    if (isFullDue || isPackDue(usage)) return collectLocked(deps, store, limits, onPhase, !isFullDue);
    return null;
  });
  if (outcome === null) return { ...empty, skipped: true };
  return { ...outcome, wholeStore: await trimOthers(deps, base, limits, store, onPhase) };
}

/**
 * Retention by count and age, gc, then the project's size cap; holding the store's lock. `incremental`:
 * the store's packs stay, what is loose is packed apart (see gcStore).
 */
async function collectLocked(
  deps: AppDeps,
  store: SnapshotStore,
  limits: StoreLimits,
  onPhase?: (phase: string) => void,
  incremental = false,
): Promise<Omit<GcOutcome, 'wholeStore'>> {
  onPhase?.('expiring old snapshots');
  // From the refs' names: retention needs ids and times, not 10,000 commits read.
  const snapshots = await store.snapshotIds();
  const expired = await expiredOf(store, snapshots, deps.now());
  await store.remove(expired.map((snapshot) => snapshot.id));
  const gone = new Set(expired.map((snapshot) => snapshot.id));
  // The ids just read, less those removed: a long history's refs are not read again for the newest.
  await store.setLatest(
    (
      await store.listNewest(
        1,
        snapshots.filter((snapshot) => !gone.has(snapshot.id)),
      )
    ).snapshots[0] ?? null,
  );
  onPhase?.('deleting unreferenced content and packing the store');
  const sizes = await store.gc({ incremental });
  writeUsage(store.storeDir, {
    measuredBytes: sizes.afterBytes,
    measuredAt: deps.now().toISOString(),
    addedBytes: 0,
    unpackedSnapshots: 0,
  });
  pruneTranscriptMemory(store.storeDir, deps.now());
  onPhase?.('checking the size cap');
  const capped = await trimProjectToCap(store, limits.maxBytes, sizes.afterBytes, deps.now());
  const removed = expired.length + capped.trimmed;
  return {
    removed,
    trimmed: capped.trimmed,
    kept: snapshots.length - removed - sizes.damaged.length,
    beforeBytes: sizes.beforeBytes,
    afterBytes: capped.afterBytes,
    damaged: sizes.damaged,
    copiedBytes: sizes.copiedBytes,
    maxBytes: Number.isFinite(limits.maxBytes) ? limits.maxBytes : null,
    isOverCap: capped.isOverCap,
  };
}

/** The whole-store cap, across every project's store. */
async function trimOthers(
  deps: AppDeps,
  base: string,
  limits: StoreLimits,
  store: SnapshotStore,
  onPhase?: (phase: string) => void,
): Promise<Array<{ root: string; trimmed: number }>> {
  if (!totalOverCap(base, limits)) return [];
  onPhase?.('checking the whole-store cap');
  return trimWholeStore(base, limits, store.settings, deps.now());
}

export interface GcAllOutcome {
  projects: Array<{ root: string; storeDir: string } & Omit<GcOutcome, 'wholeStore'>>;
  /** Stores of projects whose folder no longer exists: deleted, with what they used. */
  removedStores: Array<{ root: string; storeDir: string; bytes: number }>;
  /** Stores whose set-up never finished, so which folder they belong to is unknown: left alone. */
  unknownStores: string[];
  wholeStore: Array<{ root: string; trimmed: number }>;
  totalBeforeBytes: number;
  totalAfterBytes: number;
  /** The whole-store cap (`storeTotalMaxMb`) in bytes; `null` when off. */
  totalMaxBytes: number | null;
}

/**
 * `gc` for every project in the store: deletes the stores of projects whose folder no longer exists,
 * collects the others one by one, then applies the whole-store cap once.
 */
export async function gcAllProjects(deps: AppDeps, onPhase?: (phase: string) => void): Promise<GcAllOutcome> {
  const base = defaultStoreBase(deps.env);
  const userSettings = settingsOf(deps);
  const limits = storeLimits(userSettings);
  const settings = snapshotSettings(userSettings);
  const outcome: GcAllOutcome = {
    projects: [],
    removedStores: [],
    unknownStores: [],
    wholeStore: [],
    totalBeforeBytes: 0,
    totalAfterBytes: 0,
    totalMaxBytes: Number.isFinite(limits.totalMaxBytes) ? limits.totalMaxBytes : null,
  };
  const entries = listProjectStores(base);
  for (const [index, entry] of entries.entries()) {
    const step = `project ${index + 1}/${entries.length}`;
    if (entry.root === null) {
      outcome.unknownStores.push(entry.storeDir);
      continue;
    }
    const store = new SnapshotStore(entry.root, entry.storeDir, settings);
    if (!(await isFolder(entry.root))) {
      onPhase?.(`${step}: deleting the store of ${quotePath(entry.root)}, which no longer exists`);
      const bytes = await store.sizeBytes();
      await removeOrphanStore(entry.storeDir);
      outcome.removedStores.push({ root: entry.root, storeDir: entry.storeDir, bytes });
      outcome.totalBeforeBytes += bytes;
      continue;
    }
    if (!(await store.exists())) continue;
    const one = await store.withLock(() =>
      collectLocked(deps, store, limits, (phase) => onPhase?.(`${step}: ${phase}`)),
    );
    outcome.projects.push({ root: entry.root, storeDir: entry.storeDir, ...one });
    outcome.totalBeforeBytes += one.beforeBytes;
  }
  if (totalOverCap(base, limits)) {
    onPhase?.('checking the whole-store cap');
    outcome.wholeStore = await trimWholeStore(base, limits, settings, deps.now());
  }
  outcome.totalAfterBytes = (await wholeStoreUsage(base)).totalBytes;
  return outcome;
}

async function isFolder(dir: string): Promise<boolean> {
  return (await stat(dir).catch(() => null))?.isDirectory() === true;
}

/**
 * A path given to diff or restore, relative to the project (see toProjectPath): the name as written, then,
 * when it is in the quoted form every output shows a name in (`"tab\there.txt"`, `"caf\351.txt"`), the
 * name that form stands for. pickGivenPath chooses between the two.
 */
function snapshotPath(root: string, given: string, field: string, from: string | undefined): string[] {
  const unquoted = unquotePath(given);
  const names = unquoted === null || unquoted === given ? [given] : [given, unquoted];
  const paths: string[] = [];
  let problem: unknown;
  for (const name of names) {
    try {
      // Raw bytes given as lone surrogates (over MCP) that are valid UTF-8 together are that text's name.
      const text = hasRawBytes(name) ? textFromBytes(bytesFromText(name)) : name;
      paths.push(projectPathOf(root, text, field, from));
    } catch (error) {
      problem ??= error;
    }
  }
  if (paths.length === 0) throw problem;
  // git's own folder (the project's or a nested repository's) is never in a snapshot: "nothing to restore"
  // or "left out (git-ignored, …)" would misstate why.
  if (paths.every(isInGitFolder))
    throw new CheckpointError(
      'INVALID_INPUT',
      `${field} '${escapeControls(given)}' is in git's own folder (.git): snapshots never hold git's own folder, so there is nothing there to compare or restore`,
    );
  return paths;
}

/**
 * Which of a given path's readings (snapshotPath) it names: the name as written when a tree or the disk
 * has it (a file really named `"x"`), else the name its quoted form stands for.
 */
async function pickGivenPath(
  store: SnapshotStore,
  trees: readonly string[],
  readings: string[],
): Promise<string> {
  const [written, unquoted] = readings as [string, string?];
  if (unquoted === undefined) return written;
  for (const tree of trees) if (await store.treeHasPath(tree, written)) return written;
  return (await isOnDisk(store, written)) ? written : unquoted;
}

function isOnDisk(store: SnapshotStore, file: string): Promise<boolean> {
  return lstat(fsPath(path.join(store.root, file))).then(
    () => true,
    () => false,
  );
}

/**
 * What the "in neither … nor" error adds for a name with U+FFFD: a name that is not valid UTF-8 reaches the
 * CLI with U+FFFD in place of its bytes, and only its quoted form names it.
 */
function rawNameHint(file: string): string {
  return file.includes('\ufffd')
    ? ': a name that is not valid UTF-8 is given as `diff` and `diff --json` quote it (`"caf\\351.txt"`)'
    : '';
}
