import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { geminiShellOutcome } from '../core/shell-trailer.js';
import type { TranscriptRecord } from '../core/transcript.js';
import { readJsonLinesBackward } from './lines.js';
import {
  includes,
  isRecord,
  type ListScan,
  type ListTranscriptState,
  listRecordOf,
  parseLine,
  readListTranscript,
  tasksOf,
  typedText,
} from './list-state.js';
import { StatusPick } from './status-pick.js';

// Gemini CLI's chat file: the JSON lines file at a hook payload's `transcript_path`
// (~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl), written by its ChatRecordingService
// (packages/core/src/services/chatRecordingService.ts). The first line holds the session's metadata;
// then each line is a message record (`{ id, timestamp, type: 'user' | 'gemini' | 'info' | ..., content }`,
// a model message with its `toolCalls`: `{ id, name, args, status, result: [{ functionResponse }] }`),
// appended again in full each time it changes (the last copy wins), or `{ $set: {...} }` (metadata; with
// `messages` the whole history from then on, as written on resume, tool calls then as `functionCall` and
// `functionResponse` parts), or `{ $rewindTo: id }` (that message and every later one are dropped).
// Recorded in test/fixtures/transcripts/ from a real session of Gemini CLI 0.61.0. Older versions wrote
// one JSON document (`session-*.json`) with the same message records: read whole, up to a size.

const SHELL_TOOL = 'run_shell_command';
const EDIT_TOOLS = new Set(['write_file', 'replace']);
const TODO_TOOL = 'write_todos';
/** Statuses after which a tool call's record no longer changes. */
const FINAL_STATUSES = new Set(['success', 'error', 'cancelled']);
const MAX_BACKWARD_BYTES = 256 * 1024 * 1024;
/** A call still running this far from the end is taken as never finished (Gemini CLI died). */
const MAX_WAIT_BYTES = 8 * 1024 * 1024;
/** Message records are parsed whole; a longer one (a huge tool output) is skipped. */
const PARSE_MAX_BYTES = 16 * 1024 * 1024;
/** A chat file of the older, single-document format is parsed whole up to this size; a bigger one is not read. */
const LEGACY_MAX_BYTES = 32 * 1024 * 1024;

interface Response {
  isError: boolean;
  text: string;
}

interface Call {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** `undefined` while the call runs. */
  response: Response | undefined;
}

/**
 * Reads what a Gemini CLI session's chat file says, from the end backwards (see readListTranscript).
 * The task list is the latest successful write_todos call; commands are run_shell_command calls with
 * their exit codes; files are those write_file and replace wrote.
 */
export function readGeminiTranscript(
  file: string,
  session: string,
  previous: ListTranscriptState | null,
): { record: TranscriptRecord; state: ListTranscriptState } | null {
  if (file.endsWith('.json')) return readLegacyGeminiTranscript(file, session, previous);
  return readListTranscript(file, session, previous, { scan: scanGemini, isPrompt: geminiPrompt });
}

function scanGemini(
  fd: number,
  from: number,
  to: number,
  known: ReadonlySet<string>,
  continuedWorked: boolean,
): ListScan {
  const scan: ListScan = { end: from, files: [], commands: [] };
  const status = new StatusPick();
  const messages = messageReader(scan, known, status);
  let waitFrom: number | undefined;
  const end = readJsonLinesBackward(fd, from, to, (line, start) => {
    if (to - start > MAX_BACKWARD_BYTES) return true;
    if (line.length > PARSE_MAX_BYTES) return false;
    if (!includes(line, '"type":"') && !includes(line, '"$rewindTo"') && !includes(line, '"$set"'))
      return false;
    const entry = parseLine(line);
    if (!entry) return false;
    if (typeof entry.$rewindTo === 'string') {
      messages.rewind(entry.$rewindTo);
      return false;
    }
    const set = isRecord(entry.$set) ? entry.$set : undefined;
    if (set && Array.isArray(set.messages)) {
      // The whole history as it stood: nothing older counts.
      for (const message of [...set.messages].reverse())
        if (isRecord(message) && messages.visit(message)) waitFrom ??= start;
      return true;
    }
    if (messages.visit(entry) && to - start <= MAX_WAIT_BYTES) waitFrom = start;
    return messages.isComplete();
  });
  scan.end = waitFrom ?? end;
  pickStatus(scan, status, continuedWorked);
  scan.files.reverse();
  scan.commands.reverse();
  return scan;
}

function pickStatus(scan: ListScan, status: StatusPick, continuedWorked: boolean): void {
  const picked = status.finish(continuedWorked);
  if (picked !== undefined) scan.status = picked;
  if (status.statusAt !== undefined) scan.statusAt = status.statusAt;
  scan.newestTurnWorked = status.newestTurnWorked;
}

/**
 * Takes in message records newest first, into `scan`: the latest copy of each message, what a rewind
 * left, tool calls with their outcomes (in the call's record, or in a later user message's parts).
 */
function messageReader(scan: ListScan, known: ReadonlySet<string>, status: StatusPick) {
  const seenMessages = new Set<string>();
  const seenFiles = new Set<string>();
  // Responses as parts of user messages come after their calls: kept until the call is seen.
  const responses = new Map<string, Response>();
  let rewoundTo: string | undefined;
  // The turn of the latest task list read back to its prompt: its commands and files, and those of every
  // later turn, are in; older ones are what a read passed on the way.
  let turnRead = false;

  /** One message record; returns true when a tool call in it is still running. */
  const visit = (message: Record<string, unknown>): boolean => {
    if (typeof message.id !== 'string' || seenMessages.has(message.id)) return false;
    if (rewoundTo !== undefined) {
      if (message.id === rewoundTo) rewoundTo = undefined;
      seenMessages.add(message.id); // rewound: every copy of it is dropped
      return false;
    }
    seenMessages.add(message.id);
    if (message.type === 'user') {
      const isPrompt = partsOf(message.content).some(
        (part) => isRecord(part) && typeof part.text === 'string',
      );
      if (isPrompt && scan.tasks !== undefined) turnRead = true;
      if (isPrompt) status.turnStart();
      for (const part of partsOf(message.content)) {
        const response =
          isRecord(part) && isRecord(part.functionResponse) ? part.functionResponse : undefined;
        if (typeof response?.id === 'string' && !responses.has(response.id))
          responses.set(response.id, responseOf(response.response));
      }
      return false;
    }
    if (message.type !== 'gemini') return false;
    let running = false;
    const calls: Call[] = [];
    if (Array.isArray(message.toolCalls)) {
      for (const call of message.toolCalls) {
        if (!isRecord(call) || typeof call.id !== 'string' || typeof call.name !== 'string') continue;
        const final = typeof call.status === 'string' && FINAL_STATUSES.has(call.status);
        const result = partsOf(call.result).find((part) => isRecord(part) && isRecord(part.functionResponse));
        const response = isRecord(result) && isRecord(result.functionResponse) ? result.functionResponse : {};
        calls.push({
          id: call.id,
          name: call.name,
          args: isRecord(call.args) ? call.args : {},
          response: final
            ? { ...responseOf(response.response), ...(call.status === 'success' ? {} : { isError: true }) }
            : undefined,
        });
      }
    }
    for (const part of partsOf(message.content)) {
      const call = isRecord(part) && isRecord(part.functionCall) ? part.functionCall : undefined;
      if (typeof call?.id !== 'string' || typeof call.name !== 'string') continue;
      if (calls.some((listed) => listed.id === call.id)) continue;
      calls.push({
        id: call.id,
        name: call.name,
        args: isRecord(call.args) ? call.args : {},
        response: responses.get(call.id),
      });
    }
    // The message's words come after its calls: it did work, and they say what came of it.
    if (calls.length > 0) status.work();
    const at = typeof message.timestamp === 'string' ? message.timestamp : undefined;
    status.text(textOf(message.content), at);
    for (const call of calls.reverse()) if (takeCall(call, scan, seenFiles, known, at)) running = true;
    return running;
  };

  return {
    visit,
    /** `$rewindTo`: that message and every later one are dropped (the newest rewind counts). */
    rewind: (id: string) => {
      rewoundTo ??= id;
    },
    isComplete: () => turnRead && status.status !== undefined && scan.tasks !== undefined,
  };
}

/**
 * A chat file of Gemini CLI versions before the JSON lines format: one JSON document
 * (`{ sessionId, ..., messages: [...] }`), written again whole as the session goes. Read whole, up to a
 * size; of a read before, only the shell calls it took in are remembered (the file is rewritten each
 * time): the record's commands are the new ones, as for the other formats.
 */
/** As many call ids as the JSON lines format remembers. */
const LEGACY_MAX_CALLS = 400;

function readLegacyGeminiTranscript(
  file: string,
  session: string,
  previous: ListTranscriptState | null,
): { record: TranscriptRecord; state: ListTranscriptState } | null {
  let fd: number;
  try {
    // Security: the path comes from the agent's hook payload; follow no link at its last step.
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  let document: unknown;
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return null;
    if (stats.size <= LEGACY_MAX_BYTES) {
      const buffer = Buffer.alloc(stats.size);
      let done = 0;
      while (done < buffer.length) {
        const read = readSync(fd, buffer, done, buffer.length - done, done);
        if (read === 0) break;
        done += read;
      }
      document = parseLine(buffer.subarray(0, done));
    }
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
  const scan: ListScan = { end: 0, files: [], commands: [] };
  const list = isRecord(document) && Array.isArray(document.messages) ? document.messages : [];
  const known = new Set(previous?.calls ?? []);
  const status = new StatusPick();
  const messages = messageReader(scan, known, status);
  for (const message of [...list].reverse()) if (isRecord(message)) messages.visit(message);
  pickStatus(scan, status, false);
  let goal: string | undefined;
  for (const message of list) {
    goal = isRecord(message) ? promptOf(message) : undefined;
    if (goal !== undefined) break;
  }
  scan.files.reverse();
  scan.commands.reverse();
  const state: ListTranscriptState = {
    version: 1,
    offset: 0,
    fingerprint: '',
    goalSearchedTo: 0,
    ...(goal === undefined ? {} : { goal }),
    ...(scan.tasks ? { tasks: scan.tasks } : {}),
    ...(scan.status === undefined ? {} : { status: scan.status }),
    ...(scan.tasks && scan.tasksAt !== undefined ? { tasksAt: scan.tasksAt } : {}),
    ...(scan.status !== undefined && scan.statusAt !== undefined ? { statusAt: scan.statusAt } : {}),
    ...(scan.newestTurnWorked === undefined ? {} : { newestTurnWorked: scan.newestTurnWorked }),
    files: scan.files,
    commands: scan.commands.map(({ id: _id, ...command }) => command),
    calls: [...known, ...scan.commands.map((command) => command.id)].slice(-LEGACY_MAX_CALLS),
  };
  return { record: listRecordOf(state, session), state };
}

/** Takes in one tool call (`at`: when its message was written); returns true when it is still running. */
function takeCall(
  call: Call,
  scan: ListScan,
  seenFiles: Set<string>,
  known: ReadonlySet<string>,
  at: string | undefined,
): boolean {
  const isOurs = call.name === TODO_TOOL || call.name === SHELL_TOOL || EDIT_TOOLS.has(call.name);
  if (!isOurs) return false;
  if (call.name === SHELL_TOOL && known.has(call.id)) return false;
  if (!call.response) return true;
  if (call.name === TODO_TOOL) {
    if (scan.tasks === undefined && !call.response.isError) {
      scan.tasks = tasksOf(call.args.todos, 'description');
      if (at !== undefined) scan.tasksAt = at;
    }
    return false;
  }
  if (EDIT_TOOLS.has(call.name)) {
    const file = call.args.file_path;
    if (typeof file !== 'string' || call.response.isError || seenFiles.has(file)) return false;
    seenFiles.add(file);
    scan.files.push(file);
    return false;
  }
  const command = call.args.command;
  if (typeof command !== 'string' || command.trim() === '') return false;
  // Only the trailer after the output counts ("Exit Code: N" when not 0); a command that ran has "Output:".
  const outcome = geminiShellOutcome(call.response.text);
  if (!outcome) return false; // refused, never ran, or not run to its end
  const description = typeof call.args.description === 'string' ? call.args.description.trim() : '';
  scan.commands.push({
    id: call.id,
    command,
    exitCode: outcome.exitCode ?? 0,
    ...(description !== '' ? { note: description } : {}),
  });
  return false;
}

function responseOf(value: unknown): Response {
  if (!isRecord(value)) return { isError: false, text: typeof value === 'string' ? value : '' };
  if (value.error !== undefined)
    return {
      isError: true,
      text: typeof value.error === 'string' ? value.error : JSON.stringify(value.error),
    };
  const output = value.output ?? value.llmContent ?? value.content;
  return { isError: false, text: typeof output === 'string' ? output : '' };
}

function partsOf(content: unknown): unknown[] {
  if (Array.isArray(content)) return content;
  if (typeof content === 'string') return [{ text: content }];
  return isRecord(content) ? [content] : [];
}

/** A model message's words, without its thoughts. */
function textOf(content: unknown): string | undefined {
  const text = partsOf(content)
    .filter((part) => isRecord(part) && typeof part.text === 'string' && part.thought !== true)
    .map((part) => (part as { text: string }).text)
    .join('')
    .trim();
  return text === '' ? undefined : text;
}

/**
 * The session's first real prompt: a user message that is text, without the context Gemini CLI
 * (`<session_context>`) and hooks (`<hook_context>`) put before the prompt; not a slash command.
 */
function geminiPrompt(line: Buffer): string | undefined {
  if (!includes(line, '"type":"user"') || line.length > PARSE_MAX_BYTES) return undefined;
  const entry = parseLine(line);
  if (!entry) return undefined;
  const set = isRecord(entry.$set) ? entry.$set : undefined;
  const messages = set && Array.isArray(set.messages) ? set.messages : [entry];
  for (const message of messages) {
    const typed = isRecord(message) ? promptOf(message) : undefined;
    if (typed !== undefined) return typed;
  }
  return undefined;
}

/** What a person typed in a user message, if it is one (not a tool's response, not a slash command). */
function promptOf(message: Record<string, unknown>): string | undefined {
  if (message.type !== 'user') return undefined;
  const parts = partsOf(message.content);
  if (parts.some((part) => isRecord(part) && part.functionResponse !== undefined)) return undefined;
  return typedText(
    parts
      .filter((part) => isRecord(part) && typeof part.text === 'string')
      .map((part) => (part as { text: string }).text)
      .join(''),
  );
}
