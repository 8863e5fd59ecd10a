import { LIMITS } from './limits.js';
import type { Checkpoint } from './schema.js';
import { charLength, clip } from './text.js';

// A save keeps every field within its limit, but the file is plain JSON that people edit by hand (and
// other writers write): a field over its limit was shown and carried over by every merge without a word,
// past the 64 KB cap (input audit, 2026-12-07). These name what is over, and cut it where a merge carries it.

/** One field of a checkpoint over its limit: its path, what it holds and the limit. */
export interface OverLimit {
  field: string;
  got: number;
  limit: number;
  unit: 'characters' | 'items';
}

/** Every field of `checkpoint` over its limit, in the file's order; an empty list for one a save wrote. */
export function fieldsOverLimits(checkpoint: Checkpoint): OverLimit[] {
  const over: OverLimit[] = [];
  const text = (field: string, value: string | undefined, limit: number) => {
    if (value === undefined || value.length <= limit) return;
    const got = charLength(value);
    if (got > limit) over.push({ field, got, limit, unit: 'characters' });
  };
  const items = (field: string, list: readonly unknown[], limit: number) => {
    if (list.length > limit) over.push({ field, got: list.length, limit, unit: 'items' });
  };
  text('goal.primary', checkpoint.goal.primary, LIMITS.goalChars);
  items('goal.tasks', checkpoint.goal.tasks, LIMITS.tasks);
  checkpoint.goal.tasks.forEach((task, at) => {
    text(`goal.tasks[${at}].description`, task.description, LIMITS.taskDescriptionChars);
  });
  text('summary', checkpoint.summary, LIMITS.summaryChars);
  items('nextSteps', checkpoint.nextSteps, LIMITS.nextSteps);
  checkpoint.nextSteps.forEach((step, at) => {
    text(`nextSteps[${at}]`, step, LIMITS.nextStepChars);
  });
  items('decisions', checkpoint.decisions, LIMITS.decisions);
  checkpoint.decisions.forEach((decision, at) => {
    text(`decisions[${at}]`, decision, LIMITS.decisionChars);
  });
  // No count for the files: 100 is what one call may name; the list a save records is git's scan with
  // what earlier saves recorded, bounded by the 64 KB cap only (a merge of four writers' 200 files).
  checkpoint.modifiedFiles.forEach((file, at) => {
    text(`modifiedFiles[${at}].note`, file.note, LIMITS.noteChars);
  });
  items('recentCommands', checkpoint.recentCommands, LIMITS.recentCommands);
  checkpoint.recentCommands.forEach((command, at) => {
    text(`recentCommands[${at}].command`, command.command, LIMITS.commandChars);
    text(`recentCommands[${at}].note`, command.note, LIMITS.commandNoteChars);
  });
  return over;
}

/** `summary (70000 characters; limit 4000), nextSteps (25 items; limit 20)`: the first few, and how many more. */
export function describeOverLimits(over: readonly OverLimit[], shown = 5): string {
  const named = over
    .slice(0, shown)
    .map(({ field, got, limit, unit }) => `${field} (${got} ${unit}; limit ${limit})`)
    .join(', ');
  return over.length > shown ? `${named} and ${over.length - shown} more` : named;
}

/**
 * `checkpoint` with its texts cut to their limits and its next steps to the first 20: what a merge carries
 * over. The other lists are kept to their limits by the merge itself (tasks, decisions, commands) or by
 * the 64 KB cap (files).
 */
export function withinTextLimits(checkpoint: Checkpoint): Checkpoint {
  const cut = (value: string, limit: number) => clip(value, limit);
  const cutOptional = (value: string | undefined, limit: number) =>
    value === undefined ? undefined : clip(value, limit);
  const summary = cutOptional(checkpoint.summary, LIMITS.summaryChars);
  return {
    ...checkpoint,
    goal: {
      ...checkpoint.goal,
      primary: cut(checkpoint.goal.primary, LIMITS.goalChars),
      tasks: checkpoint.goal.tasks.map((task) => ({
        ...task,
        description: cut(task.description, LIMITS.taskDescriptionChars),
      })),
    },
    ...(summary === undefined ? {} : { summary }),
    nextSteps: checkpoint.nextSteps.slice(0, LIMITS.nextSteps).map((step) => cut(step, LIMITS.nextStepChars)),
    decisions: checkpoint.decisions.map((decision) => cut(decision, LIMITS.decisionChars)),
    modifiedFiles: checkpoint.modifiedFiles.map((file) =>
      file.note === undefined ? file : { ...file, note: cut(file.note, LIMITS.noteChars) },
    ),
    recentCommands: checkpoint.recentCommands.map((command) => ({
      ...command,
      command: cut(command.command, LIMITS.commandChars),
      ...(command.note === undefined ? {} : { note: cut(command.note, LIMITS.commandNoteChars) }),
    })),
  };
}
