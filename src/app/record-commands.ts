import { isCheckpointError } from '../core/errors.js';
import { journalId, serializeJournalRecord } from '../core/journal.js';
import { appendCommands, type CommandOutcome, PLACEHOLDER_GOAL, recordedCommands } from '../core/merge.js';
import { CheckpointStore } from '../store/checkpoint-store.js';
import { uniqueSuffix } from '../store/temp-name.js';
import type { AppDeps } from './deps.js';
import { loadRedactionConfig } from './redaction.js';
import { resolveProjectRoot } from './root.js';

export type CommandRecord = CommandOutcome;

export interface RecordedCommands {
  created: boolean;
  redactions: number;
  /** In the command journal, not yet in the file: the lock was busy (loads show them all the same). */
  pending: boolean;
  /** For a hook's own write of its server's record (`isRetry`): false when the server's was there already. */
  isWritten?: boolean;
}

/** A hook on its own merges the journal itself once this many records wait (see recordTelling). */
export const ALONE_JOURNAL_BATCH = 100;

/** How long to wait for the lock, at most, where the journal cannot help (it is full, or there is no checkpoint yet). */
const DEFAULT_LOCK_WAIT_MS = 2_000;

/**
 * Adds commands to the checkpoint, for hooks that see every shell command. An existing checkpoint is
 * only appended to (cheap: no git); without one, a checkpoint is started with the git facts and a
 * placeholder goal, so the facts exist even when the agent never saved. To an existing one, the commands
 * go through the command journal: the lock's next holder merges them (a hook never waits for the lock;
 * issue 26). A caller told when the commands are on disk (`onRecorded`) has them merged right after; a
 * hook on its own leaves them for the end of the turn or the next save (`pending`).
 */
export async function recordCommands(
  deps: AppDeps,
  request: { projectRoot?: string | undefined; commands: readonly CommandRecord[] },
  options: {
    lockWaitMs?: number | undefined;
    /**
     * Told once, as soon as the commands are written whole and in place, in the journal (before its
     * sync: see addJournalRecord) or, where it cannot take them, in the checkpoint, and before they are
     * merged into the checkpoint: the relay answers the hook there.
     */
    onRecorded?: (() => void) | undefined;
    /**
     * The record's id, named by the hook that handed its command to a server (relay-protocol.ts): a hook
     * whose server died before answering writes the record again under it (`isRetry`), and the journal
     * takes an id once (core/journal.ts).
     */
    recordId?: string | undefined;
    /** The hook's own write of a record its server may have written: only to the journal, under `recordId`. */
    isRetry?: boolean | undefined;
  } = {},
): Promise<RecordedCommands> {
  // Told once, wherever the commands land first; the caller's own failure is thrown once they are on
  // disk, never taken for the journal's (which would have them appended twice).
  let isTold = false;
  let toldFailure: { error: unknown } | undefined;
  const tell = () => {
    if (isTold) return;
    isTold = true;
    try {
      options.onRecorded?.();
    } catch (error) {
      toldFailure = { error };
    }
  };
  const recorded = await recordTelling(deps, request, { ...options, onRecorded: options.onRecorded && tell });
  if (toldFailure) throw toldFailure.error;
  return recorded;
}

async function recordTelling(
  deps: AppDeps,
  request: { projectRoot?: string | undefined; commands: readonly CommandRecord[] },
  options: Parameters<typeof recordCommands>[2] & {},
): Promise<RecordedCommands> {
  const { root } = await resolveProjectRoot({
    argument: request.projectRoot,
    env: deps.env,
    cwd: deps.cwd,
    surface: deps.surface,
    argumentLabel: deps.rootArgument,
  });
  const store = new CheckpointStore(root, deps.fs);
  const lockWaitMs = options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
  const redaction = await loadRedactionConfig(deps.fs, deps.env, root);
  // A hook says what is wrong with a redaction file (a save lists it in its warnings).
  for (const problem of redaction.problems) deps.settingsProblem?.(problem);
  const append = async (): Promise<RecordedCommands | null> => {
    const loaded = await store.load();
    if (!loaded.found) return null;
    const result = appendCommands(
      loaded.checkpoint,
      request.commands,
      deps.now(),
      redaction.config,
      options.recordId,
    );
    // The same tool call again (hooks wired in two scopes; issue 26): listed already, nothing to write.
    if (result.isRepeat && !options.recordId) {
      options.onRecorded?.();
      return { created: false, pending: false, redactions: 0 };
    }
    await store.writeLocked(result.serialized, result.checkpoint, options.onRecorded);
    return { created: false, pending: false, redactions: result.redactions };
  };
  // The commands go to the journal first: one small synced file, where writing the checkpoint grows with
  // it (a 64 KB checkpoint of 1,000 dirty files cost the hook 3.5 ms more; issue 26).
  // Security: redacted before anything touches the disk, as in the checkpoint.
  const recorded = recordedCommands(request.commands, deps.now(), redaction.config);
  const id = options.recordId ?? journalId(deps.now(), uniqueSuffix());
  if (!options.onRecorded && !options.isRetry && (await store.mayExist())) {
    // A hook on its own leaves the merge to the lock's next holder (the end of the turn, a save), as for
    // a busy lock; every read shows the record meanwhile. Past a batch, it merges them itself: a merge
    // remembers every id it took (meta.journaled), and a batch of 500 would fill the file with them.
    if (store.waitingInJournal() < ALONE_JOURNAL_BATCH) {
      try {
        store.addToJournal(id, serializeJournalRecord(recorded));
        return { created: false, pending: true, redactions: recorded.redactions };
      } catch {
        // The journal refuses it (not a folder of ours): into the file, below.
      }
    }
    const appended = await store.withLock(append, { waitMs: 0 }).catch(nullWhenLocked);
    if (appended) return appended;
  }
  if (options.isRetry && options.recordId) {
    // Only the journal knows whether the server wrote it already: a record of the server's under the
    // same id stays as it is (the server's never expires; this copy may). Where the journal cannot take
    // it, the caller says the command may be unrecorded.
    const isWritten = store.addToJournal(id, serializeJournalRecord({ ...recorded, mayRepeat: true }), true);
    // The record is on disk: a merge that fails leaves it waiting, not lost.
    const merged = await mergeOrStart(deps, store, root, lockWaitMs).catch(() => ({
      created: false,
      pending: true,
    }));
    return { ...merged, redactions: recorded.redactions, isWritten };
  }
  try {
    store.addToJournal(id, serializeJournalRecord(recorded), false, options.onRecorded);
  } catch {
    // The journal cannot take them (full, or not a folder of ours): wait for the lock, as before it existed.
    const appended = (await store.mayExist()) ? await store.withLock(append, { waitMs: lockWaitMs }) : null;
    // A named record joins meta.journaled in the same save (its hook may write it again).
    if (appended) return appended;
    const started = await startCheckpoint(deps, root, recorded, lockWaitMs, options.recordId);
    options.onRecorded?.();
    return started;
  }
  return { ...(await mergeOrStart(deps, store, root, lockWaitMs)), redactions: recorded.redactions };
}

/** Merges the journal into the checkpoint, or, for the project's first command, starts the checkpoint. */
async function mergeOrStart(
  deps: AppDeps,
  store: CheckpointStore,
  root: string,
  lockWaitMs: number,
): Promise<Omit<RecordedCommands, 'redactions'>> {
  if (await store.mayExist()) return { created: false, pending: !(await store.mergeJournalNow()) };
  // The save that starts the checkpoint merges the journal as it lets go.
  try {
    await startCheckpoint(deps, root, { commands: [], redactions: 0 }, lockWaitMs);
    return { created: true, pending: false };
  } catch (error) {
    if (!isCheckpointError(error, 'LOCKED')) throw error;
    return { created: false, pending: true };
  }
}

/** Only a first command in a project pays for loading the full save (git, hashing, merge). */
async function startCheckpoint(
  deps: AppDeps,
  root: string,
  recorded: ReturnType<typeof recordedCommands>,
  lockWaitMs: number,
  recordId?: string,
): Promise<RecordedCommands> {
  const { saveCheckpoint } = await import('./save.js');
  // Already redacted, then clipped, as every recorded command is: the save's own redaction finds nothing
  // more, so their count is in the result, not in the file's meta.redactions (a rare path: the journal failed).
  // Security: never clipped raw first, which could keep the start of a secret cut at the limit.
  const saved = await saveCheckpoint(
    deps,
    {
      goal: PLACEHOLDER_GOAL,
      mode: 'merge',
      projectRoot: root,
      recentCommands: recorded.commands.map(({ command, exitCode, note }) => ({
        command,
        ...(exitCode !== undefined ? { exitCode } : {}),
        ...(note !== undefined ? { note } : {}),
      })),
    },
    {},
    { lockWaitMs, ...(recordId !== undefined ? { journaled: [recordId] } : {}) },
  );
  return { created: true, pending: false, redactions: recorded.redactions + saved.counts.redactions };
}

function nullWhenLocked(error: unknown): null {
  if (isCheckpointError(error, 'LOCKED')) return null;
  throw error;
}
