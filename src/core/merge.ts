import { carryHandoff } from './handoff-checkpoint.js';
import type { SaveInput } from './input.js';
import { JOURNAL_MEMORY_IDS } from './journal-id.js';
import { LIMITS } from './limits.js';
import { Redactor } from './redact.js';
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
  serializeCheckpoint,
  type Task,
} from './schema.js';
import type { DetectorConfig } from './secrets/detect.js';
import { clip } from './text.js';
import {
  hasUnknownFields,
  redactUnknownFields,
  withoutUnknownFields,
  withUnknownFieldsOf,
} from './unknown-fields.js';

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
  if (input.mode === 'merge' && previous) for (const file of previous.modifiedFiles) paths.add(file.path);
  return [...paths];
}

/**
 * Turns a save request into the checkpoint to write, following the replace/merge table of the
 * original tool field by field, then redacts, applies list limits and fits the 64 KB cap.
 */
export function buildCheckpoint(params: BuildCheckpointParams): BuildCheckpointResult {
  const { input, now, oids } = params;
  const previous = input.mode === 'merge' ? params.previous : null;
  const redactor = new Redactor(params.redaction);
  const at = now.toISOString();
  let truncated = false;

  const goal = redactor.text(input.goal.trim());
  const newTasks: Task[] = (input.tasks ?? []).map((task) => ({
    description: redactor.text(task.description.trim()),
    status: task.status,
  }));
  const summary = redactor.text(input.summary);
  const nextSteps = input.nextSteps?.map((step) => redactor.text(step));
  const newDecisions = (input.decisions ?? []).map((decision) => redactor.text(decision.trim()));
  const newCommands: RecentCommand[] = (input.recentCommands ?? []).map((command) =>
    withoutUndefined({
      command: redactor.text(command.command),
      exitCode: command.exitCode,
      note: redactor.text(command.note),
      at,
    }),
  );
  const providedNotes = new Map<string, string | undefined>();
  for (const file of input.modifiedFiles ?? []) {
    const note = redactor.text(file.note);
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
  });

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
      ...(params.flagged ? { flagged: params.flagged } : {}),
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
    filePaths: new Set(providedNotes.keys()),
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

function mergeTasks(previous: readonly Task[], updates: readonly Task[]): Task[] {
  const merged = previous.map((task) => ({ ...task }));
  for (const update of updates) {
    const existing = merged.find((task) => task.description === update.description);
    if (existing) existing.status = update.status;
    else merged.push(update);
  }
  return merged;
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
}): ModifiedFile[] {
  const detectedByPath = new Map(params.detected.map((file) => [file.path, file]));
  const previousNotes = new Map(params.previous.map((file) => [file.path, file.note]));
  const files = new Map<string, ModifiedFile>();
  const entry = (path: string, status: FileStatus, source: 'git' | 'agent', note: string | undefined) =>
    withoutUndefined({ path, status, source, note, hash: params.oids.get(path) ?? undefined });

  for (const [path, note] of params.provided) {
    const detected = detectedByPath.get(path);
    const keptNote = note ?? previousNotes.get(path);
    files.set(
      path,
      detected
        ? entry(path, detected.status, 'git', keptNote)
        : entry(path, statusOf(path, params.oids), 'agent', keptNote),
    );
  }
  for (const file of params.detected) {
    if (!files.has(file.path))
      files.set(file.path, entry(file.path, file.status, 'git', previousNotes.get(file.path)));
  }
  for (const file of params.previous) {
    if (!files.has(file.path))
      files.set(file.path, entry(file.path, statusOf(file.path, params.oids), 'agent', file.note));
  }
  return [...files.values()];
}

/** Files named only by the agent are `M`, or `D` when nothing is there any more. */
function statusOf(path: string, oids: ReadonlyMap<string, string | null>): FileStatus {
  return oids.get(path) === null ? 'D' : 'M';
}

/** What the agent gave in the save being fitted: kept before anything else (see fitToSize). */
export interface GivenInSave {
  /** How many of the newest commands this save brought. */
  commandCount: number;
  /** The paths the agent named in this save. */
  filePaths: ReadonlySet<string>;
}

/** What fitToSize dropped to fit the cap, by kind. */
export interface DroppedToFit {
  /** Entries only a git scan found (no note, not named by the agent): their oids are kept elsewhere. */
  scannedFiles: number;
  commands: number;
  /** Files the agent named or noted (this save's last of all). */
  notedFiles: number;
  flaggedPaths: number;
  unknownFields: boolean;
}

const NOTHING_GIVEN: GivenInSave = { commandCount: 0, filePaths: new Set() };

/** Nothing dropped. */
export const NOTHING_DROPPED: DroppedToFit = {
  scannedFiles: 0,
  commands: 0,
  notedFiles: 0,
  flaggedPaths: 0,
  unknownFields: false,
};

/**
 * The save's warning about what it dropped, saying truly what went (issue 26: "older entries" was said
 * when the save's own commands had gone); `null` when nothing did.
 */
export function describeDropped(dropped: DroppedToFit, isListCut: boolean): string | null {
  const parts = [
    dropped.scannedFiles > 0 &&
      `${dropped.scannedFiles} file entr${dropped.scannedFiles === 1 ? 'y' : 'ies'} found only by git's scan (their hashes are kept in the private store, so drift still follows them)`,
    dropped.commands > 0 && `${dropped.commands} command(s), oldest first`,
    dropped.notedFiles > 0 &&
      `${dropped.notedFiles} file entr${dropped.notedFiles === 1 ? 'y' : 'ies'} with notes or named by the agent`,
    dropped.flaggedPaths > 0 && `${dropped.flaggedPaths} flagged path(s)`,
    dropped.unknownFields && 'the fields this version does not know',
  ].filter((part): part is string => typeof part === 'string');
  const sentences = [
    isListCut &&
      `Older entries were dropped to keep the list limits (the last ${LIMITS.recentCommands} commands, ${LIMITS.decisions} decisions, ${LIMITS.tasks} tasks).`,
    parts.length > 0 &&
      `Dropped to fit the 64 KB cap: ${parts.join('; ')}; the checkpoint is marked as cut short.`,
  ].filter((part): part is string => typeof part === 'string');
  return sentences.length > 0 ? sentences.join(' ') : null;
}

/** Adds up two fits of the same save (a save's, then the transcript's). */
export function addDropped(a: DroppedToFit, b: DroppedToFit): DroppedToFit {
  return {
    scannedFiles: a.scannedFiles + b.scannedFiles,
    commands: a.commands + b.commands,
    notedFiles: a.notedFiles + b.notedFiles,
    flaggedPaths: a.flaggedPaths + b.flaggedPaths,
    unknownFields: a.unknownFields || b.unknownFields,
  };
}

/**
 * Drops entries until the serialized checkpoint fits in `maxBytes`, least useful first (issue 26: a
 * 3,000-file tree once pushed out the very commands of the save): fields this version does not know;
 * file entries only a git scan found (their oids are kept in the store's `unlisted-files.json`, so
 * drift still follows them), from the end; older commands, oldest first; the other files not given in
 * this save, from the end; flagged paths; then this save's own commands, oldest first, and its files
 * last. Each step searches for how many to drop (dropping more never makes the file bigger), so a full
 * file costs a few serializations, not one per entry; the last one is the text written.
 */
export function fitToSize(
  checkpoint: Checkpoint,
  maxBytes: number,
  given: GivenInSave = NOTHING_GIVEN,
): FittedCheckpoint & { dropped: DroppedToFit } {
  const whole = measure(checkpoint);
  if (whole.bytes <= maxBytes) return { ...whole, dropped: NOTHING_DROPPED };
  const truncate = (c: Checkpoint): Checkpoint => ({ ...c, meta: { ...c.meta, truncated: true } });
  // Fields this version does not know go first: a newer writer's (or a hand edit's) extras never push
  // out the session's own commands and files (review of 2026-12-06: a 60 KB unknown field took them all).
  if (hasUnknownFields(checkpoint)) {
    const fitted = fitToSize(truncate(withoutUnknownFields(checkpoint)), maxBytes, given);
    return { ...fitted, dropped: { ...fitted.dropped, unknownFields: true } };
  }
  const dropped = { ...NOTHING_DROPPED };
  const isGiven = (file: ModifiedFile) => given.filePaths.has(file.path);
  const isScanned = (file: ModifiedFile) =>
    file.source === 'git' && file.note === undefined && !isGiven(file);
  let current = whole;
  /** Drops up to all of the files `droppable` picks, from the end of the list. */
  const dropFiles = (droppable: (file: ModifiedFile) => boolean): number => {
    const base = current.checkpoint;
    const files = base.modifiedFiles;
    const candidates = files.flatMap((file, index) => (droppable(file) ? [index] : []));
    if (current.bytes <= maxBytes || candidates.length === 0) return 0;
    current = fewestDropped(candidates.length, maxBytes, current, (n) => {
      const gone = new Set(candidates.slice(candidates.length - n));
      return truncate({ ...base, modifiedFiles: files.filter((_, index) => !gone.has(index)) });
    });
    return files.length - current.checkpoint.modifiedFiles.length;
  };
  /** Drops up to `max` of the oldest commands. */
  const dropCommands = (max: number): number => {
    const base = current.checkpoint;
    const commands = base.recentCommands;
    if (current.bytes <= maxBytes || max <= 0) return 0;
    current = fewestDropped(max, maxBytes, current, (n) =>
      truncate({ ...base, recentCommands: commands.slice(n) }),
    );
    return commands.length - current.checkpoint.recentCommands.length;
  };
  const givenCommands = () => Math.min(given.commandCount, current.checkpoint.recentCommands.length);

  dropped.scannedFiles += dropFiles(isScanned);
  dropped.commands += dropCommands(current.checkpoint.recentCommands.length - givenCommands());
  dropped.notedFiles += dropFiles((file) => !isGiven(file));
  const flagged = current.checkpoint.meta.flagged;
  if (current.bytes > maxBytes && flagged && flagged.paths.length > 0) {
    const base = current.checkpoint;
    current = fewestDropped(flagged.paths.length, maxBytes, current, (count) =>
      truncate({
        ...base,
        meta: {
          ...base.meta,
          flagged: { ...flagged, paths: flagged.paths.slice(0, flagged.paths.length - count) },
        },
      }),
    );
    dropped.flaggedPaths = flagged.paths.length - (current.checkpoint.meta.flagged?.paths.length ?? 0);
  }
  dropped.commands += dropCommands(current.checkpoint.recentCommands.length);
  dropped.notedFiles += dropFiles(() => true);
  return { ...current, dropped };
}

export interface FittedCheckpoint {
  checkpoint: Checkpoint;
  bytes: number;
  serialized: string;
}

function measure(checkpoint: Checkpoint): FittedCheckpoint {
  const serialized = serializeCheckpoint(checkpoint);
  return { checkpoint, bytes: Buffer.byteLength(serialized), serialized };
}

/**
 * The smallest count in [1, max] whose `build(count)` fits (or `build(max)` when none does), measured.
 * The size falls about linearly with the count, so each probe is interpolated between the nearest known
 * sizes: a full checkpoint costs a few serializations, where bisection took ten or more.
 */
function fewestDropped(
  max: number,
  maxBytes: number,
  noneDropped: FittedCheckpoint,
  build: (count: number) => Checkpoint,
): FittedCheckpoint {
  if (max === 0) return noneDropped;
  let best = measure(build(max));
  if (best.bytes > maxBytes || max <= 1) return best;
  let low = 0; // build(low) does not fit
  let lowBytes = noneDropped.bytes;
  let high = max; // build(high) fits
  for (let probe = 0; high - low > 1; probe++) {
    // Interpolate while it converges; bisect after a few probes, so the worst case stays logarithmic.
    const perStep = (lowBytes - best.bytes) / (high - low);
    const guess =
      probe < 3 && perStep > 0 ? low + Math.ceil((lowBytes - maxBytes) / perStep) : (low + high) / 2;
    const middle = Math.min(high - 1, Math.max(low + 1, Math.floor(guess)));
    const candidate = measure(build(middle));
    if (candidate.bytes <= maxBytes) {
      high = middle;
      best = candidate;
    } else {
      low = middle;
      lowBytes = candidate.bytes;
    }
  }
  return best;
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

/** A tool call's id as agents write them (`toolu_01…`, `call_…`, OpenCode's `…`): printable, no spaces. */
export function isCallId(value: string): boolean {
  return /^[\x21-\x7e]{1,200}$/.test(value);
}

/**
 * `commands` without those the list holds already, or that come twice among them: the same tool call
 * (its id), the same command and the same outcome. The command and the outcome are compared too, so an
 * agent whose provider reuses call ids (some number them per message) never loses a command.
 */
export function withoutRepeatedCalls(
  listed: readonly RecentCommand[],
  commands: readonly RecentCommand[],
): RecentCommand[] {
  const key = (entry: RecentCommand) =>
    entry.callId === undefined
      ? undefined
      : JSON.stringify([entry.callId, entry.command, entry.exitCode ?? null]);
  const seen = new Set(listed.map(key).filter((value) => value !== undefined));
  const kept: RecentCommand[] = [];
  for (const command of commands) {
    const id = key(command);
    if (id !== undefined && seen.has(id)) continue;
    if (id !== undefined) seen.add(id);
    kept.push(command);
  }
  return kept;
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
      command: clip(redactor.text(command.command), LIMITS.commandChars),
      exitCode: command.exitCode,
      note:
        command.note === undefined ? undefined : clip(redactor.text(command.note), LIMITS.commandNoteChars),
      at,
      callId: command.callId !== undefined && isCallId(command.callId) ? command.callId : undefined,
    }),
  );
  return { commands: recorded, redactions: redactor.count };
}

/** Appends already recorded (redacted) commands: keeps the last 50, counts the redactions, fits the cap. */
export function appendRecorded(
  checkpoint: Checkpoint,
  commands: readonly RecentCommand[],
  redactions: number,
  meta: Partial<Checkpoint['meta']> = {},
): FittedCheckpoint & { dropped: DroppedToFit; isListCut: boolean } {
  const newest = keepNewest([...checkpoint.recentCommands, ...commands], LIMITS.recentCommands);
  const next: Checkpoint = {
    ...checkpoint,
    recentCommands: newest.kept,
    meta: {
      ...checkpoint.meta,
      ...meta,
      redactions: checkpoint.meta.redactions + redactions,
      truncated: checkpoint.meta.truncated || newest.dropped,
    },
  };
  const fitted = fitToSize(next, LIMITS.fileBytes, { commandCount: commands.length, filePaths: new Set() });
  return { ...fitted, isListCut: newest.dropped };
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

/** The newest `max` of a list kept oldest first, and whether any were dropped (the checkpoint says so). */
export function keepNewest<T>(items: readonly T[], max: number): { kept: T[]; dropped: boolean } {
  return items.length > max
    ? { kept: items.slice(-max), dropped: true }
    : { kept: [...items], dropped: false };
}
