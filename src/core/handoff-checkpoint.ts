import { NO_GIT_IDENTITY } from './handoff-author.js';
import type { Redactor } from './redact.js';
import type { Checkpoint, HandoffMark } from './schema.js';
import { clip } from './text.js';
import { redactUnknownFields } from './unknown-fields.js';

/** How the brief marks a section that holds a pulled handoff's words. */
export const FROM_HANDOFF = 'from the handoff';

/** The parts of a checkpoint that are its writer's words, as a pull marks them (`meta.handoff.fields`). */
export const HANDOFF_FIELDS = [
  'goal',
  'tasks',
  'summary',
  'nextSteps',
  'decisions',
  'files',
  'commands',
] as const;
export type HandoffField = (typeof HANDOFF_FIELDS)[number];

/** Where a pulled checkpoint came from: the handoff's own record of who pushed it, and when. */
export interface HandoffOrigin {
  name: string;
  remote: string;
  author: string;
  pushedAt: string;
  commit: string;
}

/**
 * A checkpoint a pull brought, as it is written here: every text a save redacts redacted with the same
 * redactor (and the fields this version does not know), and marked as the handoff's words, all of them
 * (any mark it came with is replaced: the remote does not say what is this session's own).
 * Security: the other machine's client may have skipped its secret gate; nothing unredacted is written.
 */
export function receiveHandoffCheckpoint(
  checkpoint: Checkpoint,
  origin: HandoffOrigin,
  redactor: Redactor,
): { checkpoint: Checkpoint; redactions: number } {
  const before = redactor.count;
  const text = (value: string) => redactor.text(value);
  const { summary } = checkpoint;
  const redacted: Checkpoint = {
    ...checkpoint,
    project: { ...checkpoint.project, name: text(checkpoint.project.name) },
    goal: {
      ...checkpoint.goal,
      primary: text(checkpoint.goal.primary),
      tasks: checkpoint.goal.tasks.map((task) => ({ ...task, description: text(task.description) })),
    },
    ...(summary === undefined ? {} : { summary: text(summary) }),
    nextSteps: checkpoint.nextSteps.map(text),
    decisions: checkpoint.decisions.map(text),
    modifiedFiles: checkpoint.modifiedFiles.map((file) =>
      file.note === undefined ? file : { ...file, note: text(file.note) },
    ),
    recentCommands: checkpoint.recentCommands.map((command) => ({
      ...command,
      command: text(command.command),
      ...(command.note === undefined ? {} : { note: text(command.note) }),
    })),
  };
  const { handoff: _forged, ...meta } = checkpoint.meta;
  const kept = redactUnknownFields({ ...redacted, meta }, redactor);
  const redactions = redactor.count - before;
  return {
    checkpoint: {
      ...kept,
      meta: {
        ...kept.meta,
        redactions: kept.meta.redactions + redactions,
        handoff: { ...origin, fields: [...HANDOFF_FIELDS] },
      },
    },
    redactions,
  };
}

/**
 * The fields of a checkpoint that still hold the words of the handoff it was pulled from: its mark,
 * less those filled since from this session's transcript. Empty for a checkpoint that was not pulled.
 */
export function handoffFieldsOf(checkpoint: Checkpoint): ReadonlySet<string> {
  const mark = checkpoint.meta.handoff;
  if (!mark) return new Set();
  const derived = checkpoint.meta.derived ?? {};
  return new Set(mark.fields.filter((field) => !(field in derived)));
}

/**
 * What an agent's own save keeps of the handoff mark: not the fields it wrote (its goal always; its
 * summary and next steps when it gave them: they replace the handoff's). Its tasks, decisions, file
 * notes and commands merge into the handoff's, which stay marked. A hook's refresh keeps the mark.
 */
export function carryHandoff(
  previous: HandoffMark | undefined,
  saved: { summary?: string | undefined; nextSteps?: readonly string[] | undefined },
  isAutomatic: boolean,
): HandoffMark | undefined {
  if (!previous) return undefined;
  if (isAutomatic) return previous;
  const wrote = new Set<string>(['goal']);
  if (saved.summary !== undefined) wrote.add('summary');
  if (saved.nextSteps !== undefined) wrote.add('nextSteps');
  const fields = previous.fields.filter((field) => !wrote.has(field));
  return fields.length > 0 ? { ...previous, fields } : undefined;
}

/**
 * Whose handoff a checkpoint's words are from, in one phrase ("a handoff pushed by …"), or null when
 * none of its fields still holds a pulled handoff's words. For the hooks' short notices.
 */
export function handoffAttribution(checkpoint: Checkpoint): string | null {
  const mark = checkpoint.meta.handoff;
  if (!mark || handoffFieldsOf(checkpoint).size === 0) return null;
  const who =
    mark.author === NO_GIT_IDENTITY ? 'pushed with no git identity' : `pushed by ${clip(mark.author, 80)}`;
  return `a handoff ${who} (handoff '${clip(mark.name, 80)}' on remote '${clip(mark.remote, 80)}'), brought here by \`handoff pull\``;
}
