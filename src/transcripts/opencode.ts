import type { Task, TaskStatus } from '../core/schema.js';
import { isTalkAboutWork, type TranscriptCommand, type TranscriptRecord } from '../core/transcript.js';
import { typedPrompt } from './claude-code.js';

// OpenCode keeps its sessions in its own storage, read through its server; our plugin (see
// app/opencode-plugin.ts) asks its SDK client for the session's messages (`client.session.messages`:
// `[{ info: { role }, parts }]`, with text parts `{ type: 'text', text, synthetic? }` and tool parts
// `{ type: 'tool', tool, state: { status, input, metadata } }`) and its todo list (`client.session.todo`,
// what the `todowrite` tool keeps: `[{ content, status, priority }]`), trims them and hands them to the
// hook as `transcript: { messages, todos }`. The shapes are OpenCode 1.18's (@opencode-ai/sdk types),
// recorded in test/fixtures/transcripts/.

const MAX_FILES = 100;
const MAX_COMMANDS = 50;
const EDIT_TOOLS = new Set(['write', 'edit', 'multiedit']);

/**
 * The record of an OpenCode session as the plugin hands it over. `null` when the payload has no message
 * list (a foreign or damaged payload changes nothing).
 */
export function readOpenCodeSession(
  payload: unknown,
  session: string,
  /** Shell calls (by `callID`) a read before took in: left out of the record's commands. */
  known: ReadonlySet<string> = new Set(),
): TranscriptRecord | null {
  if (!isRecord(payload) || !Array.isArray(payload.messages)) return null;
  let goal: string | undefined;
  let status: string | undefined;
  // Where things stand: the last reply of the newest turn that did work (called a tool), or of a later
  // one that says something of the work (see isTalkAboutWork); an acknowledgement does not hide it.
  let turnText: string | undefined;
  let turnWorked: boolean | undefined;
  const endTurn = () => {
    if (turnText !== undefined && (turnWorked === true || isTalkAboutWork(turnText))) status = turnText;
  };
  let usedTodos = false;
  const files: string[] = [];
  const commands: TranscriptCommand[] = [];
  for (const message of payload.messages) {
    if (!isRecord(message) || !isRecord(message.info) || !Array.isArray(message.parts)) continue;
    const role = message.info.role;
    const texts = message.parts
      .filter(
        (part) => isRecord(part) && part.type === 'text' && part.synthetic !== true && part.ignored !== true,
      )
      .map((part) => String((part as Record<string, unknown>).text ?? ''))
      .join('\n')
      .trim();
    if (role === 'user') {
      if (goal === undefined && texts !== '') goal = typedPrompt(unquoted(texts));
      endTurn();
      turnText = undefined;
      turnWorked = false;
      continue;
    }
    if (role !== 'assistant') continue;
    if (texts !== '') turnText = texts;
    if (message.parts.some((part) => isRecord(part) && part.type === 'tool')) turnWorked = true;
    for (const part of message.parts) {
      if (!isRecord(part) || part.type !== 'tool' || typeof part.tool !== 'string' || !isRecord(part.state))
        continue;
      const state = part.state;
      const input = isRecord(state.input) ? state.input : {};
      if (part.tool === 'todowrite') usedTodos = true;
      // A call that failed (refused, or its tool threw) changed nothing and ran nothing.
      if (state.status !== 'completed') continue;
      if (EDIT_TOOLS.has(part.tool) && typeof input.filePath === 'string') {
        const at = files.indexOf(input.filePath);
        if (at !== -1) files.splice(at, 1);
        files.push(input.filePath);
      } else if (
        part.tool === 'bash' &&
        typeof input.command === 'string' &&
        !(typeof part.callID === 'string' && known.has(part.callID))
      ) {
        const metadata = isRecord(state.metadata) ? state.metadata : {};
        const exitCode = Number.isInteger(metadata.exit) ? (metadata.exit as number) : undefined;
        const description = typeof input.description === 'string' ? input.description : undefined;
        commands.push({
          command: input.command,
          ...(exitCode !== undefined ? { exitCode } : {}),
          ...(description ? { note: description } : {}),
          ...(typeof part.callID === 'string' ? { callId: part.callID } : {}),
        });
      }
    }
  }
  endTurn();
  const todos = Array.isArray(payload.todos) ? payload.todos : [];
  const tasks =
    usedTodos || todos.length > 0
      ? todos.map(taskOf).filter((task): task is Task => task !== undefined)
      : undefined;
  return {
    session,
    goal,
    tasks,
    status,
    ...(turnWorked !== undefined ? { newestTurnWorked: turnWorked } : {}),
    files: files.slice(-MAX_FILES),
    commands: commands.slice(-MAX_COMMANDS),
  };
}

/**
 * The `callID`s of the session's shell and edit calls that completed: what a read takes in, remembered
 * for the next.
 */
export function openCodeTakenCalls(payload: unknown): string[] {
  if (!isRecord(payload) || !Array.isArray(payload.messages)) return [];
  const ids: string[] = [];
  for (const message of payload.messages) {
    if (!isRecord(message) || !Array.isArray(message.parts)) continue;
    for (const part of message.parts)
      if (
        isRecord(part) &&
        part.type === 'tool' &&
        typeof part.tool === 'string' &&
        (part.tool === 'bash' || EDIT_TOOLS.has(part.tool)) &&
        typeof part.callID === 'string' &&
        isRecord(part.state) &&
        part.state.status === 'completed'
      )
        ids.push(part.callID);
  }
  return ids;
}

/**
 * The files the session's edit calls wrote that a read before did not take in (`known`, by `callID`): a
 * file written in an earlier turn and again since is in it.
 */
export function openCodeFilesWrittenSince(payload: unknown, known: ReadonlySet<string>): string[] {
  if (!isRecord(payload) || !Array.isArray(payload.messages)) return [];
  const files = new Set<string>();
  for (const message of payload.messages) {
    if (!isRecord(message) || !Array.isArray(message.parts)) continue;
    for (const part of message.parts) {
      if (!isRecord(part) || typeof part.tool !== 'string' || !EDIT_TOOLS.has(part.tool)) continue;
      if (!isRecord(part.state) || part.state.status !== 'completed') continue;
      if (typeof part.callID === 'string' && known.has(part.callID)) continue;
      const input = isRecord(part.state.input) ? part.state.input : {};
      if (typeof input.filePath === 'string') files.add(input.filePath);
    }
  }
  return [...files];
}

/** `opencode run` wraps a message that has spaces in double quotes: what the person typed is inside. */
function unquoted(text: string): string {
  return /^"[^"]*"$/.test(text) ? text.slice(1, -1) : text;
}

function taskOf(todo: unknown): Task | undefined {
  if (!isRecord(todo) || typeof todo.content !== 'string' || todo.content.trim() === '') return undefined;
  const status = statusOf(todo.status);
  return status ? { description: todo.content, status } : undefined;
}

/** OpenCode's todo statuses; a cancelled todo is no work left. */
function statusOf(status: unknown): TaskStatus | undefined {
  switch (status) {
    case 'in_progress':
      return 'in_progress';
    case 'completed':
      return 'done';
    case 'cancelled':
      return undefined;
    default:
      return 'pending';
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
