import {
  createPrompt,
  isDownKey,
  isEnterKey,
  isUpKey,
  type KeypressEvent,
  useKeypress,
  usePagination,
  useState,
} from '@inquirer/core';
import { diffSnapshot } from '../app/rewind.js';
import { listRewind, type RewindMode } from '../app/rewind-menu.js';
import { type RewindEntry, resolveRef } from '../core/rewind-refs.js';
import { type RewindAction, renderConflicts, renderRewindEntry, rewindActions } from '../core/rewind-text.js';
import { renderDiff } from '../core/snapshot-text.js';
import type { CliContext } from './context.js';
import { confirm, EXIT } from './output.js';
import { applyRewind } from './rewind-apply.js';

/**
 * The spec's /rewind menu in a terminal: the prompts newest first; `d` shows what restoring the
 * highlighted one would change; Enter opens the numbered actions (a digit picks one, as in Claude
 * Code); Cancel goes back to the list; q or Esc leaves with nothing changed.
 */

interface PickerConfig {
  title: string;
  entries: readonly RewindEntry[];
  now: Date;
  width: number;
  /** Rows for the list: the picker fits a plain 80x24 terminal. */
  pageSize: number;
  bold: (text: string) => string;
  dim: (text: string) => string;
  loadDiff: (entry: RewindEntry) => Promise<string>;
  /** An entry named on the command line: the picker opens on its actions. */
  initial?: number | undefined;
  /** The session before this one (after a /clear): the spec's `/resume <session-id>` entry at the top. */
  previous?: { sessionId: string; resume: string } | undefined;
}

export type PickerResult =
  | { entry: RewindEntry; mode: RewindMode }
  | { sessionId: string; resume: string }
  | null;

type Row = { entry: RewindEntry } | { sessionId: string; resume: string };

type Phase = 'list' | 'menu' | 'diff';

const isQuit = (key: KeypressEvent) => key.name === 'q' || key.name === 'escape';

export const rewindPicker = createPrompt<PickerResult, PickerConfig>((config, done) => {
  const rows: Row[] = [
    ...(config.previous ? [config.previous] : []),
    ...config.entries.map((entry) => ({ entry })),
  ];
  const first = config.previous ? 1 : 0;
  const [active, setActive] = useState(first + (config.initial ?? 0));
  const [phase, setPhase] = useState<Phase>(config.initial === undefined ? 'list' : 'menu');
  const [choice, setChoice] = useState(0);
  const [diff, setDiff] = useState<string | null>(null);
  const row = rows[active] as Row;
  // On the /resume row, the newest prompt stands in where an entry is needed (the menu never opens there).
  const entry = 'entry' in row ? row.entry : (config.entries[0] as RewindEntry);
  const actions = rewindActions(entry);

  const pick = (action: RewindAction | undefined) => {
    if (!action) return;
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
    else if (isUpKey(key)) setActive(Math.max(0, active - 1));
    else if (isDownKey(key)) setActive(Math.min(rows.length - 1, active + 1));
    else if (isEnterKey(key)) {
      if (!('entry' in row)) {
        done(row);
        return;
      }
      setChoice(0);
      setPhase('menu');
    } else if (key.name === 'd' && 'entry' in row) {
      setDiff(null);
      setPhase('diff');
      config.loadDiff(entry).then(
        (text) => setDiff(text),
        (error: unknown) => setDiff(`Could not show the diff: ${String(error)}`),
      );
    }
  });

  const list = usePagination({
    items: rows,
    active,
    pageSize: config.pageSize,
    loop: false,
    renderItem: ({ item, isActive }) => {
      const line =
        'entry' in item
          ? renderRewindEntry(item.entry, config.now, config.width - 2)
          : `/resume ${item.sessionId} (previous session)`;
      return isActive ? config.bold(`❯ ${line}`) : `  ${line}`;
    },
  });
  if (phase === 'diff') {
    const lines = (diff ?? 'Loading the diff…').split('\n');
    const room = config.pageSize + 4;
    const shown = lines.slice(0, room).map((line) => line.slice(0, config.width));
    if (lines.length > room)
      shown.push(config.dim(`… ${lines.length - room} more line(s): claude-checkpoint diff ${entry.id}`));
    return [
      `${config.bold('What restoring the code would change')} (${entry.id})`,
      ...shown,
      config.dim('Any key: back to the list'),
    ].join('\n');
  }
  const header = `${config.bold(config.title)}\n${config.dim('↑↓ move · Enter choose · d diff · q/Esc quit')}`;
  if (phase === 'list') return `${header}\n${list}`;
  const menu = actions.map((action, index) => {
    const line = `${index + 1}. ${action.label}`;
    return index === choice ? config.bold(`❯ ${line}`) : `  ${line}`;
  });
  const prompt = entry.prompt.replace(/\s+/g, ' ');
  return [
    header,
    list,
    '',
    `${config.bold('Rewind to:')} ${prompt.length > config.width - 12 ? `${prompt.slice(0, config.width - 13)}…` : prompt}`,
    ...menu,
    config.dim('A digit picks · Esc back'),
  ].join('\n');
});

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
  const entries = request.all
    ? (listing.sessions ?? []).flatMap((session) => session.entries)
    : listing.entries;
  if (entries.length === 0) {
    ctx.out.print('No prompts recorded for this project yet: nothing to rewind to.');
    return EXIT.ok;
  }
  const width = Math.max(40, Math.min(process.stdout.columns || 80, 120));
  const rows = process.stdout.rows || 24;
  const now = ctx.deps.now();
  const title = request.all
    ? `Rewind: every session of the project (${entries.length} prompts), newest first`
    : `Rewind: session ${listing.sessionId} (${entries.length} prompt(s)), newest first`;
  // latest~N counts the current session's prompts, as without a terminal.
  const named =
    request.ref === undefined
      ? undefined
      : resolveRef(
          request.ref.trim().startsWith('latest') ? listing.entries : entries,
          request.ref,
          'prompt',
          'see them with `claude-checkpoint rewind --list`',
        );
  const initial = named ? entries.findIndex((entry) => entry.id === named.id) : undefined;
  const previous = request.all
    ? undefined
    : listing.sessions?.find((session) => session.sessionId !== listing.sessionId && session.resume !== null);
  let result: PickerResult;
  try {
    result = await rewindPicker({
      title,
      entries,
      now,
      width,
      pageSize: Math.max(3, Math.min(10, rows - 12)),
      initial,
      previous: previous ? { sessionId: previous.sessionId, resume: previous.resume ?? '' } : undefined,
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
    ctx.out.print(`Continue the previous session: ${result.resume}`);
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
      ctx.out.print(renderConflicts(conflicts).join('\n'));
      if (!(await confirm('Restore anyway? The current state is snapshotted first, so it can be undone.'))) {
        ctx.out.note('Nothing was changed.');
        return EXIT.notConfirmed;
      }
    }
  }
  // Choosing the action is the confirmation, as in Claude Code; the undo snapshot is taken first.
  return applyRewind(ctx, chosen, { confirmed: true });
}
