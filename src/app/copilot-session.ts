import {
  isJsonObject,
  type JsonObject,
  parseJsonLines,
  parseJsonObject,
  renameEverywhere,
} from '../core/json-lines.js';
import type { PromptCandidate } from './claude-transcript.js';

/**
 * Copilot CLI's session (`$COPILOT_HOME/session-state/<session id>/`, as 1.0.102 writes it; see
 * transcripts/copilot.ts): `events.jsonl`, one `{ type, data, id, timestamp, parentId }` a line, the
 * first a `session.start` naming the session (`data.sessionId`); a typed prompt is a `user.message`
 * (`data.content`); a resume appends `session.resume`, and hooks leave `hook.start` / `hook.end`. Beside
 * it, `workspace.yaml` (`id`, `cwd`, `name`, times). `copilot --resume <id>` loads the folder of that
 * name (checked with 1.0.102: no entry in its session store is needed). Copilot CLI's own /rewind truncates events.jsonl in
 * place. This module only reads and forks that text; conversation-fork.ts does the files.
 */

export interface CopilotPrompt extends PromptCandidate {
  /** The prompt's line. */
  index: number;
  /** Where its run starts: the resume and the hooks that came just before it. */
  runStart: number;
}

export interface CopilotFork {
  /** The new events file's text. */
  events: string;
  /** The new workspace.yaml, when the original has one. */
  workspace: string | null;
  /** Messages the new session holds. */
  messages: number;
}

/** Events that belong to the prompt after them: a resume of the session and the hooks before the prompt. */
const LEAD_IN = new Set(['session.resume', 'hook.start', 'hook.end']);

/** The session id the events' `session.start` names, or null. */
export function copilotSessionId(text: string): string | null {
  const end = text.indexOf('\n');
  const [first] = parseJsonLines(end === -1 ? text : text.slice(0, end));
  return sessionIdOf(first ?? null);
}

function sessionIdOf(first: JsonObject | null): string | null {
  const data = first?.type === 'session.start' && isJsonObject(first.data) ? first.data : undefined;
  return typeof data?.sessionId === 'string' ? data.sessionId : null;
}

/**
 * Collects the events' session id and typed prompts, one line at a time (a long session's events are
 * never held whole), and how many messages come before each line: what a fork before it holds.
 */
export function createCopilotCollector(): {
  line(raw: string): void;
  sessionId(): string | null;
  prompts: CopilotPrompt[];
  messagesBefore(index: number): number;
} {
  let index = 0;
  let sessionId: string | null = null;
  let messages = 0;
  const messagesAt: number[] = [];
  const prompts: CopilotPrompt[] = [];
  // Where the lead-in lines (and unreadable ones) just before this line start, while they go on.
  let leadIn = -1;
  const visit = (line: JsonObject | null, at: number) => {
    if (at === 0) sessionId = sessionIdOf(line);
    if (!line || LEAD_IN.has(String(line.type))) {
      if (leadIn === -1) leadIn = at;
      return;
    }
    const runStart = leadIn === -1 ? at : leadIn;
    leadIn = -1;
    if (line.type === 'user.message' || line.type === 'assistant.message') messages++;
    if (line.type !== 'user.message' || line.agentId !== undefined || !isJsonObject(line.data)) return;
    const { content, source } = line.data;
    if (typeof content !== 'string' || content.trim() === '') return;
    if (typeof source === 'string' && source !== '' && source !== 'user') return;
    prompts.push({
      index: at,
      runStart,
      promptId: null,
      text: content.trim(),
      timestamp: typeof line.timestamp === 'string' ? line.timestamp : null,
    });
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

/** The prompts a person typed, in order: not a sub-agent's, not injected (`source` other than `user`). */
export function copilotPrompts(text: string): CopilotPrompt[] {
  const collector = createCopilotCollector();
  for (const raw of text.split('\n')) collector.line(raw);
  return collector.prompts;
}

/**
 * A new session's events holding the conversation before `prompt` (not including it, nor the resume and
 * hooks that led to it), line by line: `line` takes each line of the events in order and gives what the
 * new one holds for it, until `isDone`. Every event before, the old session id made the new one wherever
 * an event names it (as a value or a key; a path that holds it, as a hook's record of the transcript, is
 * left as it was).
 */
export function createCopilotFork(
  oldSessionId: string,
  prompt: CopilotPrompt,
  newSessionId: string,
): { line(raw: string): string | null; isDone(): boolean } {
  let index = 0;
  return {
    line(raw) {
      if (index++ >= prompt.runStart) return null;
      const line = raw.trim() === '' ? null : parseJsonObject(raw);
      return line ? JSON.stringify(renameEverywhere(line, oldSessionId, newSessionId)) : null;
    },
    isDone: () => index >= prompt.runStart,
  };
}

/**
 * A new session holding the conversation before `prompt` (see createCopilotFork), from the events held
 * as text, and the workspace file with the new id and times. Null when no prompt comes before this one.
 */
export function forkCopilotSession(
  events: string,
  workspace: string | null,
  prompt: CopilotPrompt,
  newSessionId: string,
  now: Date,
): CopilotFork | null {
  const collector = createCopilotCollector();
  for (const raw of events.split('\n')) collector.line(raw);
  const oldSessionId = collector.sessionId();
  if (!oldSessionId) return null;
  if (!collector.prompts.some((earlier) => earlier.index < prompt.runStart)) return null;
  const fork = createCopilotFork(oldSessionId, prompt, newSessionId);
  const out: string[] = [];
  for (const raw of events.split('\n')) {
    if (fork.isDone()) break;
    const line = fork.line(raw);
    if (line !== null) out.push(line);
  }
  return {
    events: `${out.join('\n')}\n`,
    workspace: forkCopilotWorkspace(workspace, newSessionId, now),
    messages: collector.messagesBefore(prompt.runStart),
  };
}

/** Copilot CLI's workspace.yaml for the new session: its id, and its times now. */
export function forkCopilotWorkspace(
  workspace: string | null,
  newSessionId: string,
  now: Date,
): string | null {
  if (workspace === null) return null;
  const stamp = now.toISOString();
  return workspace
    .split('\n')
    .map((line) => {
      if (/^id:\s/.test(line)) return `id: ${newSessionId}`;
      if (/^created_at:\s/.test(line)) return `created_at: ${stamp}`;
      if (/^updated_at:\s/.test(line)) return `updated_at: ${stamp}`;
      return line;
    })
    .join('\n');
}
