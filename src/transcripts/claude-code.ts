import { readSync } from 'node:fs';
import type { Task, TaskStatus } from '../core/schema.js';
import type { TranscriptCommand, TranscriptRecord } from '../core/transcript.js';
import { readJsonLinesBackward, readJsonLinesForward } from './lines.js';
import { StatusPick } from './status-pick.js';
import {
  type IncrementalState,
  isIncrementalState,
  mapCommonText,
  type ReadResult,
  readIncrementally,
} from './transcript-file.js';

// Claude Code's session transcript: the JSON lines file at a hook payload's `transcript_path`
// (~/.claude/projects/<project>/<session>.jsonl). Each line is one entry: `user` and `assistant` entries
// hold one message each (an assistant's content blocks arrive as entries of their own), with the tool
// calls as `tool_use` blocks and their outcomes as `tool_result` blocks in the next `user` entry; many
// other entry types (attachments, api requests, costs, summaries) are skipped. Recorded in
// test/fixtures/transcripts/ from real sessions of Claude Code 2.1.332.

/** What a read remembers for the next one, kept in our store: the next read starts where this one ended. */
export interface ClaudeTranscriptState extends IncrementalState {
  version: 1;
  /** The latest TodoWrite list. */
  todos?: Task[] | undefined;
  /** The tasks of TaskCreate / TaskUpdate calls, by id. */
  taskItems?: TaskItem[] | undefined;
  /** Which of the two lists the session used last. */
  taskSource?: 'todo' | 'tasks' | undefined;
  status?: string | undefined;
  /** When the entries that set the tasks and the status were written (their `timestamp`). */
  tasksAt?: string | undefined;
  statusAt?: string | undefined;
  /** Whether the newest turn read so far called a tool (see StatusPick). */
  newestTurnWorked?: boolean | undefined;
  /** When the newest turn read so far began: its prompt's `timestamp`. */
  newestTurnAt?: string | undefined;
  files: string[];
  /**
   * The commands this read found (those whose result it read), not every command the session ran: the
   * checkpoint keeps its own list, which a `replace` save may have cut (trial 4: a list kept here put the
   * dropped ones back at the next turn's end, after the newer ones).
   */
  commands: TranscriptCommand[];
  /** Commands whose result was not written yet (still running): taken in once a later read finds it. */
  pending?: PendingCommand[] | undefined;
}

interface PendingCommand {
  id: string;
  command: string;
  description?: string | undefined;
}

interface TaskItem {
  id: string;
  description: string;
  status: TaskStatus | 'deleted';
}

/** Bounds on what a record carries: the checkpoint's own list limits. */
const MAX_FILES = 100;
const MAX_COMMANDS = 50;
const MAX_PENDING = 20;
/** The first prompt is near the start; a file with none in its first megabytes has none to find. */
const GOAL_SEARCH_BYTES = 8 * 1024 * 1024;
/**
 * How far back one read goes. Reads after the first take only what was appended since; a first read of
 * a longer session (tasks from TaskCreate calls make it go back to the start) stops here, so that it
 * costs a second or two once, rather than the hook's whole time budget at every turn.
 */
const MAX_BACKWARD_BYTES = 256 * 1024 * 1024;
/** A tool result or message longer than this is read from its bytes, never parsed whole. */
const PARSE_MAX_BYTES = 256 * 1024;

const EDIT_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);
const TASK_TOOLS = new Set(['TodoWrite', 'TaskCreate', 'TaskUpdate']);
/** Claude Code's shell tools: Bash, and PowerShell (Windows; elsewhere with CLAUDE_CODE_USE_POWERSHELL_TOOL=1). */
const SHELL_TOOLS = new Set(['Bash', 'PowerShell']);
const READ_TOOLS = new Set([...EDIT_TOOLS, ...TASK_TOOLS, ...SHELL_TOOLS]);

/**
 * Reads what a Claude Code session's transcript says, from the end backwards, starting over only when the
 * file is not the one `previous` read (shorter, or other first bytes). Returns `null` when the file cannot
 * be read; a foreign or damaged file yields an empty record (unknown lines are skipped).
 */
export function readClaudeTranscript(
  file: string,
  session: string,
  previous: ClaudeTranscriptState | null,
): ReadResult<ClaudeTranscriptState> | null {
  let filesSinceLastRead: readonly string[] = [];
  const state = readIncrementally(file, previous, {
    version: 1,
    scan: (fd, from, to, known) => scanBackward(fd, from, to, known?.newestTurnWorked === true),
    findGoal: (fd, from, to) => findFirstPrompt(fd, from, to),
    merge: (known, scan, base) => {
      filesSinceLastRead = scan.files;
      return mergeState(known, scan, base);
    },
  });
  return state && { record: claudeRecordOf(state, session), state, filesSinceLastRead };
}

/** A remembered state, when it has the shape this version writes; anything else is read afresh. */
export function claudeStateOrNull(value: unknown): ClaudeTranscriptState | null {
  if (!isRecord(value) || value.version !== 1) return null;
  const isString = (item: unknown) => typeof item === 'string';
  // Statuses go into the checkpoint as they are: only the checkpoint's own (and `deleted`) pass.
  const isTask = (item: unknown) =>
    isRecord(item) &&
    isString(item.description) &&
    taskStatusOf(item.status === 'done' ? 'completed' : item.status) !== undefined;
  const isCommand = (item: unknown) => isRecord(item) && isString(item.command);
  const everyOf = (list: unknown, check: (item: unknown) => boolean) =>
    list === undefined || (Array.isArray(list) && list.every(check));
  const valid =
    isIncrementalState(value) &&
    everyOf(value.todos, isTask) &&
    everyOf(value.taskItems, (item) => isTask(item) && isString((item as TaskItem).id)) &&
    (value.taskSource === undefined || value.taskSource === 'todo' || value.taskSource === 'tasks') &&
    (value.tasksAt === undefined || isString(value.tasksAt)) &&
    (value.statusAt === undefined || isString(value.statusAt)) &&
    (value.newestTurnAt === undefined || isString(value.newestTurnAt)) &&
    Array.isArray(value.files) &&
    everyOf(value.files, isString) &&
    Array.isArray(value.commands) &&
    everyOf(value.commands, isCommand) &&
    everyOf(value.pending, (item) => isCommand(item) && isString((item as PendingCommand).id));
  return valid ? (value as unknown as ClaudeTranscriptState) : null;
}

/**
 * The state with `change` applied to every text it holds (the prompt, the tasks, the status, the
 * commands): what is kept on disk passes through redaction like everything else.
 */
export function mapStateText(
  state: ClaudeTranscriptState,
  change: (text: string) => string,
): ClaudeTranscriptState {
  const task = <T extends { description: string }>(item: T): T => ({
    ...item,
    description: change(item.description),
  });
  return {
    ...mapCommonText(state, change),
    ...(state.todos ? { todos: state.todos.map(task) } : {}),
    ...(state.taskItems ? { taskItems: state.taskItems.map(task) } : {}),
    ...(state.pending
      ? {
          pending: state.pending.map((call) => ({
            ...call,
            command: change(call.command),
            ...(call.description !== undefined ? { description: change(call.description) } : {}),
          })),
        }
      : {}),
  };
}

/** The record a state amounts to. */
export function claudeRecordOf(state: ClaudeTranscriptState, session: string): TranscriptRecord {
  const tasks =
    state.taskSource === 'todo'
      ? state.todos
      : state.taskSource === 'tasks'
        ? (state.taskItems ?? [])
            .filter((item): item is TaskItem & { status: TaskStatus } => item.status !== 'deleted')
            .map(({ description, status }) => ({ description, status }))
        : undefined;
  return {
    session,
    goal: state.goal,
    tasks,
    status: state.status,
    ...(tasks !== undefined && state.tasksAt !== undefined ? { tasksAt: state.tasksAt } : {}),
    ...(state.status !== undefined && state.statusAt !== undefined ? { statusAt: state.statusAt } : {}),
    ...(state.newestTurnWorked !== undefined ? { newestTurnWorked: state.newestTurnWorked } : {}),
    ...(state.newestTurnAt !== undefined ? { newestTurnAt: state.newestTurnAt } : {}),
    files: state.files,
    commands: state.commands,
  };
}

/** What one backward scan of new lines found, newest first where it is a list. */
interface Scan {
  end: number;
  status?: string;
  statusAt?: string;
  /** Whether the newest turn read called a tool (see StatusPick). */
  newestTurnWorked?: boolean;
  /** When the newest turn began (its prompt's `timestamp`), when this scan reached that prompt. */
  newestTurnAt?: string;
  /** Whether this scan reached the newest turn's prompt (with or without a time). */
  reachedTurnStart?: boolean;
  todos?: Task[];
  /** When the newest task call found was written. */
  tasksAt?: string;
  /** TaskCreate / TaskUpdate calls, newest first; only those after the latest TodoWrite. */
  taskEvents: TaskEvent[];
  /** Set when the latest task call found was a TodoWrite (nothing older matters for tasks then). */
  latestIsTodo?: boolean;
  files: string[];
  commands: TranscriptCommand[];
  /** Commands without a result yet, newest first. */
  pending: PendingCommand[];
  outcomes: ToolResults;
}

type TaskEvent =
  | { kind: 'create'; id: string | undefined; description: string }
  | { kind: 'update'; id: string; status?: TaskItem['status']; description?: string };

interface ToolOutcome {
  isError: boolean;
  exitCode?: number;
  interrupted?: boolean;
  taskId?: string;
}

/** `continuedWorked`: the newest turn of the reads before called a tool (this read may end it). */
function scanBackward(fd: number, from: number, to: number, continuedWorked: boolean): Scan {
  // Results come after their calls: going backwards, each is seen first and kept until its call is.
  const outcomes = new ToolResults(fd);
  const scan: Scan = { end: from, taskEvents: [], files: [], commands: [], pending: [], outcomes };
  const seenFiles = new Set<string>();
  const status = new StatusPick();
  scan.end = readJsonLinesBackward(fd, from, to, (line, start, bytes) => {
    // A first read of a gigabyte session reads its last part only (see MAX_BACKWARD_BYTES).
    if (to - start > MAX_BACKWARD_BYTES) return true;
    if (includes(line, '"type":"user"')) {
      if (includes(line, '"tool_result"')) outcomes.add(line, start, bytes);
      // A prompt (or Claude Code's own text in its place): the turn read so far started here.
      else if (!includes(line, '"isSidechain":true')) {
        status.turnStart();
        if (scan.reachedTurnStart !== true) {
          scan.reachedTurnStart = true;
          const at = stringAfter(line, '"timestamp":"');
          if (at !== undefined) scan.newestTurnAt = at;
        }
      }
      return false;
    }
    if (!includes(line, '"type":"assistant"')) return false;
    const wantsText = status.wants && includes(line, '"type":"text"');
    const callsTool = includes(line, '"type":"tool_use"');
    if (!wantsText && !namesToolWeRead(line)) {
      if (callsTool && !includes(line, '"isSidechain":true')) status.work();
      return false;
    }
    const entry = parseEntry(line);
    if (entry?.type !== 'assistant' || entry.isSidechain === true) return false;
    const blocks = contentBlocks(entry.message);
    const at = typeof entry.timestamp === 'string' ? entry.timestamp : undefined;
    for (let index = blocks.length - 1; index >= 0; index--) {
      const block = blocks[index] as Record<string, unknown>;
      if (block.type === 'text' && typeof block.text === 'string') {
        status.text(block.text, at);
      } else if (block.type === 'tool_use' && typeof block.name === 'string') {
        status.work();
        readToolUse(block, outcomes.get(String(block.id)), scan, seenFiles, at);
      }
    }
    // Complete once the status is known and the task list settled (a TodoWrite holds the whole list);
    // TaskCreate calls are read to the start. Commands and files are what was passed on the way.
    // And the newest turn's start is known: a hook's last reply is dated by it.
    return status.status !== undefined && scan.latestIsTodo === true && scan.reachedTurnStart === true;
  });
  const picked = status.finish(continuedWorked);
  if (picked !== undefined) scan.status = picked;
  if (status.statusAt !== undefined) scan.statusAt = status.statusAt;
  if (status.newestTurnWorked !== undefined) scan.newestTurnWorked = status.newestTurnWorked;
  scan.files.reverse();
  scan.commands.reverse();
  scan.pending.reverse();
  return scan;
}

/** `at`: when the call's entry was written. */
function readToolUse(
  block: Record<string, unknown>,
  outcome: ToolOutcome | undefined,
  scan: Scan,
  seenFiles: Set<string>,
  at: string | undefined,
): void {
  const name = block.name as string;
  const input = isRecord(block.input) ? block.input : {};
  if (TASK_TOOLS.has(name)) {
    if (outcome?.isError) return; // the call failed (an unknown tool, a bad id): nothing changed
    // Going backwards, the first task call decides: a TodoWrite holds the whole list (nothing older
    // counts); TaskCreate / TaskUpdate calls build it up, so all of them count, and an older TodoWrite not.
    if (scan.latestIsTodo === true) return;
    // Going backwards, the first task call found is the newest: the list's time is its entry's.
    if (scan.latestIsTodo === undefined && at !== undefined) scan.tasksAt = at;
    if (name === 'TodoWrite') {
      if (scan.latestIsTodo === false) return;
      scan.latestIsTodo = true;
      scan.todos = todosOf(input.todos);
      return;
    }
    scan.latestIsTodo = false;
    if (name === 'TaskCreate' && typeof input.subject === 'string')
      scan.taskEvents.push({ kind: 'create', id: outcome?.taskId, description: input.subject });
    if (name === 'TaskUpdate' && (typeof input.taskId === 'string' || typeof input.taskId === 'number')) {
      const status = taskStatusOf(input.status);
      scan.taskEvents.push({
        kind: 'update',
        id: String(input.taskId),
        ...(status ? { status } : {}),
        ...(typeof input.subject === 'string' ? { description: input.subject } : {}),
      });
    }
    return;
  }
  if (EDIT_TOOLS.has(name)) {
    const target = input.file_path ?? input.notebook_path;
    if (typeof target !== 'string' || outcome?.isError || seenFiles.has(target)) return;
    seenFiles.add(target);
    if (scan.files.length < MAX_FILES) scan.files.push(target);
    return;
  }
  if (SHELL_TOOLS.has(name) && typeof input.command === 'string' && scan.commands.length < MAX_COMMANDS) {
    const description = typeof input.description === 'string' ? input.description : undefined;
    if (!outcome) {
      if (typeof block.id === 'string')
        scan.pending.push({ id: block.id, command: input.command, description });
      return;
    }
    const command = commandOf(
      input.command,
      description,
      outcome,
      typeof block.id === 'string' ? block.id : undefined,
    );
    if (command) scan.commands.push(command);
  }
}

/** A command and how it ended; none for a call refused or failed before it ran (an error without an exit code). */
function commandOf(
  command: string,
  description: string | undefined,
  outcome: ToolOutcome,
  callId: string | undefined,
): TranscriptCommand | undefined {
  if (outcome.isError && outcome.exitCode === undefined) return undefined;
  const notes = [description, outcome.interrupted ? 'interrupted' : undefined].filter(
    (note): note is string => note !== undefined && note !== '',
  );
  return {
    command,
    exitCode: outcome.exitCode ?? 0,
    ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
    ...(callId !== undefined ? { callId } : {}),
  };
}

/** Whether an entry calls one of the tools a record is made from (by name, from the bytes). */
function namesToolWeRead(line: Buffer): boolean {
  for (let at = line.indexOf('"name":"'); at !== -1; at = line.indexOf('"name":"', at + 8)) {
    const end = line.indexOf('"', at + 8);
    if (end !== -1 && end - at < 40 && READ_TOOLS.has(line.toString('latin1', at + 8, end))) return true;
  }
  return false;
}

/**
 * The tool results seen so far, by tool call id. Most results are never needed (reads, searches: the
 * bulk of a transcript), so a result is only located when seen, and parsed when its call asks for it.
 */
class ToolResults {
  private readonly byId = new Map<string, ToolOutcome | { start: number; length: number }>();

  constructor(private readonly fd: number) {}

  /** `bytes`: the line's length in the file, where it is read again from. */
  add(line: Buffer, start: number, bytes: number): void {
    for (const id of toolUseIds(line)) {
      if (this.byId.has(id)) continue;
      // A huge result (a long output) is read from its bytes now rather than read again and parsed.
      this.byId.set(id, line.length > PARSE_MAX_BYTES ? outcomeFromBytes(line) : { start, length: bytes });
    }
  }

  get(id: string): ToolOutcome | undefined {
    const known = this.byId.get(id);
    if (known === undefined || 'isError' in known) return known;
    const line = Buffer.alloc(known.length);
    readSync(this.fd, line, 0, known.length, known.start);
    const parsed = outcomesOf(line);
    for (const [other, outcome] of parsed) this.byId.set(other, outcome);
    const outcome = parsed.get(id) ?? { isError: false };
    this.byId.set(id, outcome);
    return outcome;
  }
}

/** The string value after `key` (a compact JSON key and its opening quote) in a line, when short and plain. */
function stringAfter(line: Buffer, key: string): string | undefined {
  const at = line.indexOf(key);
  if (at === -1) return undefined;
  const end = line.indexOf('"', at + key.length);
  return end !== -1 && end - at - key.length <= 64 ? line.toString('utf8', at + key.length, end) : undefined;
}

function toolUseIds(line: Buffer): string[] {
  const ids: string[] = [];
  const key = '"tool_use_id":"';
  for (let at = line.indexOf(key); at !== -1; at = line.indexOf(key, at + key.length)) {
    const end = line.indexOf('"', at + key.length);
    if (end !== -1 && end - at - key.length <= 200) ids.push(line.toString('utf8', at + key.length, end));
  }
  return ids;
}

/** The outcomes of the tool results in one `user` entry. */
function outcomesOf(line: Buffer): Map<string, ToolOutcome> {
  const outcomes = new Map<string, ToolOutcome>();
  const entry = parseEntry(line);
  if (entry?.type !== 'user') return outcomes;
  const result = isRecord(entry.toolUseResult) ? entry.toolUseResult : undefined;
  for (const block of contentBlocks(entry.message)) {
    if (!isRecord(block) || block.type !== 'tool_result' || typeof block.tool_use_id !== 'string') continue;
    const isError = block.is_error === true;
    const text = typeof block.content === 'string' ? block.content : firstText(block.content);
    const task = isRecord(result?.task) ? result.task : undefined;
    outcomes.set(block.tool_use_id, {
      isError,
      ...exitCodeOf(isError, text),
      ...(result?.interrupted === true ? { interrupted: true } : {}),
      ...(task && (typeof task.id === 'string' || typeof task.id === 'number')
        ? { taskId: String(task.id) }
        : taskIdOf(text)),
    });
  }
  return outcomes;
}

/** A large result's outcome from its bytes: whether it failed, and its exit code from the start of its content. */
function outcomeFromBytes(line: Buffer): ToolOutcome {
  const isError = includes(line, '"is_error":true');
  const content = line.indexOf('"content":');
  const head = content === -1 ? '' : line.toString('utf8', content, content + 300);
  return { isError, ...exitCodeOf(isError, head) };
}

/** Claude Code words a failing command's result "Exit code N" then its output. */
function exitCodeOf(isError: boolean, text: string | undefined): { exitCode?: number } {
  if (!isError) return {};
  const match = /Exit code (-?\d+)/.exec((text ?? '').slice(0, 200));
  return match?.[1] === undefined ? {} : { exitCode: Number(match[1]) };
}

function taskIdOf(text: string | undefined): { taskId?: string } {
  const match = /^Task #(\S+) created/.exec(text ?? '');
  return match?.[1] === undefined ? {} : { taskId: match[1] };
}

function todosOf(value: unknown): Task[] {
  if (!Array.isArray(value)) return [];
  const tasks: Task[] = [];
  for (const todo of value) {
    if (!isRecord(todo) || typeof todo.content !== 'string') continue;
    const status = taskStatusOf(todo.status);
    if (status && status !== 'deleted') tasks.push({ description: todo.content, status });
  }
  return tasks;
}

function taskStatusOf(value: unknown): TaskItem['status'] | undefined {
  switch (value) {
    case 'pending':
      return 'pending';
    case 'in_progress':
      return 'in_progress';
    case 'completed':
      return 'done';
    case 'deleted':
      return 'deleted';
    default:
      return undefined;
  }
}

/**
 * The session's first real prompt: a `user` entry the person typed, not a tool result, not a slash
 * command or its output, not text a hook or Claude Code itself put in (meta entries, reminders, a
 * compaction's summary).
 */
function findFirstPrompt(fd: number, from: number, to: number): { goal?: string; searchedTo: number } {
  let goal: string | undefined;
  const searchedTo = readJsonLinesForward(fd, from, to, GOAL_SEARCH_BYTES, (line) => {
    if (!includes(line, '"type":"user"') || line.length > PARSE_MAX_BYTES * 4) return false;
    const entry = parseEntry(line);
    if (entry?.type !== 'user' || entry.isMeta === true || entry.isSidechain === true) return false;
    if (entry.isCompactSummary === true || entry.isVisibleInTranscriptOnly === true) return false;
    const message = isRecord(entry.message) ? entry.message : undefined;
    const content = message?.content;
    const texts: string[] = [];
    if (typeof content === 'string') texts.push(content);
    else if (Array.isArray(content)) {
      if (content.some((block) => isRecord(block) && block.type === 'tool_result')) return false;
      for (const block of content)
        if (isRecord(block) && block.type === 'text' && typeof block.text === 'string')
          texts.push(block.text);
    }
    const typed = typedPrompt(texts.join('\n'));
    if (typed === undefined) return false;
    goal = typed;
    return true;
  });
  return goal === undefined ? { searchedTo } : { goal, searchedTo };
}

/** What a person typed: without the tags Claude Code and hooks wrap their own text in; not a slash command. */
export function typedPrompt(text: string): string | undefined {
  const rest = text
    .replace(
      /<(system-reminder|command-name|command-message|command-args|local-command-stdout|local-command-stderr|local-command-caveat|user-prompt-submit-hook|bash-input|bash-stdout|bash-stderr)>[\s\S]*?<\/\1>/g,
      '',
    )
    .trim();
  if (rest === '' || rest.startsWith('/') || rest.startsWith('<')) return undefined;
  if (rest.startsWith('[Request interrupted by user')) return undefined;
  return rest;
}

function mergeState(
  known: ClaudeTranscriptState | null,
  scan: Scan,
  base: Pick<ClaudeTranscriptState, 'offset' | 'fingerprint' | 'goalSearchedTo' | 'goal'>,
): ClaudeTranscriptState {
  let todos = known?.todos;
  let taskSource = known?.taskSource;
  let taskItems = known?.taskItems?.map((item) => ({ ...item }));
  // A task call in this scan sets the list: its time with it (none when its entry has none).
  const tasksAt = scan.latestIsTodo !== undefined ? scan.tasksAt : known?.tasksAt;
  const statusAt = scan.status !== undefined ? scan.statusAt : known?.statusAt;
  if (scan.latestIsTodo === true) {
    todos = scan.todos;
    taskSource = 'todo';
  } else if (scan.taskEvents.length > 0) {
    taskItems = applyTaskEvents(taskItems ?? [], [...scan.taskEvents].reverse());
    taskSource = 'tasks';
  }
  const files = [...(known?.files ?? []).filter((file) => !scan.files.includes(file)), ...scan.files];
  // Commands that were still running at the last read, and have their result now.
  const answered: TranscriptCommand[] = [];
  const pending: PendingCommand[] = [];
  for (const call of known?.pending ?? []) {
    const outcome = scan.outcomes.get(call.id);
    if (!outcome) pending.push(call);
    else {
      const command = commandOf(call.command, call.description, outcome, call.id);
      if (command) answered.push(command);
    }
  }
  pending.push(...scan.pending);
  return {
    version: 1,
    ...base,
    ...(todos ? { todos } : {}),
    ...(taskItems ? { taskItems } : {}),
    ...(taskSource ? { taskSource } : {}),
    status: scan.status ?? known?.status,
    ...(tasksAt !== undefined ? { tasksAt } : {}),
    ...(statusAt !== undefined ? { statusAt } : {}),
    ...((scan.newestTurnWorked ?? known?.newestTurnWorked) !== undefined
      ? { newestTurnWorked: scan.newestTurnWorked ?? known?.newestTurnWorked }
      : {}),
    // A scan that found a newer prompt has the newest turn's start; one that did not continues the turn.
    ...((scan.reachedTurnStart === true ? scan.newestTurnAt : known?.newestTurnAt) !== undefined
      ? { newestTurnAt: scan.reachedTurnStart === true ? scan.newestTurnAt : known?.newestTurnAt }
      : {}),
    files: files.slice(-MAX_FILES),
    commands: [...answered, ...scan.commands].slice(-MAX_COMMANDS),
    ...(pending.length > 0 ? { pending: pending.slice(-MAX_PENDING) } : {}),
  };
}

function applyTaskEvents(items: TaskItem[], events: readonly TaskEvent[]): TaskItem[] {
  for (const event of events) {
    if (event.kind === 'create') {
      // Claude Code numbers tasks from 1 in the order they are created.
      const id = event.id ?? String(items.length + 1);
      items.push({ id, description: event.description, status: 'pending' });
      continue;
    }
    const item = items.find((candidate) => candidate.id === event.id);
    if (!item) continue;
    if (event.status) item.status = event.status;
    if (event.description) item.description = event.description;
  }
  return items;
}

function parseEntry(line: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line.toString('utf8'));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined; // not JSON (a foreign file): skipped
  }
}

function contentBlocks(message: unknown): unknown[] {
  if (!isRecord(message)) return [];
  const content = message.content;
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content : [];
}

function firstText(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  for (const part of content) if (isRecord(part) && typeof part.text === 'string') return part.text;
  return undefined;
}

function includes(line: Buffer, text: string): boolean {
  return line.indexOf(text) !== -1;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
