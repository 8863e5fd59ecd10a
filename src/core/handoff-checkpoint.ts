import { NO_GIT_IDENTITY } from './handoff-author.js';
import type { Redactor } from './redact.js';
import type { Checkpoint, HandoffMark } from './schema.js';
import { clip } from './text.js';

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
 * The meta a pull drops: what speaks for this machine's own session, never for the one that pushed.
 * `derived` would pass the handoff's words for this session's transcript (and take off their mark);
 * `newerInTranscript` and `agentSavedAt` are this session's transcript and saves; `journaled` names
 * records of this machine's command journal, which would be skipped. `handoff` is replaced. `flagged`
 * stays: it only adds a warning that the files changed after the notes. (docs/checkpoint-file.md)
 */
const NOT_RECEIVED = ['handoff', 'derived', 'newerInTranscript', 'agentSavedAt', 'journaled'] as const;

/** `value` with every string in it, at any depth, redacted (keys too: a field's name is text as well). */
function redactStrings(value: unknown, redactor: Redactor): unknown {
  if (typeof value === 'string') return redactor.text(value);
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, redactor));
  if (value !== null && typeof value === 'object') {
    // fromEntries defines own properties: a "__proto__" field stays a field, never a prototype.
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [redactor.text(name), redactStrings(item, redactor)]),
    );
  }
  return value;
}

/**
 * The paths a checkpoint lists, as a save here keeps them (a token bare in one redacted too, `_` its
 * boundary: see redactPath); one listed redacted keeps no oid, as it names no file (see mergeFiles).
 */
function withPathsRedacted(checkpoint: Checkpoint, redactor: Redactor): Checkpoint {
  const modifiedFiles = checkpoint.modifiedFiles.map((file) => {
    const path = redactor.path(file.path);
    if (path === file.path) return file;
    const { hash: _unfollowed, ...rest } = file;
    return { ...rest, path };
  });
  const { flagged } = checkpoint.meta;
  return {
    ...checkpoint,
    modifiedFiles,
    meta: {
      ...checkpoint.meta,
      ...(flagged
        ? { flagged: { ...flagged, paths: flagged.paths.map((file) => redactor.path(file)) } }
        : {}),
    },
  };
}

/**
 * A checkpoint a pull brought, as it is written here: none of the meta that speaks for this machine's own
 * session (NOT_RECEIVED), every string left in it redacted with the redactor a save here uses (all of
 * them, whatever the field: a path keeps its entry, with the secret in it redacted), and marked as the
 * handoff's words, all of them (any mark it came with is replaced: the remote does not say what is this
 * session's own).
 * Security: the other machine's client may have skipped its secret gate; nothing unredacted is written.
 */
export function receiveHandoffCheckpoint(
  checkpoint: Checkpoint,
  origin: HandoffOrigin,
  redactor: Redactor,
): { checkpoint: Checkpoint; redactions: number } {
  const before = redactor.count;
  const meta: Record<string, unknown> = { ...checkpoint.meta };
  for (const field of NOT_RECEIVED) delete meta[field];
  const kept = withPathsRedacted(redactStrings({ ...checkpoint, meta }, redactor) as Checkpoint, redactor);
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
