import { isCallId, withoutRepeatedCalls } from './call-ids.js';
import { appendRecorded, type DroppedToFit, fitToSize, keepNewest } from './fit.js';
import { carryHandoff } from './handoff-checkpoint.js';
import type { SaveInput } from './input.js';
import { JOURNAL_MEMORY_IDS } from './journal-id.js';
import { LIMITS } from './limits.js';
import { withinTextLimits } from './over-limits.js';
import { isInGitFolder, isOwnFile } from './paths.js';
import { clipRedacted, REDACTED, Redactor } from './redact.js';
import {
  type AgentSavedAt,
  CHECKPOINT_VERSION,
  type Checkpoint,
  type DerivedFields,
  type FileStatus,
  type FlaggedFiles,
  type GitInfo,
  type ModifiedFile,
  type NewerInTranscript,
  type RecentCommand,
  type Task,
} from './schema.js';
import type { DetectorConfig } from './secrets/detect.js';
import { redactUnknownFields, withUnknownFieldsOf } from './unknown-fields.js';

export {
  addDropped,
  appendRecorded,
  type DroppedToFit,
  describeDropped,
  type FittedCheckpoint,
  fitToSize,
  type GivenInSave,
  keepNewest,
  NOTHING_DROPPED,
} from './fit.js';

/** A file git reports as uncommitted or untracked, with its path relative to the project root. */
export interface DetectedFile {
  path: string;
  status: FileStatus;
}

export interface BuildCheckpointParams {
  /** Validated input whose `modifiedFiles` paths are already relative to the project root. */
  input: SaveInput;
  /** The checkpoint on disk, if any; used only in merge mode. */
  previous: Checkpoint | null;
  /**
   * The checkpoint on disk whatever the mode (in merge mode, `previous`): the fields it holds that this
   * version does not write are kept (see withUnknownFieldsOf).
   */
  onDisk?: Checkpoint | null | undefined;
  git: GitInfo | null;
  detectedFiles: readonly DetectedFile[];
  /** Blob oid of the working-tree content of every path involved; `null` when there is no regular file. */
  oids: ReadonlyMap<string, string | null>;
  now: Date;
  newId: () => string;
  generator: { name: string; version: string };
  projectName: string;
  /** Files an automatic refresh keeps flagged; an agent's own save passes none and so clears them. */
  flagged?: FlaggedFiles | undefined;
  /** The person's extra patterns and exemptions, on top of the built-in rules. */
  redaction?: DetectorConfig | undefined;
  /** A refresh by a hook rather than the agent's own save: the marks of derived fields stay. */
  isAutomatic?: boolean | undefined;
  /** Journal ids of records this save holds (a relayed hook's, the journal unable to take it): never merged again. */
  journaled?: readonly string[] | undefined;
}

export interface BuildCheckpointResult {
  checkpoint: Checkpoint;
  /** Values redacted from this save's input. */
  redactions: number;
  bytes: number;
  serialized: string;
  /** What the 64 KB cap dropped. */
  dropped: DroppedToFit;
  /** Whether a list limit (tasks, decisions, the last 50 commands) dropped older entries. */
  isListCut: boolean;
}

/** Paths whose oid a save needs: what git detected, what the agent named, and in merge mode what was recorded. */
export function pathsToHash(
  input: SaveInput,
  previous: Checkpoint | null,
  detectedFiles: readonly DetectedFile[],
): string[] {
  const paths = new Set<string>();
  for (const file of input.modifiedFiles ?? []) paths.add(file.path);
  for (const file of detectedFiles) paths.add(file.path);
  if (input.mode === 'merge' && previous)
    // A path listed redacted names no file (see mergeFiles): nothing to hash.
    for (const file of previous.modifiedFiles) if (!file.path.includes(REDACTED)) paths.add(file.path);
  return [...paths];
}

/**
 * Turns a save request into the checkpoint to write, following the replace/merge table of the
 * original tool field by field, then redacts, applies list limits and fits the 64 KB cap.
 */
export function buildCheckpoint(params: BuildCheckpointParams): BuildCheckpointResult {
  const { input, now, oids } = params;
  // A hand edit may have put a field over its limit: a merge carries it over cut to the limit (the load
  // that read it said so), so the file stays within its limits and its cap.
  const previous = input.mode === 'merge' && params.previous ? withinTextLimits(params.previous) : null;
  const redactor = new Redactor(params.redaction);
  const at = now.toISOString();
  let truncated = false;

  // Redacted, then clipped (as commands are): «redacted» may be longer than what it replaces, and a save
  // never stores a field over its limit (see clipRedacted).
  const redacted = <T extends string | undefined>(value: T, limit: number): T =>
    (value === undefined ? value : clipRedacted(redactor.text(value), limit)) as T;
  const goal = redacted(input.goal.trim(), LIMITS.goalChars);
  // A task given twice is one task, told by the text as given: two that differ only in a secret stay two.
  const givenTasks = oneEntryPerTask(
    (input.tasks ?? []).map((task) => ({ description: task.description.trim(), status: task.status })),
  );
  const newTasks: Task[] = givenTasks.map((task) => ({
    description: redacted(task.description, LIMITS.taskDescriptionChars),
    status: task.status,
  }));
  const summary = redacted(input.summary, LIMITS.summaryChars);
  const nextSteps = input.nextSteps?.map((step) => redacted(step, LIMITS.nextStepChars));
  const newDecisions = (input.decisions ?? []).map((decision) =>
    redacted(decision.trim(), LIMITS.decisionChars),
  );
  const newCommands: RecentCommand[] = (input.recentCommands ?? []).map((command) =>
    withoutUndefined({
      command: redacted(command.command, LIMITS.commandChars),
      exitCode: command.exitCode,
      note: redacted(command.note, LIMITS.commandNoteChars),
      at,
    }),
  );
  const providedNotes = new Map<string, string | undefined>();
  for (const file of input.modifiedFiles ?? []) {
    const note = redacted(file.note, LIMITS.noteChars);
    // A later entry for the same path wins, but never erases a note with nothing.
    providedNotes.set(file.path, note ?? providedNotes.get(file.path));
  }

  const derived = carryDerived(previous?.meta.derived, input, params.isAutomatic === true);
  const newerInTranscript = carryNewer(previous?.meta.newerInTranscript, input, params.isAutomatic === true);
  const agentSavedAt = stampAgentSave(previous?.meta.agentSavedAt, input, params.isAutomatic === true, at);
  const handoff = carryHandoff(previous?.meta.handoff, input, params.isAutomatic === true);
  // The agent's own tasks replace a list taken from the transcript rather than merge into it.
  const tasksBefore =
    previous && previous.meta.derived?.tasks !== undefined && derived?.tasks === undefined
      ? []
      : (previous?.goal.tasks ?? []);
  let tasks = previous ? mergeTasks(tasksBefore, newTasks) : newTasks;
  if (tasks.length > LIMITS.tasks) {
    tasks = dropOldestTasks(tasks, LIMITS.tasks);
    truncated = true;
  }
  let decisions = previous ? dedupe([...previous.decisions, ...newDecisions]) : dedupe(newDecisions);
  if (decisions.length > LIMITS.decisions) {
    decisions = decisions.slice(-LIMITS.decisions);
    truncated = true;
  }
  const commands = keepNewest(
    previous ? [...previous.recentCommands, ...newCommands] : newCommands,
    LIMITS.recentCommands,
  );
  const recentCommands = commands.kept;
  truncated ||= commands.dropped;

  const modifiedFiles = mergeFiles({
    provided: providedNotes,
    detected: params.detectedFiles,
    previous: previous?.modifiedFiles ?? [],
    oids,
    redactPath: (file) => redactor.path(file),
  });
  const flagged = params.flagged && {
    ...params.flagged,
    paths: [...new Set(params.flagged.paths.map((file) => redactor.path(file)))],
  };

  const built: Checkpoint = {
    version: CHECKPOINT_VERSION,
    id: previous?.id ?? params.newId(),
    createdAt: previous?.createdAt ?? at,
    updatedAt: at,
    generator: { ...params.generator },
    project: { name: params.projectName },
    git: params.git,
    goal: { primary: goal, tasks },
    ...(summary !== undefined
      ? { summary }
      : previous?.summary !== undefined
        ? { summary: previous.summary }
        : {}),
    nextSteps: nextSteps ?? previous?.nextSteps ?? [],
    decisions,
    modifiedFiles,
    recentCommands,
    meta: {
      redactions: previous?.meta.redactions ?? 0,
      truncated,
      ...(flagged ? { flagged } : {}),
      ...(derived ? { derived } : {}),
      ...(newerInTranscript ? { newerInTranscript } : {}),
      ...(agentSavedAt ? { agentSavedAt } : {}),
      ...(handoff ? { handoff } : {}),
      // Ids the journal may still hold (a merge cut short before it cleared them): never merged twice.
      ...(previous?.meta.journaled || params.journaled?.length
        ? {
            journaled: [...(previous?.meta.journaled ?? []), ...(params.journaled ?? [])].slice(
              -JOURNAL_MEMORY_IDS,
            ),
          }
        : {}),
    },
  };
  const kept = redactUnknownFields(
    withUnknownFieldsOf(built, params.onDisk ?? previous, previous !== null),
    redactor,
  );
  const redactions = redactor.count;
  const checkpoint: Checkpoint = {
    ...kept,
    meta: { ...kept.meta, redactions: kept.meta.redactions + redactions },
  };
  const fitted = fitToSize(checkpoint, LIMITS.fileBytes, {
    commandCount: newCommands.length,
    filePaths: new Set([...providedNotes.keys()].map((file) => redactor.path(file))),
  });
  return {
    checkpoint: fitted.checkpoint,
    redactions,
    bytes: fitted.bytes,
    serialized: fitted.serialized,
    dropped: fitted.dropped,
    isListCut: truncated,
  };
}

/**
 * A merge updates a task of the file by its description (the first, should a hand edit list it twice) and
 * appends new ones. The file's own entries stay as they are: two that read the same may be two tasks that
 * differed only in a redacted secret.
 */
function mergeTasks(previous: readonly Task[], updates: readonly Task[]): Task[] {
  const merged = previous.map((task) => ({ ...task }));
  for (const update of updates) {
    const existing = merged.find((task) => task.description === update.description);
    if (existing) existing.status = update.status;
    else merged.push({ ...update });
  }
  return merged;
}

/**
 * One entry per task, where it first appears, with the last status given: the same description is the
 * same task (a bad-input trial kept "A" twice, pending and done, from one save and from a merge).
 */
export function oneEntryPerTask<T extends Task>(tasks: readonly T[]): T[] {
  const byDescription = new Map<string, T>();
  for (const task of tasks) {
    const kept = byDescription.get(task.description);
    if (kept) kept.status = task.status;
    else byDescription.set(task.description, { ...task });
  }
  return [...byDescription.values()];
}

/** A task given again: the entry at `index` has the description of the one at `first`. */
export interface RepeatedTask {
  index: number;
  first: number;
}

/** The entries of `descriptions` that repeat an earlier one (see oneEntryPerTask), in order. */
export function repeatedTasks(descriptions: readonly string[]): RepeatedTask[] {
  const firstAt = new Map<string, number>();
  const repeated: RepeatedTask[] = [];
  descriptions.forEach((description, index) => {
    const first = firstAt.get(description);
    if (first === undefined) firstAt.set(description, index);
    else repeated.push({ index, first });
  });
  return repeated;
}

/** Keeps the list within `max` by dropping finished tasks first, oldest first, then the oldest of the rest. */
export function dropOldestTasks(tasks: readonly Task[], max: number): Task[] {
  const kept = [...tasks];
  while (kept.length > max) {
    const doneIndex = kept.findIndex((task) => task.status === 'done');
    kept.splice(Math.max(doneIndex, 0), 1);
  }
  return kept;
}

function dedupe(values: readonly string[]): string[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    if (seen.has(value)) return false;
    seen.add(value);
    return true;
  });
}

function mergeFiles(params: {
  provided: ReadonlyMap<string, string | undefined>;
  detected: readonly DetectedFile[];
  previous: readonly ModifiedFile[];
  oids: ReadonlyMap<string, string | null>;
  /** A path as the checkpoint keeps it: a token in it redacted (see redactPath). */
  redactPath: (path: string) => string;
}): ModifiedFile[] {
  const detectedByPath = new Map(params.detected.map((file) => [file.path, file]));
  const previousNotes = new Map(params.previous.map((file) => [file.path, file.note]));
  const files = new Map<string, ModifiedFile>();
  // Listed under its redacted name, a path with a secret in it names no file: it keeps no oid, which
  // drift would find changed at every look.
  const entry = (path: string, status: FileStatus, source: 'git' | 'agent', note: string | undefined) => {
    const kept = params.redactPath(path);
    const hash = kept === path ? (params.oids.get(path) ?? undefined) : undefined;
    return withoutUndefined({ path: kept, status, source, note, hash });
  };
  const add = (file: ModifiedFile) => {
    if (!files.has(file.path)) files.set(file.path, file);
  };

  // git keys a folder it lists whole (a nested repository, a new folder) as `nested/`; the agent's `nested`
  // or `nested/` is that entry, listed once as git reports it (rewind trial: `nested (M)` and `nested/ (??)`).
  const asGitReports = (path: string) => detectedByPath.get(path) ?? detectedByPath.get(`${path}/`);
  const isListed = (path: string) => files.has(path) || files.has(`${path}/`);
  const previousNote = (path: string) =>
    previousNotes.get(path) ?? (path.endsWith('/') ? previousNotes.get(path.slice(0, -1)) : undefined);
  for (const [path, note] of params.provided) {
    const detected = asGitReports(path);
    const keptNote = note ?? previousNotes.get(path) ?? (detected && previousNote(detected.path));
    add(
      detected
        ? entry(detected.path, detected.status, 'git', keptNote)
        : entry(path, statusOf(path, params.oids), 'agent', keptNote),
    );
  }
  for (const file of params.detected) add(entry(file.path, file.status, 'git', previousNote(file.path)));
  for (const file of params.previous) {
    if (isListed(file.path) || isListed(params.redactPath(file.path))) continue;
    // What a save now refuses (git's own folder, the checkpoint's own files) is not carried on from a file
    // an older version wrote: the checkpoint's own file was flagged as changed at every load (review).
    if (isInGitFolder(file.path) || isOwnFile(file.path)) continue;
    // Listed redacted, it names no file to look at: it keeps what it said.
    const status = file.path.includes(REDACTED) ? file.status : statusOf(file.path, params.oids);
    add(entry(file.path, status, 'agent', file.note));
  }
  return [...files.values()];
}

/** Files named only by the agent are `M`, or `D` when nothing is there any more. */
function statusOf(path: string, oids: ReadonlyMap<string, string | null>): FileStatus {
  return oids.get(path) === null ? 'D' : 'M';
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** The goal a hook writes when it must create a checkpoint the agent has not saved yet. */
export const PLACEHOLDER_GOAL =
  '(not recorded yet: this checkpoint was started automatically; ask the user, or infer the goal from the files and commands below)';

/**
 * Appends commands to an existing checkpoint without touching anything else (no git scan): the cheap
 * path for a hook that runs after every shell command. Redacts, keeps the last 50, fits the cap. A
 * `journalId` (the record's id a relayed hook named) joins `meta.journaled`, so a second write of it is
 * known for one (core/journal.ts). A tool call the checkpoint lists already (its `callId`) is not
 * appended again: `isRepeat` when none of `commands` was new, and nothing need be written.
 */
export function appendCommands(
  checkpoint: Checkpoint,
  commands: readonly CommandOutcome[],
  now: Date,
  redaction?: DetectorConfig,
  journalId?: string,
): BuildCheckpointResult & { isRepeat: boolean } {
  const recorded = recordedCommands(commands, now, redaction);
  const fresh = withoutRepeatedCalls(checkpoint.recentCommands, recorded.commands);
  const isRepeat = fresh.length === 0 && recorded.commands.length > 0;
  const redactions = isRepeat ? 0 : recorded.redactions;
  const journaled = (id: string) => [...(checkpoint.meta.journaled ?? []), id].slice(-JOURNAL_MEMORY_IDS);
  const meta = journalId ? { journaled: journaled(journalId) } : {};
  return { ...appendRecorded(checkpoint, fresh, redactions, meta), redactions, isRepeat };
}

/** A shell command and how it ended, as a hook reports it. */
export interface CommandOutcome {
  command: string;
  exitCode?: number | undefined;
  note?: string | undefined;
  /** The agent's id of the tool call (see RecentCommand's `callId`); one that is not an id is left out. */
  callId?: string | undefined;
}

/** Commands as the checkpoint keeps them: clipped, redacted, stamped with `now`. */
export function recordedCommands(
  commands: readonly CommandOutcome[],
  now: Date,
  redaction?: DetectorConfig,
): { commands: RecentCommand[]; redactions: number } {
  const redactor = new Redactor(redaction);
  const at = now.toISOString();
  const recorded = commands.map((command) =>
    withoutUndefined({
      // Security: redacted, then clipped: a secret cut at the limit would no longer be found (and a
      // session's transcript, read later, gives the same text, so the command is not listed twice).
      command: clipRedacted(redactor.text(command.command), LIMITS.commandChars),
      exitCode: command.exitCode,
      note:
        command.note === undefined
          ? undefined
          : clipRedacted(redactor.text(command.note), LIMITS.commandNoteChars),
      at,
      callId: command.callId !== undefined && isCallId(command.callId) ? command.callId : undefined,
    }),
  );
  return { commands: recorded, redactions: redactor.count };
}

/**
 * What an agent's own save keeps of the derived marks: none for the fields it wrote (its goal always;
 * its tasks and summary when it gave them). A refresh by a hook keeps them all.
 */
export function carryDerived(
  previous: DerivedFields | undefined,
  saved: { tasks?: readonly unknown[] | undefined; summary?: string | undefined },
  isAutomatic: boolean,
): DerivedFields | undefined {
  if (!previous) return undefined;
  const kept: DerivedFields = { ...previous };
  if (!isAutomatic) {
    delete kept.goal;
    if (saved.tasks && saved.tasks.length > 0) delete kept.tasks;
    if (saved.summary !== undefined) delete kept.summary;
  }
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/**
 * What an agent's own save keeps of the marks of newer transcript fields: none for the fields it wrote
 * (its tasks and summary when it gave them: what it saved is now the newer). A refresh by a hook keeps them.
 */
export function carryNewer(
  previous: NewerInTranscript | undefined,
  saved: { tasks?: readonly unknown[] | undefined; summary?: string | undefined },
  isAutomatic: boolean,
): NewerInTranscript | undefined {
  if (!previous) return undefined;
  const kept: NewerInTranscript = { ...previous };
  if (!isAutomatic) {
    if (saved.tasks && saved.tasks.length > 0) delete kept.tasks;
    if (saved.summary !== undefined) delete kept.summary;
  }
  return kept.tasks !== undefined || kept.summary !== undefined ? kept : undefined;
}

/**
 * When the agent's own saves last wrote its tasks and its summary: `at` for the fields this save writes
 * (as carryNewer drops their marks), the earlier times for the others. A refresh by a hook changes none.
 */
export function stampAgentSave(
  previous: AgentSavedAt | undefined,
  saved: { tasks?: readonly unknown[] | undefined; summary?: string | undefined },
  isAutomatic: boolean,
  at: string,
): AgentSavedAt | undefined {
  const stamped: AgentSavedAt = { ...previous };
  if (!isAutomatic) {
    if (saved.tasks && saved.tasks.length > 0) stamped.tasks = at;
    if (saved.summary !== undefined) stamped.summary = at;
  }
  return stamped.tasks !== undefined || stamped.summary !== undefined ? stamped : undefined;
}
