import {
  isJsonObject,
  type JsonObject,
  parseJsonLines,
  parseJsonObject,
  renameEverywhere,
} from '../core/json-lines.js';
import { typedText } from '../transcripts/list-state.js';
import type { PromptCandidate } from './claude-transcript.js';

/**
 * Codex's rollout file (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl`; see
 * transcripts/codex.ts): one `{ timestamp, type, payload }` a line, the first a `session_meta` naming the
 * session (`payload.id`). What the model saw is in `response_item` lines; a typed prompt is a user
 * `message` of `input_text`. Lines of a turn name its turn id (`turn_context`, `task_started`, and in
 * 0.169 each item's `internal_chat_message_metadata_passthrough`). Codex rebuilds a session from these
 * lines when it resumes one, and `codex resume <session id>` finds the file by the id in its name. This
 * module only reads and forks that text; conversation-fork.ts does the files.
 */

export interface CodexPrompt extends PromptCandidate {
  /** The prompt's line. */
  index: number;
  /** Where its turn starts: the first line that names the turn. */
  turnStart: number;
}

export interface CodexFork {
  /** The new rollout's text. */
  text: string;
  /** Messages the new session holds. */
  messages: number;
}

/** The session id a rollout's `session_meta` line names, or null. */
export function rolloutSessionId(text: string): string | null {
  const end = text.indexOf('\n');
  const [first] = parseJsonLines(end === -1 ? text : text.slice(0, end));
  const payload = first?.type === 'session_meta' && isJsonObject(first.payload) ? first.payload : undefined;
  return typeof payload?.id === 'string' ? payload.id : null;
}

/** The turn a line belongs to, where it says. */
function turnOf(line: JsonObject): string | undefined {
  const payload = isJsonObject(line.payload) ? line.payload : undefined;
  if (!payload) return undefined;
  const passthrough = isJsonObject(payload.internal_chat_message_metadata_passthrough)
    ? payload.internal_chat_message_metadata_passthrough
    : undefined;
  const attribution = isJsonObject(payload.turn_attribution) ? payload.turn_attribution : undefined;
  const candidates =
    line.type === 'turn_context'
      ? [payload.turn_id]
      : line.type === 'event_msg' && (payload.type === 'task_started' || payload.type === 'turn_started')
        ? [payload.turn_id, attribution?.turn_id]
        : line.type === 'response_item'
          ? [passthrough?.turn_id]
          : [];
  return candidates.find((value): value is string => typeof value === 'string');
}

/** What a person typed in a user message the model saw, or undefined for context Codex sends as user text. */
function typedPrompt(payload: JsonObject): string | undefined {
  if (payload.type !== 'message' || payload.role !== 'user' || !Array.isArray(payload.content))
    return undefined;
  const text = payload.content
    .filter((part) => isJsonObject(part) && part.type === 'input_text' && typeof part.text === 'string')
    .map((part) => (part as { text: string }).text)
    .join('\n');
  if (text.trimStart().startsWith('# AGENTS.md instructions')) return undefined;
  return typedText(text);
}

/**
 * Collects a rollout's session id and typed prompts, one line at a time (a long session's rollout is
 * never held whole), and how many messages come before each line: what a fork before it holds.
 */
export function createCodexCollector(): {
  line(raw: string): void;
  sessionId(): string | null;
  prompts: CodexPrompt[];
  messagesBefore(index: number): number;
} {
  const turnStarts = new Map<string, number>();
  // Versions that name no turn on a message: its turn opens with the task_started or turn_context just before.
  let opened = -1;
  let index = 0;
  let sessionId: string | null = null;
  let messages = 0;
  const messagesAt: number[] = [];
  const prompts: CodexPrompt[] = [];
  const visit = (line: JsonObject | null, at: number) => {
    if (!line) return;
    if (at === 0) {
      const payload = line.type === 'session_meta' && isJsonObject(line.payload) ? line.payload : undefined;
      sessionId = typeof payload?.id === 'string' ? payload.id : null;
    }
    const payload = isJsonObject(line.payload) ? line.payload : undefined;
    if (line.type === 'response_item' && payload?.type === 'message' && payload.role !== 'developer')
      messages++;
    const turn = turnOf(line);
    if (turn !== undefined && !turnStarts.has(turn)) turnStarts.set(turn, at);
    const isOpening =
      line.type === 'turn_context' ||
      (line.type === 'event_msg' && (payload?.type === 'task_started' || payload?.type === 'turn_started'));
    if (isOpening && opened === -1) opened = at;
    if (line.type !== 'response_item' || !payload) return;
    const typed = typedPrompt(payload);
    if (typed === undefined) {
      if (payload.type === 'message' && payload.role === 'assistant') opened = -1;
      return;
    }
    prompts.push({
      index: at,
      turnStart: (turn !== undefined ? turnStarts.get(turn) : undefined) ?? (opened === -1 ? at : opened),
      promptId: turn ?? null,
      text: typed,
      timestamp: typeof line.timestamp === 'string' ? line.timestamp : null,
    });
    opened = -1;
  };
  return {
    prompts,
    sessionId: () => sessionId,
    line(raw) {
      const at = index++;
      messagesAt.push(messages);
      visit(raw.trim() === '' ? null : parseJsonObject(raw), at);
    },
    messagesBefore: (at) => messagesAt[at] ?? messages,
  };
}

/** The prompts a person typed, in order, each with its turn id where the rollout names one. */
export function codexPrompts(text: string): CodexPrompt[] {
  const collector = createCodexCollector();
  for (const raw of text.split('\n')) collector.line(raw);
  return collector.prompts;
}

/**
 * A new rollout holding the conversation before `prompt`'s turn (not including it), line by line: `line`
 * takes each line of the rollout in order and gives what the new one holds for it, until `isDone`.
 * Every line before that turn starts, the old session id made the new one wherever a line names it, and
 * the session's start time now.
 */
export function createCodexFork(
  oldSessionId: string,
  prompt: CodexPrompt,
  newSessionId: string,
  now: Date,
): { line(raw: string): string | null; isDone(): boolean } {
  let index = 0;
  return {
    line(raw) {
      if (index++ >= prompt.turnStart) return null;
      const line = raw.trim() === '' ? null : parseJsonObject(raw);
      if (!line) return null;
      const copy = renameEverywhere(line, oldSessionId, newSessionId) as JsonObject;
      const payload = isJsonObject(copy.payload) ? copy.payload : undefined;
      if (copy.type === 'session_meta' && payload)
        copy.payload = { ...payload, timestamp: now.toISOString() };
      return JSON.stringify(copy);
    },
    isDone: () => index >= prompt.turnStart,
  };
}

/**
 * The fork of a rollout held as text (see createCodexFork). Null when no prompt comes before this one.
 */
export function forkCodexRollout(
  text: string,
  prompt: CodexPrompt,
  newSessionId: string,
  now: Date,
): CodexFork | null {
  const collector = createCodexCollector();
  for (const raw of text.split('\n')) collector.line(raw);
  const oldSessionId = collector.sessionId();
  if (!oldSessionId) return null;
  if (!collector.prompts.some((earlier) => earlier.index < prompt.turnStart)) return null;
  const fork = createCodexFork(oldSessionId, prompt, newSessionId, now);
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    if (fork.isDone()) break;
    const line = fork.line(raw);
    if (line !== null) out.push(line);
  }
  return { text: `${out.join('\n')}\n`, messages: collector.messagesBefore(prompt.turnStart) };
}

/** The file name Codex gives a rollout started now: `rollout-<local time>-<session id>.jsonl`. */
export function codexRolloutFileName(sessionId: string, now: Date): string {
  const two = (value: number) => String(value).padStart(2, '0');
  const time = `${now.getFullYear()}-${two(now.getMonth() + 1)}-${two(now.getDate())}T${two(now.getHours())}-${two(now.getMinutes())}-${two(now.getSeconds())}`;
  return `rollout-${time}-${sessionId}.jsonl`;
}
