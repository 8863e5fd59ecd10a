import { TASK_STATUSES, type Task } from '../core/schema.js';
import type { TranscriptCommand, TranscriptRecord } from '../core/transcript.js';
import { readJsonLinesForward } from './lines.js';
import {
  type IncrementalState,
  isIncrementalState,
  mapCommonText,
  type ReadResult,
  readIncrementally,
} from './transcript-file.js';

// What the readers of agents whose task tool writes the whole list at once (Codex's update_plan, Gemini
// CLI's write_todos) remember between reads, and the steps they share: open the file safely, start over
// when it is another file, search the first prompt forwards once, merge a backward scan of the new lines.

/** What a read remembers for the next one, kept in our store: the next read starts where this one ended. */
export interface ListTranscriptState extends IncrementalState {
  version: 1;
  /** The latest task list the agent wrote. */
  tasks?: Task[] | undefined;
  status?: string | undefined;
  /** When the entries that wrote the task list and the status were written, where the format says. */
  tasksAt?: string | undefined;
  statusAt?: string | undefined;
  /** Whether the newest turn read so far called a tool (see StatusPick). */
  newestTurnWorked?: boolean | undefined;
  files: string[];
  /**
   * The commands this read found, not every command of the session: the checkpoint keeps its own list,
   * which a `replace` save may have cut (see ClaudeTranscriptState).
   */
  commands: TranscriptCommand[];
  /** Tool calls already taken in: a call read again (a message rewritten, a range read again) counts once. */
  calls: string[];
}

/** What one backward scan of new lines found. */
export interface ListScan {
  /** Where the next read starts. */
  end: number;
  status?: string | undefined;
  statusAt?: string | undefined;
  /** Whether the newest turn in the lines scanned called a tool; `undefined` when they hold no turn's start or call. */
  newestTurnWorked?: boolean | undefined;
  /** The latest task list in the lines scanned, if any. */
  tasks?: Task[] | undefined;
  tasksAt?: string | undefined;
  /** Oldest first. */
  files: string[];
  /** Oldest first, with the id of the call each came from. */
  commands: Array<TranscriptCommand & { id: string }>;
}

/** Bounds on what a record carries: the checkpoint's own list limits. */
const MAX_FILES = 100;
const MAX_COMMANDS = 50;
const MAX_CALLS = 400;
/** The first prompt is near the start; a file with none in its first megabytes has none to find. */
const GOAL_SEARCH_BYTES = 8 * 1024 * 1024;

/**
 * Reads a transcript with `scan` (the new lines, backwards) and `findGoal` (the first prompt, forwards,
 * once), starting over when the file is not the one `previous` read. Returns `null` when the file cannot
 * be read; a foreign or damaged file yields an empty record.
 */
export function readListTranscript(
  file: string,
  session: string,
  previous: ListTranscriptState | null,
  parts: {
    /** `continuedWorked`: the newest turn of the reads before called a tool (this read may end it). */
    scan: (
      fd: number,
      from: number,
      to: number,
      known: ReadonlySet<string>,
      continuedWorked: boolean,
    ) => ListScan;
    isPrompt: (line: Buffer) => string | undefined;
  },
): ReadResult<ListTranscriptState> | null {
  let filesSinceLastRead: readonly string[] = [];
  const state = readIncrementally(file, previous, {
    version: 1,
    scan: (fd, from, to, known) =>
      parts.scan(fd, from, to, new Set(known?.calls ?? []), known?.newestTurnWorked === true),
    findGoal: (fd, from, to) => {
      let goal: string | undefined;
      const searchedTo = readJsonLinesForward(fd, from, to, GOAL_SEARCH_BYTES, (line) => {
        goal = parts.isPrompt(line);
        return goal !== undefined;
      });
      return { goal, searchedTo };
    },
    merge: (known, scan, base) => {
      filesSinceLastRead = scan.files;
      return mergeListState(known, scan, base);
    },
  });
  return state && { record: listRecordOf(state, session), state, filesSinceLastRead };
}

function mergeListState(
  known: ListTranscriptState | null,
  scan: ListScan,
  base: Pick<ListTranscriptState, 'offset' | 'fingerprint' | 'goalSearchedTo' | 'goal'>,
): ListTranscriptState {
  const calls = new Set(known?.calls ?? []);
  const commands: TranscriptCommand[] = [];
  for (const { id, ...command } of scan.commands) {
    if (calls.has(id)) continue;
    calls.add(id);
    commands.push({ ...command, callId: id });
  }
  const files = [...(known?.files ?? []).filter((file) => !scan.files.includes(file)), ...scan.files];
  const tasks = scan.tasks ?? known?.tasks;
  const status = scan.status ?? known?.status;
  // A list or status found in this scan comes with its own time (none when its entry has none).
  const tasksAt = scan.tasks !== undefined ? scan.tasksAt : known?.tasksAt;
  const statusAt = scan.status !== undefined ? scan.statusAt : known?.statusAt;
  const newestTurnWorked = scan.newestTurnWorked ?? known?.newestTurnWorked;
  return {
    version: 1,
    ...base,
    ...(base.goal === undefined ? {} : { goal: base.goal }),
    ...(tasks ? { tasks } : {}),
    ...(status === undefined ? {} : { status }),
    ...(tasks && tasksAt !== undefined ? { tasksAt } : {}),
    ...(status !== undefined && statusAt !== undefined ? { statusAt } : {}),
    ...(newestTurnWorked === undefined ? {} : { newestTurnWorked }),
    files: files.slice(-MAX_FILES),
    commands: commands.slice(-MAX_COMMANDS),
    calls: [...calls].slice(-MAX_CALLS),
  };
}

export function listRecordOf(state: ListTranscriptState, session: string): TranscriptRecord {
  return {
    session,
    goal: state.goal,
    tasks: state.tasks,
    status: state.status,
    ...(state.tasksAt === undefined ? {} : { tasksAt: state.tasksAt }),
    ...(state.statusAt === undefined ? {} : { statusAt: state.statusAt }),
    ...(state.newestTurnWorked === undefined ? {} : { newestTurnWorked: state.newestTurnWorked }),
    files: state.files,
    commands: state.commands,
  };
}

/** A remembered state, when it has the shape this version writes; anything else is read afresh. */
export function listStateOrNull(value: unknown): ListTranscriptState | null {
  if (!isRecord(value) || value.version !== 1) return null;
  const isString = (item: unknown) => typeof item === 'string';
  const isTask = (item: unknown) =>
    isRecord(item) &&
    isString(item.description) &&
    (TASK_STATUSES as readonly unknown[]).includes(item.status);
  const isCommand = (item: unknown) =>
    isRecord(item) &&
    isString(item.command) &&
    (item.exitCode === undefined || Number.isSafeInteger(item.exitCode)) &&
    (item.note === undefined || isString(item.note));
  const everyOf = (list: unknown, check: (item: unknown) => boolean) =>
    Array.isArray(list) && list.every(check);
  const valid =
    isIncrementalState(value) &&
    (value.tasks === undefined || everyOf(value.tasks, isTask)) &&
    (value.tasksAt === undefined || isString(value.tasksAt)) &&
    (value.statusAt === undefined || isString(value.statusAt)) &&
    everyOf(value.files, isString) &&
    everyOf(value.commands, isCommand) &&
    everyOf(value.calls, isString);
  return valid ? (value as unknown as ListTranscriptState) : null;
}

/** The state with `change` applied to every text it holds: what is kept on disk is redacted too. */
export function mapListStateText(
  state: ListTranscriptState,
  change: (text: string) => string,
): ListTranscriptState {
  return {
    ...mapCommonText(state, change),
    ...(state.tasks
      ? { tasks: state.tasks.map((task) => ({ ...task, description: change(task.description) })) }
      : {}),
  };
}

/**
 * What a person typed, from a text an agent recorded as the user's: without the context blocks agents
 * and hooks put before it (`<environment_context>`, `<hook_context>`, ...); `undefined` for a slash
 * command, help, or nothing left.
 */
export function typedText(text: string): string | undefined {
  const rest = text.replace(/^(?:\s*<([\w-]+)>[\s\S]*?<\/\1>)+/, '').trim();
  if (rest === '' || rest.startsWith('/') || rest.startsWith('?') || rest.startsWith('<')) return undefined;
  return rest;
}

/**
 * A task list as a todo tool wrote it (Codex's plan, `{ step, status }`; Gemini CLI's todos,
 * `{ description, status }`), as checkpoint tasks; items without text or with a status no longer to do
 * are left out.
 */
export function tasksOf(value: unknown, textField: 'step' | 'description'): Task[] {
  if (!Array.isArray(value)) return [];
  const tasks: Task[] = [];
  for (const item of value) {
    if (!isRecord(item) || typeof item[textField] !== 'string') continue;
    const status = todoStatusOf(item.status);
    if (status) tasks.push({ description: item[textField], status });
  }
  return tasks;
}

/** Status words of todo tools mapped to the checkpoint's; `undefined` for a task no longer to do. */
export function todoStatusOf(value: unknown): Task['status'] | undefined {
  switch (value) {
    case 'pending':
      return 'pending';
    case 'in_progress':
      return 'in_progress';
    case 'completed':
      return 'done';
    case 'blocked':
      return 'blocked';
    default:
      return undefined; // cancelled, or unknown
  }
}

export function parseLine(line: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line.toString('utf8'));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined; // not JSON (a foreign file): skipped
  }
}

export function includes(line: Buffer, text: string): boolean {
  return line.indexOf(text) !== -1;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
