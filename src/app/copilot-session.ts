import { isJsonObject, parseJsonLines, renameEverywhere } from '../core/json-lines.js';
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
  const data = first?.type === 'session.start' && isJsonObject(first.data) ? first.data : undefined;
  return typeof data?.sessionId === 'string' ? data.sessionId : null;
}

/** The prompts a person typed, in order: not a sub-agent's, not injected (`source` other than `user`). */
export function copilotPrompts(text: string): CopilotPrompt[] {
  const lines = parseJsonLines(text);
  const prompts: CopilotPrompt[] = [];
  lines.forEach((line, index) => {
    if (line?.type !== 'user.message' || line.agentId !== undefined || !isJsonObject(line.data)) return;
    const { content, source } = line.data;
    if (typeof content !== 'string' || content.trim() === '') return;
    if (typeof source === 'string' && source !== '' && source !== 'user') return;
    let runStart = index;
    while (runStart > 0) {
      const before = lines[runStart - 1];
      if (before && !LEAD_IN.has(String(before.type))) break;
      runStart--;
    }
    prompts.push({
      index,
      runStart,
      promptId: null,
      text: content.trim(),
      timestamp: typeof line.timestamp === 'string' ? line.timestamp : null,
    });
  });
  return prompts;
}

/**
 * A new session holding the conversation before `prompt` (not including it, nor the resume and hooks
 * that led to it): every event before, the old session id made the new one wherever an event names it
 * (as a value or a key; a path that holds it, as a hook's record of the transcript, is left as it was);
 * and the workspace file with the new id and times. Null when no prompt comes before this one.
 */
export function forkCopilotSession(
  events: string,
  workspace: string | null,
  prompt: CopilotPrompt,
  newSessionId: string,
  now: Date,
): CopilotFork | null {
  const oldSessionId = copilotSessionId(events);
  if (!oldSessionId) return null;
  if (!copilotPrompts(events).some((earlier) => earlier.index < prompt.runStart)) return null;
  const out: string[] = [];
  let messages = 0;
  for (const line of parseJsonLines(events).slice(0, prompt.runStart)) {
    if (!line) continue;
    if (line.type === 'user.message' || line.type === 'assistant.message') messages++;
    out.push(JSON.stringify(renameEverywhere(line, oldSessionId, newSessionId)));
  }
  const stamp = now.toISOString();
  const forkedWorkspace =
    workspace === null
      ? null
      : workspace
          .split('\n')
          .map((line) => {
            if (/^id:\s/.test(line)) return `id: ${newSessionId}`;
            if (/^created_at:\s/.test(line)) return `created_at: ${stamp}`;
            if (/^updated_at:\s/.test(line)) return `updated_at: ${stamp}`;
            return line;
          })
          .join('\n');
  return { events: `${out.join('\n')}\n`, workspace: forkedWorkspace, messages };
}
