import { TASK_MARKERS } from './brief.js';
import { isCallId } from './call-ids.js';
import { LIMITS } from './limits.js';
import {
  type BuildCheckpointResult,
  dropOldestTasks,
  fitToSize,
  keepNewest,
  oneEntryPerTask,
  PLACEHOLDER_GOAL,
} from './merge.js';
import { clipRedacted, redactText } from './redact.js';
import type { Checkpoint, DerivedFields, RecentCommand, Task } from './schema.js';
import type { DetectorConfig } from './secrets/detect.js';
import { clip } from './text.js';

export { FROM_TRANSCRIPT } from './transcript-label.js';

/**
 * What an agent's own session transcript says about the work, in one shape for every agent: each agent's
 * reader (at the edge) turns its format into this, and the core never sees a vendor format.
 */
export interface TranscriptRecord {
  /** The session the transcript belongs to: a goal derived from it is replaced only from the same session. */
  session: string;
  /** The session's first real user prompt, as the person typed it. */
  goal?: string | undefined;
  /** The latest task list with statuses; `undefined` when the session never used a task tool. */
  tasks?: readonly Task[] | undefined;
  /**
   * Where things stand, in the assistant's own words: the last reply of the newest turn that did work
   * (called a tool), or of a later one that says something of the work (see isTalkAboutWork).
   */
  status?: string | undefined;
  /**
   * Whether the newest turn this read found called a tool; `undefined` when the read found no turn. A
   * last message the hook hands over counts as the status when it did, or when it says something of the work.
   */
  newestTurnWorked?: boolean | undefined;
  /**
   * When the newest turn began (its prompt's time), where the transcript records it: the time of the
   * last reply a hook hands over is taken as this, so a save made in that turn keeps its status.
   */
  newestTurnAt?: string | undefined;
  /**
   * Which of `tasks` and `status` the transcript changed since the read before (an earlier turn's end):
   * newer than that read. Only those can be newer than the agent's own save, and said so in the brief.
   */
  changedSinceLastRead?: { tasks: boolean; status: boolean } | undefined;
  /**
   * When the transcript's entry that set `tasks` (`status`) was written (ISO 8601), where its format
   * records it: compared with the agent's own save of the field, it decides which is newer. Without it,
   * `changedSinceLastRead` does (a change after the read before may still be older than the save).
   */
  tasksAt?: string | undefined;
  statusAt?: string | undefined;
  /** Files the agent's edit tools wrote, as the agent named them (absolute or relative), oldest first. */
  files: readonly string[];
  /** Shell commands the agent ran, with their exit codes where known, oldest first. */
  commands: readonly TranscriptCommand[];
}

export interface TranscriptCommand {
  command: string;
  exitCode?: number | undefined;
  note?: string | undefined;
  /** The agent's id of the tool call, where its transcript has one (the id its hooks name the call by). */
  callId?: string | undefined;
}

/**
 * A reply to a turn that called no tool counts as where things stand only from this many characters: an
 * answer that says something of the work ("Where are we?" answered in a paragraph) does, an
 * acknowledgement ("Noted.", "Thanks!", "You're welcome! Let me know if you need anything else.") does not.
 */
export const TALK_REPLY_MIN_CHARS = 80;

/** Whether a reply to a turn that called no tool says something of the work (see TALK_REPLY_MIN_CHARS). */
export function isTalkAboutWork(text: string): boolean {
  return text.trim().length >= TALK_REPLY_MIN_CHARS;
}

/** The tasks and the status newer in the transcript are kept as one line each, of at most this many characters. */
const NEWER_CHARS = 300;

/** A prompt makes a goal of at most this many characters: the goal is a headline, not the whole request. */
export const DERIVED_GOAL_CHARS = 300;

/** The goal a hook writes before anyone recorded one. */
export function isPlaceholderGoal(goal: string): boolean {
  return goal.trim() === '' || goal === PLACEHOLDER_GOAL;
}

/** A prompt as a one-line goal: whitespace runs become one space, and it is clipped. */
export function shortenGoal(prompt: string): string {
  return clip(prompt.replace(/\s+/g, ' ').trim(), DERIVED_GOAL_CHARS);
}

/**
 * Whether a transcript entry was written after the agent's own save of its field, by their times; `undefined`
 * when either is unknown (the agent's format does not say when, or a checkpoint from an earlier version
 * has no save time): then whether the transcript changed it since the read before decides, as it did.
 */
function isAfterSave(entryAt: string | undefined, savedAt: string | undefined): boolean | undefined {
  const entry = entryAt === undefined ? Number.NaN : Date.parse(entryAt);
  const saved = savedAt === undefined ? Number.NaN : Date.parse(savedAt);
  return Number.isNaN(entry) || Number.isNaN(saved) ? undefined : entry > saved;
}

export interface ApplyTranscriptResult extends BuildCheckpointResult {
  /** Whether anything differs from the checkpoint given: nothing to write otherwise. */
  changed: boolean;
}

/**
 * Fills a checkpoint from a transcript record. What the agent saved itself always wins: the goal, the
 * tasks and the summary are filled only when empty (or the placeholder goal), or when they were derived
 * before (a goal only from the same session); `meta.derived` marks what was filled. Tasks or a status the
 * transcript changed since its last read, and that differ from what the agent saved, are not taken in
 * but kept in `meta.newerInTranscript` for the brief to say so (trial 4); the same as the agent's, they
 * clear it. Commands the checkpoint does not list yet are added. Everything taken from the record is
 * redacted first, then clipped, so a secret cut at a limit is never left half visible.
 */
export function applyTranscript(
  checkpoint: Checkpoint,
  record: TranscriptRecord,
  params: { now: Date; redaction?: DetectorConfig | undefined },
): ApplyTranscriptResult {
  let redactions = 0;
  const redact = (text: string) => {
    const result = redactText(text, params.redaction);
    redactions += result.count;
    return result.text;
  };
  const derived: DerivedFields = { ...checkpoint.meta.derived };
  let { goal, summary } = checkpoint;
  let changed = false;

  const goalIsOpen =
    isPlaceholderGoal(goal.primary) || (derived.goal !== undefined && derived.goal === record.session);
  if (record.goal !== undefined && goalIsOpen) {
    const primary = shortenGoal(redact(record.goal));
    if (primary !== '' && (primary !== goal.primary || derived.goal !== record.session)) {
      goal = { ...goal, primary };
      derived.goal = record.session;
      changed = true;
    }
  }

  const agentSavedAt = checkpoint.meta.agentSavedAt;
  const newer: { tasks?: string; summary?: string } = {};
  const before = checkpoint.meta.newerInTranscript;
  if (before?.tasks !== undefined) newer.tasks = before.tasks;
  if (before?.summary !== undefined) newer.summary = before.summary;
  const tasksAreOpen = goal.tasks.length === 0 || derived.tasks !== undefined;
  if (record.tasks !== undefined && !tasksAreOpen) {
    const countBefore = redactions;
    const tasks = record.tasks
      .map((task) => ({
        description: clipRedacted(redact(task.description).trim(), LIMITS.taskDescriptionChars),
        status: task.status,
      }))
      .filter((task) => task.description !== '');
    const isSame =
      JSON.stringify(tasks) ===
      JSON.stringify(goal.tasks.map(({ description, status }) => ({ description, status })));
    // An entry written before the agent's save is older, even when the read before had not seen it.
    const afterSave = isAfterSave(record.tasksAt, agentSavedAt?.tasks);
    if (isSame || afterSave === false) delete newer.tasks;
    if (!isSame && (afterSave ?? record.changedSinceLastRead?.tasks))
      newer.tasks = clip(
        tasks.map((task) => `${TASK_MARKERS[task.status]} ${task.description}`).join('; '),
        NEWER_CHARS,
      );
    else redactions = countBefore; // nothing of it is kept, so nothing was redacted
  }
  if (record.tasks !== undefined && tasksAreOpen) {
    // A to-do list that names a task twice keeps it once, as a save does (oneEntryPerTask).
    const tasks = dropOldestTasks(
      oneEntryPerTask(
        record.tasks
          .map((task) => ({
            description: clipRedacted(redact(task.description).trim(), LIMITS.taskDescriptionChars),
            status: task.status,
          }))
          .filter((task) => task.description !== ''),
      ),
      LIMITS.tasks,
    );
    if (JSON.stringify(tasks) !== JSON.stringify(goal.tasks) || derived.tasks !== record.session) {
      if (tasks.length > 0 || derived.tasks !== undefined) {
        goal = { ...goal, tasks };
        derived.tasks = record.session;
        changed = true;
      }
    }
  }

  const summaryIsOpen = !summary?.trim() || derived.summary !== undefined;
  if (record.status !== undefined && !summaryIsOpen) {
    const countBefore = redactions;
    const status = redact(record.status).trim();
    const isSame = clipRedacted(status, LIMITS.summaryChars) === summary?.trim();
    const afterSave = isAfterSave(record.statusAt, agentSavedAt?.summary);
    if (isSame || afterSave === false) delete newer.summary;
    if (!isSame && (afterSave ?? record.changedSinceLastRead?.status) && status !== '')
      newer.summary = clip(status.replace(/\s+/g, ' '), NEWER_CHARS);
    else redactions = countBefore; // nothing of it is kept, so nothing was redacted
  }
  if (record.status !== undefined && summaryIsOpen) {
    const status = clipRedacted(redact(record.status).trim(), LIMITS.summaryChars);
    if (status !== '' && (status !== summary || derived.summary !== record.session)) {
      summary = status;
      derived.summary = record.session;
      changed = true;
    }
  }

  let recentCommands = checkpoint.recentCommands;
  const at = params.now.toISOString();
  for (const command of record.commands) {
    const countBefore = redactions;
    const text = clipRedacted(redact(command.command), LIMITS.commandChars);
    const callId = command.callId !== undefined && isCallId(command.callId) ? command.callId : undefined;
    // The call a hook recorded already (its id): one entry, with the outcome the transcript has, where the
    // hook's was unknown or read otherwise (trial 4 of issue 26: a second, contradicting entry was added).
    const same = callId
      ? recentCommands.findIndex((listed) => listed.callId === callId && listed.command === text)
      : -1;
    const listedSame = recentCommands[same];
    if (listedSame && command.exitCode !== undefined && listedSame.exitCode !== command.exitCode) {
      recentCommands = recentCommands.map((listed, index) =>
        index === same ? { ...listed, exitCode: command.exitCode } : listed,
      );
      changed = true;
    }
    const known =
      listedSame !== undefined ||
      recentCommands.some((listed) => listed.command === text && listed.exitCode === command.exitCode);
    if (text.trim() === '' || known) {
      redactions = countBefore; // nothing of it is kept, so nothing was redacted
      continue;
    }
    const entry: RecentCommand = { command: text };
    if (command.exitCode !== undefined) entry.exitCode = command.exitCode;
    if (command.note !== undefined) entry.note = clipRedacted(redact(command.note), LIMITS.commandNoteChars);
    entry.at = at;
    if (callId !== undefined) entry.callId = callId;
    recentCommands = [...recentCommands, entry];
    changed = true;
  }
  const isNewerSame = newer.tasks === before?.tasks && newer.summary === before?.summary;
  if (!isNewerSame) changed = true;
  const newerInTranscript =
    newer.tasks === undefined && newer.summary === undefined
      ? undefined
      : { at: isNewerSame && before ? before.at : params.now.toISOString(), ...newer };
  const commands = keepNewest(recentCommands, LIMITS.recentCommands);
  recentCommands = commands.kept;
  const truncated = checkpoint.meta.truncated || commands.dropped;

  const next: Checkpoint = {
    ...checkpoint,
    goal,
    ...(summary !== undefined ? { summary } : {}),
    recentCommands,
    meta: {
      ...checkpoint.meta,
      redactions: checkpoint.meta.redactions + redactions,
      truncated,
      ...(Object.keys(derived).length > 0 ? { derived } : {}),
      newerInTranscript,
    },
  };
  if (!newerInTranscript) delete next.meta.newerInTranscript;
  const fitted = fitToSize(next, LIMITS.fileBytes);
  return { ...fitted, redactions, changed, isListCut: commands.dropped };
}
