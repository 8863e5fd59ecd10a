/**
 * Claude Code's session transcript (`~/.claude/projects/<project>/<session id>.jsonl`, as 2.1.x writes
 * it): one JSON object a line. Messages (`user`, `assistant`, `attachment`, `system`) carry `uuid` and
 * `parentUuid`, which chain the conversation; a typed prompt is a `user` line whose content is text (a
 * tool's result is a `user` line too, holding `tool_result` blocks) with the `promptId` of its turn;
 * `last-prompt` lines name the prompt and the leaf message a resume continues from. Every line names
 * its `sessionId`. This module only reads and forks that text; conversation-fork.ts does the files.
 */

import { type JsonObject, parseJsonObject } from '../core/json-lines.js';
import { SNAPSHOT_DEFAULTS } from '../core/snapshot.js';
import { charLength } from '../core/text.js';

type Line = JsonObject;

/** What identifies the prompt to fork before: the agent's prompt id when the hook gave one, else text and time. */
export interface PromptSelector {
  promptId?: string | undefined;
  /** The prompt's first non-empty line, as the snapshot's label keeps it (redacted, cut at 200 characters). */
  label?: string | undefined;
  createdAt: string;
}

/** A typed prompt of any agent's transcript, as the search for a snapshot's prompt needs it. */
export interface PromptCandidate {
  /** The agent's id of the prompt (Claude Code's promptId, Codex's turn id), when it has one. */
  promptId: string | null;
  text: string;
  timestamp: string | null;
}

export interface TranscriptPrompt extends PromptCandidate {
  index: number;
  uuid: string;
  parentUuid: string | null;
}

export interface ClaudeFork {
  /** The new transcript, ending in a newline. */
  text: string;
  /** The full text of the prompt forked before, to send again or edit. */
  prompt: string;
  /** Messages the new session holds. */
  messages: number;
}

const MESSAGE_TYPES = new Set(['user', 'assistant', 'attachment', 'system']);
/** Fields that hold a message's uuid; renamed consistently in a fork. */
const UUID_FIELDS = ['uuid', 'parentUuid', 'logicalParentUuid', 'leafUuid', 'sourceToolAssistantUUID'];

/** The prompt a person typed, when a line is one; null for tool results, meta lines and command echoes. */
function typedPrompt(line: Line): string | null {
  if (line.type !== 'user' || line.isMeta === true || line.isCompactSummary === true) return null;
  const message = line.message as { content?: unknown } | undefined;
  const content = message?.content;
  let text: string | null = null;
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    if (content.some((block) => (block as { type?: string })?.type === 'tool_result')) return null;
    const texts = content
      .filter((block) => (block as { type?: string })?.type === 'text')
      .map((block) => String((block as { text?: unknown }).text ?? ''));
    text = texts.length > 0 ? texts.join('\n') : null;
  }
  // Slash commands and their output are written as tagged text (<command-name>, <local-command-stdout>).
  if (text === null || text.trimStart().startsWith('<')) return null;
  return text;
}

export interface TranscriptPromptAt extends TranscriptPrompt {
  /** How many messages come before it: what a fork before it holds. */
  messagesBefore: number;
  /** The typed prompt before it, '' when none: a fork's `last-prompt`. */
  previousPrompt: string;
}

/**
 * Collects the typed prompts of a transcript, one line at a time (a 100 MB transcript is never held
 * whole: helper task, issue 26).
 */
export function createPromptCollector(): { line(raw: string): void; prompts: TranscriptPromptAt[] } {
  const prompts: TranscriptPromptAt[] = [];
  let index = 0;
  let messages = 0;
  return {
    prompts,
    line(raw) {
      const line = raw.trim() === '' ? null : parseJsonObject(raw);
      const at = index++;
      if (!line) return;
      const typed = typedPrompt(line);
      if (typed !== null && typeof line.uuid === 'string')
        prompts.push({
          index: at,
          uuid: line.uuid,
          parentUuid: typeof line.parentUuid === 'string' ? line.parentUuid : null,
          promptId: typeof line.promptId === 'string' ? line.promptId : null,
          text: typed,
          timestamp: typeof line.timestamp === 'string' ? line.timestamp : null,
          messagesBefore: messages,
          previousPrompt: prompts[prompts.length - 1]?.text ?? '',
        });
      if (MESSAGE_TYPES.has(String(line.type))) messages++;
    },
  };
}

/** The typed prompts of a transcript, in order. */
export function transcriptPrompts(text: string): TranscriptPromptAt[] {
  const collector = createPromptCollector();
  for (const raw of text.split('\n')) collector.line(raw);
  return collector.prompts;
}

export const firstLine = (text: string) =>
  text
    .split('\n')
    .find((line) => line.trim() !== '')
    ?.trim() ?? '';

/**
 * The transcript's prompt a snapshot was taken before: by prompt id; else the prompt whose first line
 * is the snapshot's label, nearest in time; else the first prompt written within two minutes after it.
 * Never a prompt written before the snapshot by time alone, nor one whose own id differs from the
 * snapshot's: when the agent died before writing the prompt, the one before it is not it (issue 26).
 */
export function findTranscriptPrompt<T extends PromptCandidate>(
  prompts: readonly T[],
  selector: PromptSelector,
): T | null {
  if (selector.promptId) {
    const byId = prompts.find((prompt) => prompt.promptId === selector.promptId);
    if (byId) return byId;
  }
  // A prompt the agent gave another id is another prompt, however alike its text.
  const candidates = selector.promptId ? prompts.filter((prompt) => prompt.promptId === null) : prompts;
  const at = Date.parse(selector.createdAt);
  const distance = (prompt: T) =>
    prompt.timestamp ? Math.abs(Date.parse(prompt.timestamp) - at) : Number.POSITIVE_INFINITY;
  const label = selector.label?.trim();
  const byText = label
    ? candidates.filter((prompt) => {
        const first = firstLine(prompt.text);
        return (
          first === label || (charLength(label) >= SNAPSHOT_DEFAULTS.labelChars && first.startsWith(label))
        );
      })
    : [];
  const nearest = (found: readonly T[]) => [...found].sort((a, b) => distance(a) - distance(b))[0] ?? null;
  if (byText.length > 0) return nearest(byText);
  // The hook fires before the agent writes the prompt: a prompt of the same turn comes just after.
  return nearest(
    candidates.filter((prompt) => {
      const written = prompt.timestamp ? Date.parse(prompt.timestamp) : Number.NaN;
      return written >= at && written - at <= 120_000;
    }),
  );
}

/**
 * A new session holding the conversation before `prompt` (not including it), line by line: `line` takes
 * each line of the transcript in order and gives what the new session holds for it (nothing for a line
 * it leaves out), and `close` the closing `last-prompt` line. Every line before the prompt is kept, with
 * the new session id and fresh message uuids (renamed consistently, so the parentUuid chain holds); the
 * closing line names the message the prompt answered as the leaf to resume from. `null` when nothing
 * comes before the prompt (it opened the session).
 */
export function createClaudeFork(
  prompt: TranscriptPrompt,
  newSessionId: string,
  newUuid: () => string,
): { line(raw: string): string | null; isDone(): boolean; close(previousPrompt: string): string } | null {
  const leaf = prompt.parentUuid;
  if (leaf === null) return null;
  const renamed = new Map<string, string>();
  const rename = (uuid: string) => {
    let next = renamed.get(uuid);
    if (!next) {
      next = newUuid();
      renamed.set(uuid, next);
    }
    return next;
  };
  let index = 0;
  return {
    line(raw) {
      if (index++ >= prompt.index) return null;
      const line = raw.trim() === '' ? null : parseJsonObject(raw);
      // Our own last-prompt closes the fork; earlier ones would name a later leaf once renamed.
      if (!line || line.type === 'last-prompt') return null;
      if (typeof line.sessionId === 'string') line.sessionId = newSessionId;
      for (const field of UUID_FIELDS) {
        const value = line[field];
        if (typeof value === 'string') line[field] = rename(value);
      }
      return JSON.stringify(line);
    },
    isDone: () => index >= prompt.index,
    close: (previousPrompt) =>
      JSON.stringify({
        type: 'last-prompt',
        lastPrompt: firstLine(previousPrompt),
        leafUuid: rename(leaf),
        sessionId: newSessionId,
      }),
  };
}

/** The fork of a transcript held as text (see createClaudeFork), for a transcript small enough to hold. */
export function forkClaudeTranscript(
  text: string,
  prompt: TranscriptPromptAt,
  newSessionId: string,
  newUuid: () => string,
): ClaudeFork | null {
  const fork = createClaudeFork(prompt, newSessionId, newUuid);
  if (!fork) return null;
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    if (fork.isDone()) break;
    const line = fork.line(raw);
    if (line !== null) out.push(line);
  }
  out.push(fork.close(prompt.previousPrompt));
  return { text: `${out.join('\n')}\n`, prompt: prompt.text, messages: prompt.messagesBefore };
}
