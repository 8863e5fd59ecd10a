import truncatedWidth from 'fast-string-truncated-width';
import { code as inlineCode } from './brief.js';
import { describeLeftOut, type LeftOut } from './left-out.js';
import { escapeControls, quotePath } from './quote.js';
import { formatChangeCounts, hasChanges, type RewindEntry } from './rewind-refs.js';
import type { RestorePlan } from './snapshot.js';
import { type HeadMove, renderGuarded, renderHeadMove, renderPlan } from './snapshot-text.js';
import { type CommandFolder, cliCommand, inFolder, wordsFor } from './surface.js';
import { formatAge } from './time.js';

/** The spec's action menu, in its order; the code options only when there is code to restore. */
export const REWIND_ACTIONS = [
  { mode: 'both', label: 'Restore code and conversation' },
  { mode: 'conversation', label: 'Restore conversation' },
  { mode: 'code', label: 'Restore code' },
  { mode: 'cancel', label: 'Cancel' },
] as const;

export type RewindAction = (typeof REWIND_ACTIONS)[number];

export function rewindActions(entry: Pick<RewindEntry, 'changes'>): RewindAction[] {
  return REWIND_ACTIONS.filter(
    (action) => hasChanges(entry.changes) || action.mode === 'conversation' || action.mode === 'cancel',
  );
}

/** One line of an entry, at most `width` characters: age, agent, changes after it, the prompt. */
export function renderRewindEntry(entry: RewindEntry, now: Date, width = 80): string {
  // Security: the prompt, agent and session come from transcripts and hooks: nothing in them may drive the terminal.
  const head = `${formatAge(new Date(entry.createdAt), now)} · ${escapeControls(entry.agent ?? 'agent?')} · ${formatChangeCounts(entry.changes)}  `;
  const room = Math.max(10, width - columnsOf(head));
  const prompt = escapeControls(entry.prompt.replace(/\s+/g, ' ')) || '(empty prompt)';
  // In a narrow terminal the head alone may not leave the prompt its 10 columns: the whole line is cut too.
  return fitWidth(`${head}${fitWidth(prompt, room)}`, width);
}

/** A group of `rewind --all`'s picker: a session, its resume command and its prompts, newest first. */
export interface SessionView {
  sessionId: string;
  agent: string | null;
  resume: string | null;
  entries: readonly RewindEntry[];
}

/** A session id as people read it in a list: its first 8 characters (a UUID's first group). */
export function shortSessionId(sessionId: string): string {
  return sessionId.length > 12 ? sessionId.slice(0, 8) : sessionId;
}

// Terminal columns, not characters: a CJK character or an emoji takes two, a combining mark none.
const WIDE = { emojiWidth: 2, wideWidth: 2, regularWidth: 1, controlWidth: 0, tabWidth: 8 };

function columnsOf(text: string): number {
  return truncatedWidth(text, {}, WIDE).width;
}

/** `line` cut to at most `width` terminal columns, an ellipsis marking the cut. */
export function fitWidth(line: string, width: number): string {
  const fit = truncatedWidth(line, { limit: width, ellipsis: '…' }, WIDE);
  return fit.truncated ? `${line.slice(0, fit.index)}${fit.ellipsed ? '…' : ''}` : line;
}

/**
 * The two lines above a session's prompts in the picker's `--all` view, each at most `width`: the session
 * (short id, agent, age of its newest prompt, whether it is the current one) and how to resume it.
 */
export function renderSessionHeader(
  session: SessionView,
  now: Date,
  width: number,
  current: 'named' | 'newest' | null,
): string {
  const newest = session.entries[0];
  const age = newest ? ` · ${formatAge(new Date(newest.createdAt), now)}` : '';
  const mark = current === 'named' ? ' (current)' : current === 'newest' ? ' (prompted last)' : '';
  // Security: the session id, agent and command come from hooks: nothing in them may drive the terminal.
  const head = `Session ${escapeControls(shortSessionId(session.sessionId))} · ${escapeControls(session.agent ?? 'agent?')}${age}${mark}`;
  const resume = session.resume
    ? `  resume: ${escapeControls(session.resume)}`
    : '  (no resume command known for this agent)';
  return [fitWidth(head, width), fitWidth(resume, width)].join('\n');
}

/** How many prompts `rewind --list --all` shows of each session but the current one. */
export const OTHER_SESSION_PROMPTS = 10;

export interface RewindListView {
  sessionId: string | null;
  sessionSource: 'named' | 'newest' | null;
  entries: readonly RewindEntry[];
  sessions?: ReadonlyArray<{ sessionId: string; resume: string | null; entries: readonly RewindEntry[] }>;
}

/**
 * What to do when no prompt is recorded: how prompts get recorded, and the snapshots there are anyway
 * (newcomer trial). `root`: the CLI's `--root`, carried over.
 */
export function noPromptsHint(root?: string): string {
  return `the agent's hooks record them (the plugin, or \`claude-checkpoint setup <agent>\`); \`${cliCommand('list', { root })}\` shows the snapshots there are, which restore can use`;
}

/** `rewind --list` for people: refs to type, newest first; with `--all`, every session with its resume command. */
/** `root`: the CLI's `--root`, which the command it ends with carries over. */
export function renderRewindList(listing: RewindListView, now: Date, root?: string): string {
  if (listing.sessionId === null) return `No prompts recorded for this project yet: ${noPromptsHint(root)}.`;
  const lines: string[] = [];
  const block = (entries: readonly RewindEntry[], withRefs: boolean) => {
    entries.forEach((entry, index) => {
      const ref = withRefs ? (index === 0 ? 'latest' : `latest~${index}`) : '';
      lines.push(`  ${entry.id}  ${ref.padEnd(withRefs ? 9 : 0)}${renderRewindEntry(entry, now, 80)}`);
    });
  };
  const groups = listing.sessions ?? [
    { sessionId: listing.sessionId, resume: null, entries: listing.entries },
  ];
  for (const group of groups) {
    const isCurrent = group.sessionId === listing.sessionId;
    const why = isCurrent ? (listing.sessionSource === 'named' ? ' (current)' : ' (prompted last)') : '';
    lines.push(
      `Session ${escapeControls(group.sessionId)}${why}: ${group.entries.length} prompt(s), newest first`,
    );
    // Only the session one is in needs no resume command: the one that prompted last may be closed
    // (newcomer trial; the picker and --json give it too).
    if (group.resume && !(isCurrent && listing.sessionSource === 'named'))
      lines.push(`  resume it: ${escapeControls(inFolder(group.resume, root))}`);
    // Weeks of sessions listed whole ran to hundreds of lines (daily-use trial): the others' newest, and
    // the command that lists one whole.
    const shown = isCurrent ? group.entries : group.entries.slice(0, OTHER_SESSION_PROMPTS);
    block(shown, isCurrent);
    if (shown.length < group.entries.length)
      lines.push(
        `  … and ${group.entries.length - shown.length} older: \`${escapeControls(cliCommand('rewind', { root, args: ['--list', '--session', group.sessionId] }))}\``,
      );
    lines.push('');
  }
  // Right after /clear the new session has none yet: where the one before it is (new-user trial 4).
  if (!listing.sessions && listing.entries.length === 0)
    lines.push(
      `  (no prompts yet: \`${cliCommand('rewind', { root, args: ['--list', '--all'] })}\` shows the other sessions' prompts and how to resume them)`,
    );
  lines.push('Counts are what changed after each prompt: what restoring its code would undo.');
  lines.push(`Go back with: ${cliCommand('rewind', { root })} <id|latest~N> --code|--conversation|--both`);
  return lines.join('\n');
}

export interface RewindOutcomeView {
  entry: RewindEntry;
  dryRun: boolean;
  code: {
    plan: RestorePlan;
    conflicts: ReadonlyArray<{ path: string; changedBy: readonly string[] }>;
    undoSnapshotId: string | null;
    headMoved?: HeadMove | null;
    notHeld?: readonly LeftOut[] | undefined;
    /** Of those, the ones a pre-command snapshot of the prompt's turn holds as changed (see rewind-menu.ts). */
    heldBy?: ReadonlyArray<{ path: string; snapshotId: string }> | undefined;
    /** Files over the size cap the rewind brings back from a pre-command snapshot of the prompt's turn. */
    fromPreCommand?: ReadonlyArray<{ path: string; snapshotId: string }> | undefined;
  } | null;
  conversation: {
    canFork: boolean;
    reason: string | null;
    prompt: string;
    /** The prompt is the snapshot's label (the transcript was not found): possibly cut and redacted. */
    promptFromLabel: boolean;
    resumeOriginal: string | null;
    fork: { sessionId: string; resume: string; messages: number; transcript: string } | null;
  } | null;
}

/**
 * Whose work a rewind would undo, `limit` files at most and three sessions a file, as the plan lists its
 * files: after weeks of sessions a far rewind named 580 files, each with every session since (daily-use trial).
 */
export function renderConflicts(
  conflicts: ReadonlyArray<{ path: string; changedBy: readonly string[] }>,
  limit = 50,
): string[] {
  if (conflicts.length === 0) return [];
  const who = (changedBy: readonly string[]) =>
    `${changedBy.slice(0, 3).join(', ')}${changedBy.length > 3 ? `, and ${changedBy.length - 3} more` : ''}`;
  return [
    `⚠ ${conflicts.length} file(s) to restore were changed after this prompt by someone else; restoring undoes that too:`,
    ...conflicts
      .slice(0, limit)
      .map((conflict) => `  ${quotePath(conflict.path)} — ${escapeControls(who(conflict.changedBy))}`),
    ...(conflicts.length > limit ? [`  … and ${conflicts.length - limit} more`] : []),
  ];
}

/**
 * What a rewind did, or (dry run) would do; `root`: the CLI's `--root`, which its undo command carries over;
 * `folder`: where the CLI runs, which the paths of the commands it prints are written from.
 */
export function renderRewind(outcome: RewindOutcomeView, root?: string, folder?: CommandFolder): string {
  const lines = [
    `Prompt ${outcome.entry.id}: ${escapeControls(outcome.entry.prompt, { multiline: true }) || '(empty prompt)'}`,
  ];
  const code = outcome.code;
  if (code) {
    const total = code.plan.overwrite.length + code.plan.create.length + code.plan.delete.length;
    // A prompt's snapshot that left files out is not the whole tree (new-user trial 4).
    const notHeld = code.notHeld ?? [];
    const notHeldLine =
      notHeld.length === 0
        ? []
        : [
            `  Not in this prompt's snapshot, so not brought back: ${notHeld
              .slice(0, 10)
              .map((entry) => describeLeftOut(entry))
              .join(', ')}${notHeld.length > 10 ? `, and ${notHeld.length - 10} more` : ''}.`,
            ...(code.heldBy ?? []).map(
              (held) =>
                `  ${inlineCode(quotePath(held.path))} is in pre-command snapshot ${held.snapshotId} of this prompt's turn, as it was by then (not known to be the file as it was at the prompt: it changed after it, or the snapshots cannot tell): \`${escapeControls(cliCommand('restore', { root, args: [held.snapshotId], paths: [held.path], folder }))}\` brings that back.`,
            ),
          ];
    // Over the cap, so not in the prompt's snapshot, but held by the turn's pre-command snapshot as it was.
    const heldLines = (code.fromPreCommand ?? []).map(
      (held) =>
        `  ${inlineCode(quotePath(held.path))} (over the size cap, so not in this prompt's snapshot) ${outcome.dryRun ? 'would come' : 'came'} back from pre-command snapshot ${held.snapshotId} of this prompt's turn, which held the same file (size, modification time and inode as at the prompt).`,
    );
    if (total === 0) {
      lines.push(
        notHeld.length === 0
          ? 'Code: the working tree already matches this prompt; nothing to restore.'
          : "Code: the working tree already matches what this prompt's snapshot holds; nothing to restore.",
        ...notHeldLine,
      );
      // Edits made only through a link out of the project leave nothing to restore: say why.
      lines.push(...renderGuarded(code.plan).map((line) => `  ${line}`));
    } else {
      lines.push(
        outcome.dryRun
          ? `Code: restoring would change ${total} file(s).`
          : `Code: restored, ${total} file(s) changed.`,
      );
      lines.push(...renderPlan(code.plan).map((line) => `  ${line}`), ...heldLines, ...notHeldLine);
      if (code.headMoved) lines.push(renderHeadMove(code.headMoved));
      lines.push(...renderConflicts(code.conflicts));
      if (code.undoSnapshotId)
        lines.push(`To undo: ${wordsFor('cli', root).restoreNow(code.undoSnapshotId)}`);
    }
  }
  const conversation = outcome.conversation;
  if (conversation) {
    if (conversation.fork) {
      lines.push(
        outcome.dryRun
          ? `Conversation: a new session would hold the ${conversation.fork.messages} message(s) before this prompt.`
          : `Conversation: new session ${conversation.fork.sessionId} holds the ${conversation.fork.messages} message(s) before this prompt; the original session is unchanged.`,
      );
      if (!outcome.dryRun) lines.push(`Continue it: ${inFolder(conversation.fork.resume, root)}`);
    } else {
      lines.push(`Conversation: not restored. ${conversation.reason ?? ''}`.trimEnd());
      if (conversation.resumeOriginal)
        lines.push(`The session itself: ${inFolder(conversation.resumeOriginal, root)}`);
    }
    lines.push(
      conversation.promptFromLabel
        ? "The prompt, to send again or edit, as its snapshot's label keeps it (its first line, at most 200 characters, secrets redacted: check it against what you sent):"
        : 'The prompt, to send again or edit:',
      '',
      escapeControls(conversation.prompt, { multiline: true }),
    );
  }
  return lines.join('\n');
}
