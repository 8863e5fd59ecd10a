import { readSync } from 'node:fs';
import type { Task, TaskStatus } from '../core/schema.js';
import { copilotShellOutcome } from '../core/shell-trailer.js';
import type { TranscriptCommand, TranscriptRecord } from '../core/transcript.js';
import { typedPrompt } from './claude-code.js';
import { compactJsonText, readFileTail, readJsonLinesBackward, readJsonLinesForward } from './lines.js';
import { StatusPick } from './status-pick.js';
import { applyTodoSql, type SqlTodo } from './todo-sql.js';
import {
  type IncrementalState,
  isIncrementalState,
  mapCommonText,
  type ReadResult,
  readIncrementally,
} from './transcript-file.js';

// Copilot CLI's session events: ~/.copilot/session-state/<session id>/events.jsonl (the `transcript_path`
// of its Stop hook), one event a line, `{"type":…,"data":{…},"id":…,"timestamp":…,"parentId":…}`, as
// its published schema describes (schemas/session-events.schema.json in the CLI's package, 1.0.102).
// Read here: `user.message` (data.content is what the person typed; `source` marks injected messages),
// `assistant.message` (data.content, the text; sub-agents' carry `parentToolCallId`),
// `tool.execution_start` (toolName, arguments) and `tool.execution_complete` (success,
// shellExecution.exitCode, fileEdits), and `session.snapshot_rewind` (events removed). The todo list
// is a table the model writes with its `sql` tool (see todo-sql.ts). Recorded in test/fixtures/transcripts/.

/** What a read remembers for the next one, kept in our store. */
export interface CopilotTranscriptState extends IncrementalState {
  version: 1;
  /** The todos table as the `sql` calls read so far left it; `undefined` while none touched it. */
  todos?: SqlTodo[] | undefined;
  status?: string | undefined;
  /** When the `sql` call that last changed the todos, and the reply that is the status, were made. */
  tasksAt?: string | undefined;
  statusAt?: string | undefined;
  /** Whether the newest turn read so far called a tool (see StatusPick). */
  newestTurnWorked?: boolean | undefined;
  files: string[];
  /** The commands this read found, not every command of the session (see ClaudeTranscriptState). */
  commands: TranscriptCommand[];
  /** Calls without a result yet, taken in once a later read finds it. */
  pending?: PendingCall[] | undefined;
}

interface Query {
  query: string;
  at?: string | undefined;
}

/** A shell command, an `sql` call (its query in `command`) or an edit (its path in `command`). */
interface PendingCall {
  id: string;
  tool?: 'sql' | 'edit' | undefined;
  command: string;
  description?: string | undefined;
  /** When the call was made (its event's timestamp). */
  at?: string | undefined;
}

interface Outcome {
  success: boolean;
  exitCode?: number;
  files: string[];
}

const MAX_FILES = 100;
const MAX_COMMANDS = 50;
const MAX_PENDING = 20;
const MAX_TODOS = 200;
const GOAL_SEARCH_BYTES = 8 * 1024 * 1024;
const MAX_BACKWARD_BYTES = 256 * 1024 * 1024;
/** Lines longer than this (a tool's huge output) are never parsed: the exit code is read from their bytes. */
const PARSE_MAX_BYTES = 256 * 1024;

const SHELL_TOOLS = new Set(['bash', 'powershell']);
const EDIT_TOOLS = new Set(['create', 'edit', 'str_replace_editor', 'write']);
const SQL_TOOL = 'sql';
const READ_TYPES = new Set([
  'user.message',
  'assistant.message',
  'tool.execution_start',
  'tool.execution_complete',
  'session.snapshot_rewind',
]);

/**
 * Reads what a Copilot CLI session's events say, from the end backwards, starting over when the file is
 * not the one `previous` read. Returns `null` when the file cannot be read; unknown lines are skipped.
 */
export function readCopilotTranscript(
  file: string,
  session: string,
  previous: CopilotTranscriptState | null,
): ReadResult<CopilotTranscriptState> | null {
  let filesSinceLastRead: readonly string[] = [];
  const state = readIncrementally(file, previous, {
    version: 1,
    scan: (fd, from, to, known) => scanBackward(fd, from, to, known?.newestTurnWorked === true),
    // A rewind removed events a read before took in: read the whole file again.
    rewound: (scan) => scan.rewound,
    findGoal: (fd, from, to, scan) => findFirstPrompt(fd, from, to, scan.removed),
    merge: (known, scan, base) =>
      mergeState(known, scan, base, (files) => {
        filesSinceLastRead = files;
      }),
  });
  return state && { record: copilotRecordOf(state, session), state, filesSinceLastRead };
}

/** A remembered state, when it has the shape this version writes; anything else is read afresh. */
export function copilotStateOrNull(value: unknown): CopilotTranscriptState | null {
  if (!isRecord(value) || value.version !== 1) return null;
  const isString = (item: unknown) => typeof item === 'string';
  const everyOf = (list: unknown, check: (item: unknown) => boolean) =>
    list === undefined || (Array.isArray(list) && list.every(check));
  const isTodo = (item: unknown) =>
    isRecord(item) && isString(item.id) && isString(item.title) && isString(item.status);
  const isCommand = (item: unknown) => isRecord(item) && isString(item.command);
  const valid =
    isIncrementalState(value) &&
    everyOf(value.todos, isTodo) &&
    (value.tasksAt === undefined || isString(value.tasksAt)) &&
    (value.statusAt === undefined || isString(value.statusAt)) &&
    Array.isArray(value.files) &&
    everyOf(value.files, isString) &&
    Array.isArray(value.commands) &&
    everyOf(value.commands, isCommand) &&
    everyOf(
      value.pending,
      (item) =>
        isCommand(item) &&
        isString((item as PendingCall).id) &&
        ((item as PendingCall).at === undefined || isString((item as PendingCall).at)) &&
        [undefined, 'sql', 'edit'].includes((item as PendingCall).tool),
    );
  return valid ? (value as unknown as CopilotTranscriptState) : null;
}

/** The state with `change` applied to every text it holds (redaction, before it is kept). */
export function mapCopilotStateText(
  state: CopilotTranscriptState,
  change: (text: string) => string,
): CopilotTranscriptState {
  return {
    ...mapCommonText(state, change),
    ...(state.todos
      ? {
          todos: state.todos.map((todo) => ({
            ...todo,
            title: change(todo.title),
            ...(todo.description !== undefined ? { description: change(todo.description) } : {}),
          })),
        }
      : {}),
    ...(state.pending
      ? {
          pending: state.pending.map((call) => ({
            ...call,
            // A pending edit's path is not text to redact: it is matched against the file written.
            command: call.tool === 'edit' ? call.command : change(call.command),
            ...(call.description !== undefined ? { description: change(call.description) } : {}),
          })),
        }
      : {}),
  };
}

/** The record a state amounts to. */
export function copilotRecordOf(state: CopilotTranscriptState, session: string): TranscriptRecord {
  return {
    session,
    goal: state.goal,
    tasks: state.todos?.map(taskOf).filter((task): task is Task => task !== undefined),
    status: state.status,
    ...(state.todos && state.tasksAt !== undefined ? { tasksAt: state.tasksAt } : {}),
    ...(state.status !== undefined && state.statusAt !== undefined ? { statusAt: state.statusAt } : {}),
    ...(state.newestTurnWorked !== undefined ? { newestTurnWorked: state.newestTurnWorked } : {}),
    files: state.files,
    commands: state.commands,
  };
}

/** A todo as a checkpoint task: its title (the headline), else its description. */
function taskOf(todo: SqlTodo): Task | undefined {
  const description = todo.title.trim() || todo.description?.trim() || '';
  if (description === '') return undefined;
  return { description, status: statusOf(todo.status) };
}

function statusOf(status: string): TaskStatus {
  switch (status.trim().toLowerCase()) {
    case 'in_progress':
    case 'in-progress':
      return 'in_progress';
    case 'done':
    case 'completed':
    case 'complete':
      return 'done';
    case 'blocked':
      return 'blocked';
    default:
      return 'pending';
  }
}

interface Scan {
  end: number;
  status?: string;
  statusAt?: string;
  /** Whether the newest turn read called a tool (see StatusPick). */
  newestTurnWorked?: boolean;
  /** SQL of successful `sql` calls, newest first, with when each was made. */
  queries: Query[];
  files: string[];
  commands: TranscriptCommand[];
  pending: PendingCall[];
  outcomes: Outcomes;
  /** A rewind is in this range: it may remove events a read before took in. */
  rewound: boolean;
  /** Ids of events a rewind removed (for the goal search). */
  removed: Set<string>;
}

/** `continuedWorked`: the newest turn of the reads before called a tool (this read may end it). */
function scanBackward(fd: number, from: number, to: number, continuedWorked: boolean): Scan {
  const scan: Scan = {
    end: from,
    queries: [],
    files: [],
    commands: [],
    pending: [],
    outcomes: new Outcomes(fd),
    rewound: false,
    removed: new Set(),
  };
  const seenFiles = new Set<string>();
  const calls = new Set<string>();
  const status = new StatusPick();
  // Events a rewind removed: listed by id, or every event back to (and including) the first one removed.
  let skipUntil: string | undefined;
  scan.end = readJsonLinesBackward(fd, from, to, (line, start, bytes) => {
    if (to - start > MAX_BACKWARD_BYTES) return true;
    if (skipUntil !== undefined || scan.removed.size > 0) {
      const id = eventIdOf(line);
      if (id !== undefined && (skipUntil !== undefined || scan.removed.has(id))) {
        if (id === skipUntil) skipUntil = undefined;
        scan.removed.add(id);
        return false;
      }
    }
    const type = typeOf(line);
    if (type === undefined || !READ_TYPES.has(type)) return false;
    if (type === 'tool.execution_complete') {
      // Most results are never needed (views, searches: the bulk of a session): a result is parsed when
      // its call asks for it, unless it lists files written (fileEdits), which count whatever the tool.
      if (line.length <= PARSE_MAX_BYTES && includes(line, '"fileEdits":[')) {
        const outcome = outcomeOf(parseEvent(line));
        if (outcome) {
          scan.outcomes.set(outcome.id, outcome.outcome);
          for (const file of outcome.outcome.files) addFile(scan, seenFiles, file);
        }
      } else scan.outcomes.add(line, start, bytes);
      return false;
    }
    if (type === 'user.message') {
      // A turn starts at what the person typed (a sub-agent's or an injected message does not start one).
      if (!includes(line, '"agentId"') && !includes(line, '"isAutopilotContinuation":true')) {
        const source = stringAfter(line, '"source":"');
        if (source === undefined || source === '' || source === 'user') status.turnStart();
      }
      return false;
    }
    if (type === 'assistant.message') {
      if (!status.wants || !includes(line, '"content":"') || line.length > PARSE_MAX_BYTES * 4) return false;
      const event = parseEvent(line);
      const data = dataOf(event);
      if (!data || typeof data.parentToolCallId === 'string') return false;
      if (typeof data.content === 'string') status.text(data.content, timeOf(event));
      return false;
    }
    if (type === 'tool.execution_start') {
      if (!includes(line, '"parentToolCallId"')) status.work();
      const name = stringAfter(line, '"toolName":"');
      if (name !== undefined && !SHELL_TOOLS.has(name) && !EDIT_TOOLS.has(name) && name !== SQL_TOOL)
        return false;
    }
    const event = parseEvent(line);
    const data = dataOf(event);
    if (!data) return false;
    if (type === 'session.snapshot_rewind') {
      scan.rewound = true;
      const ids = Array.isArray(data.eventIds) ? data.eventIds.filter((id) => typeof id === 'string') : [];
      if (ids.length > 0) for (const id of ids) scan.removed.add(id);
      else if (typeof data.upToEventId === 'string') skipUntil = data.upToEventId;
      return false;
    }
    // tool.execution_start
    if (typeof data.toolCallId !== 'string' || typeof data.toolName !== 'string') return false;
    if (typeof data.parentToolCallId === 'string' || calls.has(data.toolCallId)) return false;
    calls.add(data.toolCallId);
    readToolStart(data, scan.outcomes.get(data.toolCallId), scan, seenFiles, timeOf(event));
    return false;
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

function readToolStart(
  data: Record<string, unknown>,
  outcome: Outcome | undefined,
  scan: Scan,
  seenFiles: Set<string>,
  at: string | undefined,
): void {
  const name = data.toolName as string;
  const args = isRecord(data.arguments) ? data.arguments : {};
  const id = data.toolCallId as string;
  if (name === SQL_TOOL) {
    if (typeof args.query !== 'string') return;
    if (!outcome) scan.pending.push({ id, tool: 'sql', command: args.query, ...(at ? { at } : {}) });
    else if (outcome.success) scan.queries.push({ query: args.query, at });
    return;
  }
  if (EDIT_TOOLS.has(name)) {
    if (typeof args.path !== 'string') return;
    if (!outcome) scan.pending.push({ id, tool: 'edit', command: args.path });
    // Versions that list the files written (fileEdits) took them in with the outcome.
    else if (outcome.success && outcome.files.length === 0) addFile(scan, seenFiles, args.path);
    return;
  }
  if (!SHELL_TOOLS.has(name) || typeof args.command !== 'string') return;
  if (scan.commands.length >= MAX_COMMANDS) return;
  const description = typeof args.description === 'string' ? args.description : undefined;
  if (!outcome) {
    scan.pending.push({ id, command: args.command, description });
    return;
  }
  const command = commandOf(args.command, description, outcome, id);
  if (command) scan.commands.push(command);
}

/**
 * A command and how it ended. A failed call without an exit code never ran (refused, bad arguments): none.
 * A call that succeeded without one was left running in the background: its outcome is unknown.
 */
function commandOf(
  command: string,
  description: string | undefined,
  outcome: Outcome,
  callId: string,
): TranscriptCommand | undefined {
  if (!outcome.success && outcome.exitCode === undefined) return undefined;
  return {
    command,
    ...(outcome.exitCode !== undefined ? { exitCode: outcome.exitCode } : {}),
    ...(description ? { note: description } : {}),
    callId,
  };
}

function addFile(scan: Scan, seen: Set<string>, file: string): void {
  if (seen.has(file)) return;
  seen.add(file);
  if (scan.files.length < MAX_FILES) scan.files.push(file);
}

function outcomeOf(event: Record<string, unknown> | undefined): { id: string; outcome: Outcome } | undefined {
  const data = dataOf(event);
  if (!data || typeof data.toolCallId !== 'string') return undefined;
  const success = data.success === true;
  const shell = isRecord(data.shellExecution) ? data.shellExecution : undefined;
  const result = isRecord(data.result) ? data.result : undefined;
  let exitCode = Number.isInteger(shell?.exitCode) ? (shell?.exitCode as number) : undefined;
  if (exitCode === undefined && Array.isArray(result?.contents))
    for (const block of result.contents)
      if (isRecord(block) && block.type === 'shell_exit' && Number.isInteger(block.exitCode))
        exitCode = block.exitCode as number;
  if (exitCode === undefined && typeof result?.content === 'string')
    exitCode = copilotShellOutcome(result.content)?.exitCode;
  const files: string[] = [];
  if (Array.isArray(data.fileEdits))
    for (const edit of data.fileEdits)
      if (isRecord(edit) && typeof edit.path === 'string' && edit.kind !== 'delete') files.push(edit.path);
  return {
    id: data.toolCallId,
    outcome: { success, ...(exitCode !== undefined ? { exitCode } : {}), files },
  };
}

/** The outcomes of the tool calls seen so far, by call id: located when seen, parsed when asked for. */
class Outcomes {
  private readonly byId = new Map<string, Outcome | { start: number; length: number }>();

  constructor(private readonly fd: number) {}

  set(id: string, outcome: Outcome): void {
    this.byId.set(id, outcome);
  }

  /** `bytes`: the line's length in the file, where it is read again from. */
  add(line: Buffer, start: number, bytes: number): void {
    const id = stringAfter(line, '"toolCallId":"');
    if (id === undefined || this.byId.has(id)) return;
    // A huge result (a long output) is read from its bytes now rather than read again and parsed.
    this.byId.set(
      id,
      line.length > PARSE_MAX_BYTES
        ? (outcomeFromBytes(line)?.outcome ?? { success: false, files: [] })
        : { start, length: bytes },
    );
  }

  get(id: string): Outcome | undefined {
    const known = this.byId.get(id);
    if (known === undefined || 'success' in known) return known;
    const line = Buffer.alloc(known.length);
    readSync(this.fd, line, 0, known.length, known.start);
    const outcome = outcomeOf(parseEvent(line))?.outcome ?? { success: false, files: [] };
    this.byId.set(id, outcome);
    return outcome;
  }
}

/** A huge completion (a long output): its id, success and exit code from the bytes, unparsed. */
function outcomeFromBytes(line: Buffer): { id: string; outcome: Outcome } | undefined {
  const id = stringAfter(line, '"toolCallId":"');
  if (id === undefined) return undefined;
  const shell = line.indexOf('"shellExecution":{"exitCode":');
  const code =
    shell === -1
      ? exitCodeFromText(line.toString('utf8', Math.max(0, line.length - 4096)))
      : Number.parseInt(line.toString('latin1', shell + 29, shell + 45), 10);
  return {
    id,
    outcome: {
      success: includes(line, '"success":true'),
      ...(Number.isInteger(code) ? { exitCode: code as number } : {}),
      files: [],
    },
  };
}

/**
 * Copilot CLI ends a shell result with "<shellId: 0 completed with exit code 3>": in a line's raw bytes,
 * the last such trailer is the result's own (the output before it may hold anything).
 */
function exitCodeFromText(text: string): number | undefined {
  const codes = [...text.matchAll(/<shellId: [^>\n]* completed with exit code (-?\d+)>/g)];
  const last = codes.at(-1)?.[1];
  return last === undefined ? undefined : Number(last);
}

/** The session's first prompt a person typed: not injected (`source`), not a slash command, not a rewound one. */
function findFirstPrompt(
  fd: number,
  from: number,
  to: number,
  removed: ReadonlySet<string>,
): { goal?: string; searchedTo: number } {
  let goal: string | undefined;
  const searchedTo = readJsonLinesForward(fd, from, to, GOAL_SEARCH_BYTES, (line) => {
    if (typeOf(line) !== 'user.message' || line.length > PARSE_MAX_BYTES * 4) return false;
    const event = parseEvent(line);
    const data = dataOf(event);
    if (!data || typeof data.content !== 'string') return false;
    if (typeof event?.id === 'string' && removed.has(event.id)) return false;
    if (typeof data.source === 'string' && data.source !== '' && data.source !== 'user') return false;
    if (data.isAutopilotContinuation === true || typeof event?.agentId === 'string') return false;
    const typed = typedPrompt(data.content);
    if (typed === undefined) return false;
    goal = typed;
    return true;
  });
  return goal === undefined ? { searchedTo } : { goal, searchedTo };
}

function mergeState(
  known: CopilotTranscriptState | null,
  scan: Scan,
  base: Pick<CopilotTranscriptState, 'offset' | 'fingerprint' | 'goalSearchedTo' | 'goal'>,
  /** Told the files written in what this read took in (calls answered since the read before included). */
  onNewFiles: (files: readonly string[]) => void,
): CopilotTranscriptState {
  // Calls that were still running at the last read, and have their result now (older than the scan's).
  const answered: TranscriptCommand[] = [];
  const queries: Query[] = [];
  const written: string[] = [];
  const pending: PendingCall[] = [];
  for (const call of known?.pending ?? []) {
    const outcome = scan.outcomes.get(call.id);
    if (!outcome) pending.push(call);
    else if (call.tool === 'sql') {
      if (outcome.success) queries.push({ query: call.command, at: call.at });
    } else if (call.tool === 'edit') {
      if (outcome.success && outcome.files.length === 0) written.push(call.command);
    } else {
      const command = commandOf(call.command, call.description, outcome, call.id);
      if (command) answered.push(command);
    }
  }
  pending.push(...scan.pending);
  let todos = known?.todos;
  let tasksAt = known?.tasksAt;
  for (const { query, at } of [...queries, ...[...scan.queries].reverse()]) {
    const next = applyTodoSql(todos ?? [], query);
    if (!next) continue;
    // The list's time is that of the newest statement that changed it (a SELECT changes nothing).
    if (JSON.stringify(next.slice(-MAX_TODOS)) !== JSON.stringify(todos)) tasksAt = at;
    todos = next.slice(-MAX_TODOS);
  }
  const statusAt = scan.status !== undefined ? scan.statusAt : known?.statusAt;
  const newFiles = [...written, ...scan.files];
  onNewFiles(newFiles);
  const files = [...(known?.files ?? []).filter((file) => !newFiles.includes(file)), ...newFiles];
  return {
    version: 1,
    ...base,
    ...(todos ? { todos } : {}),
    status: scan.status ?? known?.status,
    ...(tasksAt !== undefined ? { tasksAt } : {}),
    ...(statusAt !== undefined ? { statusAt } : {}),
    ...((scan.newestTurnWorked ?? known?.newestTurnWorked) !== undefined
      ? { newestTurnWorked: scan.newestTurnWorked ?? known?.newestTurnWorked }
      : {}),
    files: files.slice(-MAX_FILES),
    commands: [...answered, ...scan.commands].slice(-MAX_COMMANDS),
    ...(pending.length > 0 ? { pending: pending.slice(-MAX_PENDING) } : {}),
  };
}

/** The event's type from its first bytes (`{"type":"…"`), which is how Copilot CLI writes every line. */
function typeOf(line: Buffer): string | undefined {
  const key = '{"type":"';
  if (line.length < key.length + 2 || line.toString('latin1', 0, key.length) !== key) {
    // Another writer's key order: the type is somewhere in the line.
    for (const type of [...READ_TYPES, 'user.message']) if (includes(line, `"type":"${type}"`)) return type;
    return undefined;
  }
  const end = line.indexOf('"', key.length);
  return end === -1 || end - key.length > 60 ? undefined : line.toString('latin1', key.length, end);
}

/** The event's own id: the last `"id":"…"` of the line (data, which may hold other ids, comes first). */
function eventIdOf(line: Buffer): string | undefined {
  const at = line.lastIndexOf('"id":"');
  if (at === -1) return undefined;
  return stringAfter(line.subarray(at), '"id":"');
}

function stringAfter(line: Buffer, key: string): string | undefined {
  const at = line.indexOf(key);
  if (at === -1) return undefined;
  const end = line.indexOf('"', at + key.length);
  return end === -1 || end - at - key.length > 200 ? undefined : line.toString('utf8', at + key.length, end);
}

function parseEvent(line: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line.toString('utf8'));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** When Copilot CLI wrote the event (its `timestamp`, ISO 8601). */
function timeOf(event: Record<string, unknown> | undefined): string | undefined {
  return typeof event?.timestamp === 'string' ? event.timestamp : undefined;
}

function dataOf(event: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return event && isRecord(event.data) ? event.data : undefined;
}

function includes(line: Buffer, text: string): boolean {
  return line.indexOf(text) !== -1;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const TAIL_BYTES = 256 * 1024;

/**
 * Whether the events file holds the end of the agent's answer. Copilot CLI writes its events behind the
 * session: when agentStop runs, the last model call's events may not be in the file yet (seen in real
 * sessions: the file ended at that call's `assistant.turn_start`). Each model call is a turn_start …
 * turn_end pair, and a prompt has one per tool round: the answer is written when the newest
 * `assistant.message` asks for no tool and a `turn_end` follows it. A file that cannot be read, or holds
 * no message, counts as written: there is nothing to wait for.
 */
export function copilotTurnWritten(file: string): boolean {
  const tail = readFileTail(file, TAIL_BYTES);
  if (tail === null) return true;
  // Lines written with spaces read as compact ones (see compactJsonLine).
  const text = tail.split('\n').map(compactJsonText).join('\n');
  const message = text.lastIndexOf('"type":"assistant.message"');
  if (message === -1) return true;
  const start = text.lastIndexOf('"type":"assistant.turn_start"');
  if (start > message) return false;
  const end = text.indexOf('\n', message);
  const line = end === -1 ? text.slice(message) : text.slice(message, end);
  return line.includes('"toolRequests":[]') && text.indexOf('"type":"assistant.turn_end"', message) !== -1;
}
