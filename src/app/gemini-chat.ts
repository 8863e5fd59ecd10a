import { isJsonObject, type JsonObject, parseJsonLines, parseJsonObject } from '../core/json-lines.js';
import { typedText } from '../transcripts/list-state.js';
import type { PromptCandidate } from './claude-transcript.js';

/**
 * Gemini CLI's chat file (`~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`, as 0.61 writes it;
 * see transcripts/gemini.ts): a metadata line (`sessionId`, `projectHash`, `startTime`, ...), then message
 * records (`{ id, type: 'user' | 'gemini' | 'info' | ..., content }`, written again whole each time one
 * changes: the last copy counts, in the place of the first), `{ $set: {...} }` (metadata; with `messages`,
 * the whole history from then on) and `{ $rewindTo: id }` (that message and every later one dropped).
 * A resume appends a metadata line and `$set` lines holding the history as Gemini CLI rebuilt it. Older
 * versions wrote one JSON document, `session-*.json`. `gemini --resume <session id>` finds a session by
 * the `sessionId` inside the files of the project's chats folder. This module only reads and forks that
 * text, as Gemini CLI's own loader (loadConversationRecord) reads it; conversation-fork.ts does the files.
 */

/** A chat as Gemini CLI would load it: its metadata and its messages, each at its latest. */
export interface GeminiChat {
  metadata: JsonObject;
  messages: JsonObject[];
  /** The older single-document format (`session-*.json`). */
  isDocument: boolean;
  /** The file's lines, parsed (none for a document). */
  records: Array<JsonObject | null>;
}

export interface GeminiPrompt extends PromptCandidate {
  /** The prompt's message id. */
  id: string;
  /** Where the prompt is in the chat's messages. */
  index: number;
}

export interface GeminiFork {
  /** The new chat file's text. */
  text: string;
  /** Messages the new session holds. */
  messages: number;
}

const isMessage = (value: unknown): value is JsonObject & { id: string } =>
  isJsonObject(value) && typeof value.id === 'string';

/** A metadata line: the first of a file, and the first a resume writes. */
const isMetadataLine = (record: JsonObject) =>
  typeof record.sessionId === 'string' && typeof record.projectHash === 'string' && !isMessage(record);

/** The metadata and messages of the first `end` records, in the order of Gemini CLI's loader. */
function replay(
  records: ReadonlyArray<JsonObject | null>,
  end: number,
): { metadata: JsonObject; messages: JsonObject[] } {
  let metadata: JsonObject = {};
  const messages = new Map<string, JsonObject>();
  for (const record of records.slice(0, end)) {
    if (!record) continue;
    if (typeof record.$rewindTo === 'string') {
      const ids = [...messages.keys()];
      const at = ids.indexOf(record.$rewindTo);
      if (at === -1) messages.clear();
      else for (const id of ids.slice(at)) messages.delete(id);
    } else if (isMessage(record)) {
      messages.set(record.id, record);
    } else if (isJsonObject(record.$set)) {
      const { messages: history, ...rest } = record.$set;
      if (Array.isArray(history)) {
        messages.clear();
        for (const message of history) if (isMessage(message)) messages.set(message.id, message);
      }
      metadata = { ...metadata, ...rest };
    } else if (isMetadataLine(record)) {
      const { messages: more, ...rest } = record;
      metadata = { ...metadata, ...rest };
      if (Array.isArray(more))
        for (const message of more) if (isMessage(message)) messages.set(message.id, message);
    }
  }
  return { metadata, messages: [...messages.values()] };
}

/** The chat a file holds, or null when it is not one (no session id, no project hash). */
export function resolveGeminiChat(text: string): GeminiChat | null {
  const records = parseJsonLines(text);
  const { metadata, messages } = replay(records, records.length);
  if (typeof metadata.sessionId === 'string' && typeof metadata.projectHash === 'string')
    return { metadata, messages, isDocument: false, records };
  // Not JSON lines: the older format, one document.
  const document = parseJsonObject(text);
  if (!document || typeof document.sessionId !== 'string' || !Array.isArray(document.messages)) return null;
  const { messages: list, ...rest } = document;
  return { metadata: rest, messages: (list as unknown[]).filter(isMessage), isDocument: true, records: [] };
}

/** The prompts a person typed, in order: user messages of text, without the context put around them. */
export function geminiPrompts(chat: GeminiChat): GeminiPrompt[] {
  const prompts: GeminiPrompt[] = [];
  chat.messages.forEach((message, index) => {
    if (message.type !== 'user' || typeof message.id !== 'string') return;
    const parts = partsOf(message.content);
    if (parts.some((part) => part.functionResponse !== undefined)) return;
    // A BeforeAgent hook's context comes after the prompt, as a part of its own.
    const typed = typedText(
      parts
        .map((part) => (typeof part.text === 'string' ? part.text : ''))
        .filter((text) => !/^\s*<hook_context>[\s\S]*<\/hook_context>\s*$/.test(text))
        .join(''),
    );
    if (typed === undefined) return;
    prompts.push({
      id: message.id,
      index,
      promptId: null,
      text: typed,
      timestamp: typeof message.timestamp === 'string' ? message.timestamp : null,
    });
  });
  return prompts;
}

/**
 * The record before which the chat stood as it was when the prompt was sent: the line that first holds
 * it, or the resume just before it. A resume (a metadata line, or `$set` of the session id, then `$set`
 * of the history as Gemini CLI rebuilt it) comes after what the model was sent: Gemini CLI rebuilds a
 * history from the lines before it, and the one it writes rebuilds differently (each function response
 * once more).
 */
function cutBefore(records: ReadonlyArray<JsonObject | null>, promptId: string): number {
  const holds = (record: JsonObject | null) =>
    record !== null &&
    (record.id === promptId ||
      [record.messages, isJsonObject(record.$set) ? record.$set.messages : undefined].some(
        (list) =>
          Array.isArray(list) && list.some((message) => isMessage(message) && message.id === promptId),
      ));
  let cut = records.findIndex(holds);
  if (cut === -1) return -1;
  for (let at = cut - 1; at >= 0; at--) {
    const record = records[at];
    if (!record) continue;
    const set = isJsonObject(record.$set) ? record.$set : undefined;
    if (isMetadataLine(record) || typeof set?.sessionId === 'string') cut = at;
    else if (!set) break;
  }
  return cut;
}

/**
 * A new chat holding the conversation before `prompt` (not including it), as it stood when the prompt was
 * sent, under a new session id, in the format of the file it came from. The session's summary and memory
 * scratchpad are left out: they describe the whole session, later turns included. Null when no prompt
 * comes before this one.
 */
export function forkGeminiChat(
  chat: GeminiChat,
  prompt: GeminiPrompt,
  newSessionId: string,
  now: Date,
): GeminiFork | null {
  let state = { metadata: chat.metadata, messages: chat.messages.slice(0, prompt.index) };
  if (!chat.isDocument) {
    const cut = cutBefore(chat.records, prompt.id);
    if (cut !== -1) state = replay(chat.records, cut);
  }
  if (geminiPrompts({ ...chat, messages: state.messages }).length === 0) return null;
  const { summary: _summary, memoryScratchpad: _scratchpad, ...kept } = state.metadata;
  const metadata = {
    ...kept,
    sessionId: newSessionId,
    startTime: now.toISOString(),
    lastUpdated: now.toISOString(),
  };
  const messages = state.messages;
  const count = messages.filter((message) => message.type === 'user' || message.type === 'gemini').length;
  if (chat.isDocument)
    return { text: `${JSON.stringify({ ...metadata, messages }, null, 2)}\n`, messages: count };
  const lines = [metadata, ...messages].map((line) => JSON.stringify(line));
  return { text: `${lines.join('\n')}\n`, messages: count };
}

/** The chat file name Gemini CLI would give a session started now: `session-<UTC minute>-<id8>.json(l)`. */
export function geminiChatFileName(sessionId: string, now: Date, isDocument: boolean): string {
  const minute = now.toISOString().slice(0, 16).replaceAll(':', '-');
  return `session-${minute}-${sessionId.slice(0, 8)}.${isDocument ? 'json' : 'jsonl'}`;
}

function partsOf(content: unknown): JsonObject[] {
  if (typeof content === 'string') return [{ text: content }];
  if (Array.isArray(content)) return content.filter(isJsonObject);
  return isJsonObject(content) ? [content] : [];
}
