import { CheckpointError } from '../core/errors.js';
import { type LeftOut, leftOutOf } from '../core/left-out.js';
import { creditStretches } from '../core/rewind-credit.js';
import {
  countChangesAlongChain,
  currentSessionId,
  promptSnapshots,
  type RewindEntry,
  resolveRef,
  resolveSessionId,
} from '../core/rewind-refs.js';
import { noPromptsHint } from '../core/rewind-text.js';
import { type RestorePlan, type SnapshotRecord, sameStamp } from '../core/snapshot.js';
import { type HeadMove, headMoveSince } from '../core/snapshot-text.js';
import { cliCommand, wordsFor } from '../core/surface.js';
import { readHeadFast } from '../git/repo.js';
import type { CaptureResult, HeldFile, SnapshotStore } from '../store/snapshot-store.js';
import { type ConversationOutcome, forkConversation, resumeCommand } from './conversation-fork.js';
import type { AppDeps } from './deps.js';
import { openStore, type RestoreTarget, restoreTargetOf, restoreTreeLocked } from './rewind.js';
import type { RootContext } from './save.js';

/**
 * Rewind as the checkpointing spec describes it: the prompts of a session, newest first, each one a point
 * to go back to with its code, its conversation, or both. Built on the snapshot store's restore.
 */

/** Environment variables in which an agent names its session to the commands it runs. */
export const SESSION_ENV = ['CLAUDE_CODE_SESSION_ID', 'CLAUDE_SESSION_ID'] as const;

export type RewindMode = 'code' | 'conversation' | 'both';

type PromptSnapshot = SnapshotRecord & { sessionId: string };

export interface SessionGroup {
  sessionId: string;
  agent: string | null;
  /** How to continue the session itself (the spec's `/resume <session-id>` entry after a /clear). */
  resume: string | null;
  entries: RewindEntry[];
}

export interface RewindListing {
  /** The session whose prompts `latest` counts; null when the project has no prompts yet. */
  sessionId: string | null;
  /** Where that came from: the agent named it (`--session` or its environment), or it prompted last. */
  sessionSource: 'named' | 'newest' | null;
  /** The current session's prompts, newest first. */
  entries: RewindEntry[];
  /** With `all`: every session of the project, the one prompted last first. */
  sessions?: SessionGroup[];
}

/** The session an agent names, from an explicit value or the environment it runs us in. */
export function namedSession(given: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (given?.trim()) return given.trim();
  for (const name of SESSION_ENV) if (env[name]?.trim()) return env[name]?.trim();
  return undefined;
}

/**
 * The session named by `--session` (its id or a unique prefix, as lists show it: new-user trial
 * 2026-12-06), else by the environment (the agent's own full id, which may have no prompts yet).
 */
function sessionNamed(
  snapshots: readonly SnapshotRecord[],
  given: string | undefined,
  env: NodeJS.ProcessEnv,
  root: string | undefined,
): string | undefined {
  if (!given?.trim()) return namedSession(undefined, env);
  const hint = `\`${cliCommand('rewind', { root, args: ['--list', '--all'] })}\` shows the sessions`;
  return resolveSessionId(snapshots, given.trim(), '--session', hint);
}

function toEntry(snapshot: PromptSnapshot, changes: RewindEntry['changes']): RewindEntry {
  return {
    id: snapshot.id,
    prompt: snapshot.label ?? '',
    sessionId: snapshot.sessionId,
    agent: snapshot.agent ?? null,
    createdAt: snapshot.createdAt,
    changes,
  };
}

/**
 * What changed after each prompt: its tree against the working tree now. Counted along the chain of the
 * prompts' trees, newest first (see countChangesAlongChain), from one git process for the whole list.
 */
async function changesAfter(
  store: SnapshotStore,
  prompts: readonly PromptSnapshot[],
  capturing: Promise<Pick<CaptureResult, 'tree' | 'skipped'>>,
): Promise<RewindEntry[]> {
  if (prompts.length === 0) return [];
  const captured = await capturing;
  const current = captured.tree;
  const chain = (shown: readonly PromptSnapshot[]) =>
    shown.map(
      (prompt, index) =>
        [prompt.tree, index === 0 ? current : (shown[index - 1] as PromptSnapshot).tree] as const,
    );
  let shown = prompts;
  let changes: Awaited<ReturnType<SnapshotStore['changesBetweenPairs']>>;
  try {
    changes = await store.changesBetweenPairs(chain(shown));
  } catch (error) {
    // A prompt whose content the user pruned from the project's repository before the store copied it
    // in cannot be compared, nor rewound to (see SnapshotStore.checkRestorable): left out of the list.
    const whole = await Promise.all(prompts.map((prompt) => store.isWhole(prompt)));
    if (whole.every(Boolean)) throw error;
    shown = prompts.filter((_, index) => whole[index]);
    changes = await store.changesBetweenPairs(chain(shown));
  }
  // A file the capture leaves out over the cap is on disk: a prompt that holds it counts it modified.
  const leftOutNow = new Set(captured.skipped.large.map((file) => file.path));
  // Every link's target: a prompt's tree is compared with now across many steps, a link to itself two
  // steps back included (review of 2026-12-07: `rewind --list` and `diff` disagreed on one).
  const selfLinks = await store.linksToThemselves(changes.flat(), true);
  const counts = countChangesAlongChain(changes, selfLinks, leftOutNow);
  return shown.map((prompt, index) => toEntry(prompt, counts[index] as RewindEntry['changes']));
}

/** The prompts a rewind can go back to: the current session's (`all`: every session's), newest first. */
export async function listRewind(
  deps: AppDeps,
  request: { projectRoot?: string | undefined; sessionId?: string | undefined; all?: boolean },
  context: RootContext = {},
): Promise<RewindListing> {
  const { store } = await openStore(deps, request.projectRoot, context);
  if (!(await store.exists())) return { sessionId: null, sessionSource: null, entries: [] };
  return store.withLock(async () => {
    await store.init();
    // The working tree is read while git lists the snapshots: two processes at once, on separate files.
    const capturing = store.captureSinceLatest();
    capturing.catch(() => undefined); // awaited in changesAfter, or not needed when there is no prompt
    const snapshots = await store.list();
    const named = sessionNamed(snapshots, request.sessionId, deps.env, deps.commandRoot);
    const sessionId = currentSessionId(snapshots, named);
    const prompts = promptSnapshots(snapshots, request.all ? undefined : (sessionId ?? ''));
    const entries = await changesAfter(
      store,
      await withTheirHeldFiles(store, snapshots, prompts, capturing),
      capturing,
    );
    const listing: RewindListing = {
      sessionId,
      sessionSource: sessionId === null ? null : named ? 'named' : 'newest',
      entries: entries.filter((entry) => entry.sessionId === sessionId),
    };
    if (request.all) listing.sessions = groupSessions(entries);
    return listing;
  });
}

/**
 * The prompts with the files their rewind would write from a pre-command snapshot of their turn (see
 * heldByTheTurn): those not on disk as held (a file the same as on disk is one the rewind leaves be, as
 * the working tree's capture leaves it out). The counts then say what a rewind would undo, the deletion
 * of such a file included, so the picker offers to restore it.
 */
async function withTheirHeldFiles(
  store: SnapshotStore,
  snapshots: readonly SnapshotRecord[],
  prompts: readonly PromptSnapshot[],
  capturing: Promise<CaptureResult>,
): Promise<PromptSnapshot[]> {
  const brought = new Map<string, HeldFile[]>();
  for (const prompt of prompts) {
    const held = await heldByTheTurn(store, snapshots, prompt, leftOutOf(prompt.skipped));
    if (held.brought.length > 0)
      brought.set(
        prompt.id,
        held.brought.map((entry) => entry.file),
      );
  }
  if (brought.size === 0) return [...prompts];
  // Each version held, hashed against the disk once (rounds: one version of each path at a time).
  const versions = new Map<string, HeldFile[]>();
  for (const file of [...brought.values()].flat()) {
    const known = versions.get(file.path) ?? [];
    if (!known.some((each) => each.oid === file.oid)) versions.set(file.path, [...known, file]);
  }
  const { tree } = await capturing;
  const onDisk = new Set<string>();
  for (let round = 0; ; round++) {
    const files = [...versions.values()].flatMap((each) => each[round] ?? []);
    if (files.length === 0) break;
    const unchanged = await store.heldUnchangedOnDisk(
      await store.treeWithHeld(tree, files),
      files.map((file) => file.path),
    );
    for (const file of unchanged) onDisk.add(`${file.path}\0${file.oid}`);
  }
  const withHeld: PromptSnapshot[] = [];
  for (const prompt of prompts) {
    const files = (brought.get(prompt.id) ?? []).filter((file) => !onDisk.has(`${file.path}\0${file.oid}`));
    withHeld.push(
      files.length === 0 ? prompt : { ...prompt, tree: await store.treeWithHeld(prompt.tree, files) },
    );
  }
  return withHeld;
}

function groupSessions(entries: readonly RewindEntry[]): SessionGroup[] {
  const groups = new Map<string, SessionGroup>();
  for (const entry of entries) {
    let group = groups.get(entry.sessionId);
    if (!group) {
      group = {
        sessionId: entry.sessionId,
        agent: entry.agent,
        resume: resumeCommand(entry.agent, entry.sessionId),
        entries: [],
      };
      groups.set(entry.sessionId, group);
    }
    group.entries.push(entry);
  }
  return [...groups.values()];
}

/** A file a code restore would change that was changed after the prompt by someone other than its session. */
export interface RewindConflict {
  path: string;
  /** Who changed it: `session <id> (<agent>)`, or `outside any agent session`. */
  changedBy: string[];
}

export interface RewindRequest {
  projectRoot?: string | undefined;
  ref: string;
  mode: RewindMode;
  /** The current session (else the environment's, else the newest): what `latest` counts in. */
  sessionId?: string | undefined;
  dryRun: boolean;
  onProgress?: ((done: number, total: number) => void) | undefined;
}

export interface RewindOutcome {
  entry: RewindEntry;
  mode: RewindMode;
  dryRun: boolean;
  /** The code's part, when the mode restores code. */
  code: {
    plan: RestorePlan;
    conflicts: RewindConflict[];
    undoSnapshotId: string | null;
    interrupted: { target: string; undo: string } | null;
    /** HEAD or the branch moved since the prompt: a code restore writes files only, and says so. */
    headMoved: HeadMove | null;
    /** What the prompt's snapshot left out although it was there (over the size cap): not brought back. */
    notHeld?: LeftOut[];
    /**
     * Of those, the ones a pre-command snapshot of the prompt's turn holds but not as the same file (its
     * size, modification time or inode differs from what the prompt's snapshot recorded, or that snapshot
     * recorded no stamp): restore them from it, if that is wanted.
     */
    heldBy?: HeldBy[];
    /**
     * Files over the size cap that the prompt's snapshot left out and a pre-command snapshot of its turn
     * holds as they were: the rewind brings them back from it, with the rest of the tree.
     */
    fromPreCommand?: HeldBy[];
  } | null;
  /** The conversation's part, when the mode restores the conversation. */
  conversation: ConversationOutcome | null;
}

/** Where to see the prompts; `root`: the CLI's `--root`, carried over (see core/surface.ts). */
const listHint = (root: string | undefined, all: boolean) =>
  `see them with \`${cliCommand('rewind', { root, args: all ? ['--list', '--all'] : ['--list'] })}\``;

/**
 * Finds a prompt among every session's prompts (newest first): `latest` and `latest~N` count the prompts
 * of the current session; an id or unique id prefix may name a prompt of any session of the project.
 */
export function findPrompt<T extends { id: string; sessionId: string }>(
  prompts: readonly T[],
  ref: string,
  sessionId: string | null,
  root?: string,
): T {
  const given = ref.trim();
  if (given === 'latest' || given.startsWith('latest~')) {
    if (sessionId === null)
      throw new CheckpointError(
        'INVALID_INPUT',
        `there are no prompts in this project yet: ${noPromptsHint(root)}`,
      );
    const own = prompts.filter((prompt) => prompt.sessionId === sessionId);
    if (own.length === 0)
      throw new CheckpointError(
        'INVALID_INPUT',
        `session ${sessionId} has no prompts here: ${listHint(root, true)}`,
      );
    return resolveRef(own, given, 'prompt', listHint(root, false));
  }
  return resolveRef(prompts, given, 'prompt', listHint(root, true));
}

/**
 * Who else changed the files a restore would change, after the prompt: each stretch between two
 * snapshots is credited to the sessions whose turn ran in it (see creditStretches). A stretch of the
 * chosen prompt's own session alone is what the restore is meant to undo; one of another session is
 * that session's; one while no turn ran (after a turn's end, before the next prompt) was made outside
 * any agent session.
 */
async function findConflicts(
  store: SnapshotStore,
  snapshots: readonly SnapshotRecord[],
  chosen: PromptSnapshot,
  currentTree: string,
  planned: ReadonlySet<string>,
): Promise<RewindConflict[]> {
  if (planned.size === 0) return [];
  const oldestFirst = [...snapshots].reverse();
  const credits = creditStretches(oldestFirst);
  const from = oldestFirst.findIndex((snapshot) => snapshot.id === chosen.id);
  const agents = new Map<string, string>();
  for (const snapshot of snapshots)
    if (snapshot.sessionId && snapshot.agent && !agents.has(snapshot.sessionId))
      agents.set(snapshot.sessionId, snapshot.agent);
  // Every stretch since the prompt, from one git process: one per snapshot took seconds on a long
  // history (730 stretches after a week of daily use).
  const stretches: Array<{ from: string; to: string; who: string[] }> = [];
  oldestFirst.slice(from).forEach((start, offset) => {
    const credited = credits[from + offset] ?? [];
    const others = credited.filter((session) => session !== chosen.sessionId);
    if (credited.length > 0 && others.length === 0) return;
    const end = oldestFirst[from + offset + 1]?.tree ?? currentTree;
    if (end === start.tree) return;
    const who =
      others.length === 0
        ? ['outside any agent session']
        : others.map(
            (session) => `session ${session}${agents.has(session) ? ` (${agents.get(session)})` : ''}`,
          );
    stretches.push({ from: start.tree, to: end, who });
  });
  const changed = await store.changesBetweenPairs(
    stretches.map((stretch) => [stretch.from, stretch.to] as const),
  );
  const found = new Map<string, Set<string>>();
  stretches.forEach((stretch, index) => {
    for (const change of changed[index] ?? []) {
      if (!planned.has(change.path)) continue;
      const by = found.get(change.path) ?? new Set<string>();
      for (const name of stretch.who) by.add(name);
      found.set(change.path, by);
    }
  });
  return [...found]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, by]) => ({ path, changedBy: [...by].sort() }));
}

/** A file the prompt's snapshot left out, and the pre-command snapshot of its turn that holds it. */
export interface HeldBy {
  path: string;
  snapshotId: string;
}

/** What the pre-command snapshots of a prompt's turn hold of the files its snapshot left out. */
interface HeldByTheTurn {
  /** Held as the same file the prompt's snapshot recorded (size and stamp): the rewind brings them back. */
  brought: Array<HeldBy & { file: HeldFile }>;
  /** Held otherwise (changed during the turn, or cannot tell): named, with the restore that gives that version. */
  named: HeldBy[];
}

/**
 * The files over the size cap that the prompt's snapshot left out and that a pre-command snapshot of the
 * same turn holds (the hook held what `rm big.bin` named; review A), from the earliest such snapshot of
 * the turn, the closest to the prompt. One held with the size, modification time (ns) and inode the
 * prompt's snapshot recorded is the file as it was at the prompt: the rewind brings it back. Any other
 * (changed after the prompt, or a snapshot from before stamps were recorded: cannot tell) is named, with
 * the snapshot and the restore that gives that version.
 */
async function heldByTheTurn(
  store: SnapshotStore,
  snapshots: readonly SnapshotRecord[],
  chosen: PromptSnapshot,
  notHeld: readonly LeftOut[],
): Promise<HeldByTheTurn> {
  // What the prompt's capture read of each: its size and, since stamps are recorded, its stamp.
  const atPrompt = new Map((chosen.skipped?.large ?? []).map((entry) => [entry.path, entry]));
  const large = new Map(
    notHeld.filter((entry) => entry.why === 'large').map((entry) => [entry.path, atPrompt.get(entry.path)]),
  );
  const held: HeldByTheTurn = { brought: [], named: [] };
  if (large.size === 0) return held;
  const oldestFirst = [...snapshots].reverse();
  for (const snapshot of oldestFirst.slice(oldestFirst.findIndex((each) => each.id === chosen.id) + 1)) {
    if (large.size === 0) break;
    if (snapshot.sessionId !== chosen.sessionId) continue;
    if (snapshot.trigger === 'prompt') break;
    if (snapshot.trigger !== 'pre-command') continue;
    // One that lists a file as left out did not hold it: asked only about the others (no git call for
    // a file that stays over the cap all along, as a dataset does, in every prompt the list shows).
    const leftOutToo = new Set((snapshot.skipped?.large ?? []).map((file) => file.path));
    const asked = [...large.keys()].filter((file) => !leftOutToo.has(file));
    if (asked.length === 0) continue;
    const stamps = new Map((snapshot.held ?? []).map((entry) => [entry.path, entry]));
    for (const file of await store.heldFilesIn(snapshot.tree, asked)) {
      const entry = { path: file.path, snapshotId: snapshot.id };
      const before = large.get(file.path);
      const whenHeld = stamps.get(file.path);
      // The same file only when size, modification time and inode all match (a command that rewrote it
      // with other bytes of the same size changed the time); a snapshot without stamps cannot tell.
      const isSame =
        before?.bytes === file.bytes && whenHeld?.bytes === file.bytes && sameStamp(before, whenHeld);
      if (isSame) held.brought.push({ ...entry, file });
      else held.named.push(entry);
      large.delete(file.path);
    }
  }
  return held;
}

/**
 * The prompt's snapshot as a rewind's target: its tree, with the files a pre-command snapshot of its turn
 * holds for it (see heldByTheTurn), which are then no longer what the target left out.
 */
async function rewindTargetOf(
  store: SnapshotStore,
  target: RestoreTarget,
  brought: HeldByTheTurn['brought'],
): Promise<RestoreTarget> {
  if (brought.length === 0) return target;
  const paths = new Set(brought.map((entry) => entry.path));
  return {
    ...target,
    tree: await store.treeWithHeld(
      target.tree,
      brought.map((entry) => entry.file),
    ),
    skipped: target.skipped && {
      ...target.skipped,
      large: target.skipped.large.filter((entry) => !paths.has(entry.path)),
    },
  };
}

/**
 * Goes back to a prompt: its code (the working tree as it was just before the prompt; the state now is
 * snapshotted first, so this can be undone), its conversation (a new session holding what came before
 * the prompt; the original is never written), or both. A dry run plans and changes nothing.
 */
export async function rewindTo(
  deps: AppDeps,
  request: RewindRequest,
  context: RootContext = {},
): Promise<RewindOutcome> {
  const { store } = await openStore(deps, request.projectRoot, context);
  if (!(await store.exists()))
    throw new CheckpointError(
      'INVALID_INPUT',
      `there are no prompts in this project yet: ${noPromptsHint(deps.commandRoot)}`,
    );
  return store.withLock(async () => {
    await store.init();
    const snapshots = await store.list();
    const sessionId = currentSessionId(
      snapshots,
      sessionNamed(snapshots, request.sessionId, deps.env, deps.commandRoot),
    );
    const chosen = findPrompt(promptSnapshots(snapshots), request.ref, sessionId, deps.commandRoot);
    // A prompt whose content the user pruned says so first, in every mode: what changed after it cannot
    // be counted (changesAfter leaves it out), nor its code restored (see restoreTargetOf).
    const words = wordsFor(deps.surface, deps.commandRoot);
    const prompted = request.mode === 'conversation' ? null : await restoreTargetOf(store, chosen, words);
    if (!prompted) await store.checkRestorable(chosen, words);
    const notHeld = leftOutOf(chosen.skipped);
    const held = prompted
      ? await heldByTheTurn(store, snapshots, chosen, notHeld)
      : { brought: [], named: [] };
    const target = prompted && (await rewindTargetOf(store, prompted, held.brought));
    // One capture of the tree now serves the entry, the plan and the conflicts (the restore itself
    // captures again, for its safety snapshot): each capture is a scan, and re-reads a large file. With
    // the files over the cap that the target holds and that are unchanged on disk, so they compare equal.
    const capturing = target ? store.captureComparedWith(target.tree) : store.captureSinceLatest();
    // What changed after the prompt, counted against what the rewind brings back (held files included).
    const [entry] = await changesAfter(
      store,
      [target ? { ...chosen, tree: target.tree } : chosen],
      capturing,
    );
    const outcome: RewindOutcome = {
      entry: entry as RewindEntry,
      mode: request.mode,
      dryRun: request.dryRun,
      code: null,
      conversation: null,
    };
    if (target) {
      const current = (await capturing).tree;
      const planned = await restoreTreeLocked(deps, store, target, {
        paths: [],
        dryRun: true,
        currentTree: current,
      });
      const paths = new Set([...planned.plan.overwrite, ...planned.plan.create, ...planned.plan.delete]);
      const conflicts = await findConflicts(store, snapshots, chosen, current, paths);
      const done = request.dryRun
        ? planned
        : await restoreTreeLocked(deps, store, target, {
            paths: [],
            dryRun: false,
            sessionId: chosen.sessionId,
            onProgress: request.onProgress,
            // Nothing to restore: no safety snapshot for nothing, as restore and pull (newcomer trial).
            unlessEmpty: true,
          });
      const headMoved = headMoveSince(chosen.git, await readHeadFast(store.root));
      const brought = new Set(held.brought.map((entry) => entry.path));
      const stillNotHeld = notHeld.filter((entry) => !brought.has(entry.path));
      // Those the plan writes: one unchanged on disk is left be, one the plan refuses is named there.
      const written = new Set([...done.plan.overwrite, ...done.plan.create]);
      const fromPreCommand = held.brought
        .filter((entry) => written.has(entry.path))
        .map(({ path, snapshotId }) => ({ path, snapshotId }));
      outcome.code = {
        ...done,
        conflicts,
        headMoved,
        ...(stillNotHeld.length > 0 ? { notHeld: stillNotHeld } : {}),
        ...(held.named.length > 0 ? { heldBy: held.named } : {}),
        ...(fromPreCommand.length > 0 ? { fromPreCommand } : {}),
      };
    }
    if (request.mode !== 'code')
      outcome.conversation = await forkConversation(deps, store.root, chosen, request.dryRun);
    return outcome;
  });
}
