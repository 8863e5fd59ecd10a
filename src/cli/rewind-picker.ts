import {
  createPrompt,
  isDownKey,
  isEnterKey,
  isUpKey,
  type KeypressEvent,
  useKeypress,
  useState,
} from '@inquirer/core';
import { diffSnapshot } from '../app/rewind.js';
import { findPrompt, listRewind, type RewindListing, type RewindMode } from '../app/rewind-menu.js';
import { escapeControls } from '../core/quote.js';
import type { RewindEntry } from '../core/rewind-refs.js';
import {
  fitWidth,
  noPromptsHint,
  type RewindAction,
  renderConflicts,
  renderRewindEntry,
  renderSessionHeader,
  rewindActions,
  shortSessionId,
} from '../core/rewind-text.js';
import { renderDiff } from '../core/snapshot-text.js';
import { cliCommand, inFolder } from '../core/surface.js';
import { formatAge } from '../core/time.js';
import type { CliContext } from './context.js';
import { EXIT } from './output.js';
import { applyRewind } from './rewind-apply.js';

/**
 * The spec's /rewind menu in a terminal: the prompts newest first; `d` shows what restoring the
 * highlighted one would change; Enter opens the numbered actions (a digit picks one, as in Claude
 * Code); Cancel goes back to the list; q or Esc leaves with nothing changed.
 */

interface PickerConfig {
  title: string;
  /** What the list shows, top to bottom (see pickerRows). */
  rows: readonly Row[];
  now: Date;
  width: number;
  /** Rows for the list: the picker fits a plain 80x24 terminal. */
  pageSize: number;
  bold: (text: string) => string;
  dim: (text: string) => string;
  loadDiff: (entry: RewindEntry) => Promise<string>;
  /** The `--root` the command was given: the commands the picker prints carry it over. */
  root?: string | undefined;
  /** The id of an entry named on the command line: the picker opens on its actions. */
  initial?: string | undefined;
}

/**
 * Another session of the project, to resume (the spec's `/resume <session-id>` entry after a /clear):
 * `lastPromptAt`, when it last prompted; `isPrevious`, it last prompted before this session first did (or
 * this one has none yet), so it is the session before this one. One that prompted since may still be
 * running: it is only "another session" (new-user trial 4).
 */
export interface ResumeRow {
  sessionId: string;
  resume: string;
  lastPromptAt: string | null;
  isPrevious: boolean;
}

export type PickerResult = { entry: RewindEntry; mode: RewindMode } | ResumeRow | null;

/**
 * A line of the list: a prompt; another session to resume (see ResumeRow); or, with `--all`, a session's
 * header, which cannot be chosen.
 */
export type Row = { entry: RewindEntry } | ResumeRow | { header: string };

/** How a session to resume is called, from what is known of it: "previous session, last prompt 5m ago". */
export function describeResumeRow(row: ResumeRow, now: Date): string {
  const when = row.lastPromptAt === null ? '' : `, last prompt ${formatAge(new Date(row.lastPromptAt), now)}`;
  return `${row.isPrevious ? 'previous session' : 'other session'}${when}`;
}

/**
 * The list's rows. `--all`: every session, the one prompted last first, each under a header naming it
 * and its resume command, its prompts newest first. Otherwise the current session's prompts, under the
 * previous session's `/resume` entry when there is one.
 */
export function pickerRows(listing: RewindListing, view: { all: boolean; now: Date; width: number }): Row[] {
  if (!view.all) {
    const other = listing.sessions?.find(
      (session) => session.sessionId !== listing.sessionId && session.resume !== null,
    );
    const lastPromptAt = other?.entries[0]?.createdAt ?? null;
    const firstPromptAt = listing.entries.at(-1)?.createdAt;
    const isPrevious =
      firstPromptAt === undefined ||
      (lastPromptAt !== null && Date.parse(lastPromptAt) <= Date.parse(firstPromptAt));
    return [
      ...(other
        ? [{ sessionId: other.sessionId, resume: other.resume ?? '', lastPromptAt, isPrevious }]
        : []),
      ...listing.entries.map((entry) => ({ entry })),
    ];
  }
  return (listing.sessions ?? []).flatMap((session) => [
    {
      header: renderSessionHeader(
        session,
        view.now,
        view.width,
        session.sessionId === listing.sessionId ? listing.sessionSource : null,
      ),
    },
    ...session.entries.map((entry) => ({ entry })),
  ]);
}

type Phase = 'list' | 'menu' | 'diff';

const isQuit = (key: KeypressEvent) => key.name === 'q' || key.name === 'escape';
const isChoosable = (row: Row | undefined) => row !== undefined && !('header' in row);

export const rewindPicker = createPrompt<PickerResult, PickerConfig>((config, done) => {
  const { rows } = config;
  /** The next row that can be chosen from `from`, going `by` (+1 down, -1 up); `from` itself when none. */
  const next = (from: number, by: 1 | -1) => {
    for (let index = from + by; index >= 0 && index < rows.length; index += by)
      if (isChoosable(rows[index])) return index;
    return from;
  };
  const named = rows.findIndex((row) => 'entry' in row && row.entry.id === config.initial);
  // The newest prompt, below the /resume entry when there is one.
  const newest = rows.findIndex((row) => 'entry' in row);
  const [active, setActive] = useState(named >= 0 ? named : newest >= 0 ? newest : next(-1, 1));
  const [phase, setPhase] = useState<Phase>(named >= 0 ? 'menu' : 'list');
  const [choice, setChoice] = useState(0);
  const [diff, setDiff] = useState<string | null>(null);
  const row = rows[active] as Row;
  const entry = 'entry' in row ? row.entry : null;
  const actions = entry ? rewindActions(entry) : [];

  const pick = (action: RewindAction | undefined) => {
    if (!action || !entry) return;
    if (action.mode === 'cancel') setPhase('list');
    else done({ entry, mode: action.mode });
  };

  useKeypress((key) => {
    if (phase === 'diff') {
      setPhase('list');
      return;
    }
    if (phase === 'menu') {
      if (isQuit(key)) setPhase('list');
      else if (isUpKey(key)) setChoice((choice - 1 + actions.length) % actions.length);
      else if (isDownKey(key)) setChoice((choice + 1) % actions.length);
      else if (isEnterKey(key)) pick(actions[choice]);
      else if (/^[1-9]$/.test(key.name)) pick(actions[Number(key.name) - 1]);
      return;
    }
    if (isQuit(key)) done(null);
    else if (isUpKey(key)) setActive(next(active, -1));
    else if (isDownKey(key)) setActive(next(active, 1));
    else if (isEnterKey(key)) {
      if ('sessionId' in row) {
        done(row);
        return;
      }
      if (!entry) return;
      setChoice(0);
      setPhase('menu');
    } else if (key.name === 'd' && entry) {
      const shown = entry;
      setDiff(null);
      setPhase('diff');
      config.loadDiff(shown).then(
        (text) => setDiff(text),
        (error: unknown) => setDiff(`Could not show the diff: ${String(error)}`),
      );
    }
  });

  const renderRow = (item: Row, isActive: boolean) => {
    if ('header' in item) return item.header.split('\n').map(config.dim).join('\n');
    const resumeLine = (row: ResumeRow) => {
      const line = (id: string) => `/resume ${escapeControls(id)} (${describeResumeRow(row, config.now)})`;
      // The full id where it fits; the first 8 characters (as every list shows) where it does not.
      const full = line(row.sessionId);
      return [...full].length <= config.width - 2
        ? full
        : fitWidth(line(row.sessionId.slice(0, 8)), config.width - 2);
    };
    const line =
      'entry' in item ? renderRewindEntry(item.entry, config.now, config.width - 2) : resumeLine(item);
    return isActive ? config.bold(`❯ ${line}`) : `  ${line}`;
  };
  // Rows cut off by the page are said to be there (newcomer trial: 10 of 30 shown, with no hint of more).
  const rendered = rows.map((item, index) => renderRow(item, index === active));
  const page = pageOf(
    rendered.map((text) => text.split('\n').length),
    active,
    config.pageSize,
  );
  const list = [
    ...(page.start > 0 ? [config.dim(`↑ ${page.start} more above`)] : []),
    ...rendered.slice(page.start, page.end),
    ...(page.end < rows.length ? [config.dim(`↓ ${rows.length - page.end} more below`)] : []),
  ].join('\n');
  if (phase === 'diff' && entry) {
    const lines = (diff ?? 'Loading the diff…').split('\n');
    const room = config.pageSize + 4;
    const shown = lines.slice(0, room).map((line) => fitWidth(line, config.width));
    if (lines.length > room)
      shown.push(
        config.dim(
          `… ${lines.length - room} more line(s): ${cliCommand('diff', { root: config.root, args: [entry.id] })}`,
        ),
      );
    return [
      `${config.bold('What restoring the code would change')} (${entry.id})`,
      ...shown,
      config.dim('Any key: back to the list'),
    ].join('\n');
  }
  // Cut to the terminal's width: a wrapped title pushes the list down a line (newcomer trial).
  const header = `${config.bold(fitWidth(config.title, config.width))}\n${config.dim(fitWidth('↑↓ move · Enter choose · d diff · q/Esc quit', config.width))}`;
  if (phase === 'list' || !entry) return `${header}\n${list}`;
  const menu = actions.map((action, index) => {
    const line = `${index + 1}. ${action.label}`;
    return index === choice ? config.bold(`❯ ${line}`) : `  ${line}`;
  });
  // Security: the prompt comes from a hook: nothing in it may drive the terminal.
  const prompt = escapeControls(entry.prompt.replace(/\s+/g, ' '));
  return [
    header,
    list,
    '',
    `${config.bold('Rewind to:')} ${fitWidth(prompt, config.width - 12)}`,
    ...menu,
    config.dim('A digit picks · Esc back'),
  ].join('\n');
});

/** The picker's title for one session: its id whole where the line fits, else its first 8 characters. */
function sessionTitle(sessionId: string, prompts: number, width: number): string {
  const title = (id: string) => `Rewind: session ${id} (${prompts} prompt(s)), newest first`;
  return [...title(sessionId)].length <= width ? title(sessionId) : title(shortSessionId(sessionId));
}

/**
 * The rows a page of `pageSize` lines shows (`start` to `end`, end excluded), given each row's height in
 * lines: the active row, then up to half a page of rows above it, then rows below, then more above to
 * fill the page. Only whole rows are shown.
 */
export function pageOf(
  heights: readonly number[],
  active: number,
  pageSize: number,
): { start: number; end: number } {
  let start = active;
  let end = active + 1;
  let room = pageSize - (heights[active] ?? 1);
  const fits = (index: number) => index >= 0 && index < heights.length && (heights[index] ?? 1) <= room;
  const above = (limit: number) => {
    while (fits(start - 1) && pageSize - room < limit) room -= heights[--start] ?? 1;
  };
  above(Math.floor(pageSize / 2) + (heights[active] ?? 1));
  while (fits(end)) room -= heights[end++] ?? 1;
  above(pageSize);
  return { start, end };
}

/**
 * A yes/no question answered with one key, as every choice of the picker before it (new-user trial
 * 2026-12-06): y, or n; Enter takes the default, no, and so do Esc and q.
 */
export const confirmKey = createPrompt<boolean, { message: string }>((config, done) => {
  const [answer, setAnswer] = useState<boolean | null>(null);
  useKeypress((key) => {
    if (answer !== null) return;
    const yes = key.name === 'y' ? true : key.name === 'n' || isEnterKey(key) || isQuit(key) ? false : null;
    if (yes === null) return;
    setAnswer(yes);
    done(yes);
  });
  return `${config.message} [y/N]${answer === null ? '' : answer ? ' y' : ' n'}`;
});

/** confirmKey's answer; Ctrl-C is a no, as q is in the picker. */
async function askKey(message: string): Promise<boolean> {
  try {
    return await confirmKey({ message });
  } catch (error) {
    if (error instanceof Error && error.name === 'ExitPromptError') return false;
    throw error;
  }
}

/** Runs the picker, then the chosen rewind (conflicts shown and confirmed first). */
export async function runRewindPicker(
  ctx: CliContext,
  request: {
    projectRoot: string | undefined;
    sessionId: string | undefined;
    all: boolean;
    ref?: string | undefined;
  },
): Promise<number> {
  const listing = await listRewind(ctx.deps, {
    projectRoot: request.projectRoot,
    sessionId: request.sessionId,
    // Every session: the one before this (after a /clear) is the /resume entry at the top.
    all: true,
  });
  const sessions = listing.sessions ?? [];
  if (sessions.length === 0) {
    ctx.out.print(
      `No prompts recorded for this project yet, so nothing to rewind to: ${noPromptsHint(ctx.root)}.`,
    );
    return EXIT.ok;
  }
  // An id may name a prompt of any session, as without a terminal; latest~N counts the current session's.
  const named =
    request.ref === undefined
      ? undefined
      : findPrompt(
          sessions.flatMap((session) => session.entries),
          request.ref,
          listing.sessionId,
          ctx.root,
        );
  // A prompt of another session is shown where it is: among every session's.
  const all = request.all || (named !== undefined && named.sessionId !== listing.sessionId);
  const width = Math.max(40, Math.min(process.stdout.columns || 80, 120));
  const height = process.stdout.rows || 24;
  const now = ctx.deps.now();
  const rows = pickerRows(listing, { all, now, width });
  // Right after /clear the session has no prompts yet: the session before it is what one reaches for
  // (new-user trial 4), so the picker opens on it; with no other session, there is nothing to show.
  if (!all && rows.length === 0) {
    ctx.out.print(
      `Session ${escapeControls(listing.sessionId ?? '')} has no prompts here: \`${cliCommand('rewind', { root: ctx.root, args: ['--all'] })}\` shows every session's.`,
    );
    return EXIT.ok;
  }
  const prompts = all
    ? sessions.reduce((sum, session) => sum + session.entries.length, 0)
    : listing.entries.length;
  const title = all
    ? `Rewind: every session of the project (${prompts} prompt(s)), newest first`
    : prompts === 0
      ? `Rewind: session ${escapeControls(listing.sessionId ?? '')} has no prompts yet`
      : sessionTitle(escapeControls(listing.sessionId ?? ''), prompts, width);
  let result: PickerResult;
  try {
    result = await rewindPicker({
      title,
      rows,
      now,
      width,
      pageSize: Math.max(3, Math.min(10, height - 12)),
      initial: named?.id,
      root: ctx.root,
      bold: ctx.out.bold,
      dim: ctx.out.dim,
      loadDiff: async (entry) =>
        renderDiff(await diffSnapshot(ctx.deps, { projectRoot: request.projectRoot, snapshotId: entry.id })),
    });
  } catch (error) {
    // Ctrl-C: the same as q.
    if (error instanceof Error && error.name === 'ExitPromptError') result = null;
    else throw error;
  }
  if (result === null) {
    ctx.out.note('Nothing was changed.');
    return EXIT.notConfirmed;
  }
  if ('resume' in result) {
    ctx.out.print(
      result.isPrevious
        ? `Continue the previous session: ${inFolder(result.resume, ctx.root)}`
        : `Continue the other session (${describeResumeRow(result, ctx.deps.now()).replace(/^other session, /, '')}; if it is still open, go on there instead): ${inFolder(result.resume, ctx.root)}`,
    );
    return EXIT.ok;
  }
  const chosen = {
    projectRoot: request.projectRoot,
    sessionId: result.entry.sessionId,
    ref: result.entry.id,
    mode: result.mode,
  };
  if (result.mode !== 'conversation') {
    const { rewindTo } = await import('../app/rewind-menu.js');
    const plan = await rewindTo(ctx.deps, { ...chosen, dryRun: true });
    const conflicts = plan.code?.conflicts ?? [];
    if (conflicts.length > 0) {
      ctx.out.print(
        // A screen's worth, so that the question stays beside the list it asks about.
        [
          ...renderConflicts(conflicts, 15),
          'The current state is snapshotted first, so it can be undone.',
        ].join('\n'),
      );
      // Short, so that its keys stay on its line in an 80-column terminal.
      if (!(await askKey('Restore anyway?'))) {
        ctx.out.note('Nothing was changed.');
        return EXIT.notConfirmed;
      }
    }
  }
  // Choosing the action is the confirmation, as in Claude Code; the undo snapshot is taken first.
  return applyRewind(ctx, chosen, { confirmed: true });
}
