import { TASK_STATUSES, type Task } from '../core/schema.js';
import type { TranscriptRecord } from '../core/transcript.js';
import {
  type ClaudeTranscriptState,
  claudeRecordOf,
  claudeStateOrNull,
  mapStateText,
  readClaudeTranscript,
} from './claude-code.js';
import { readCodexTranscript } from './codex.js';
import {
  type CopilotTranscriptState,
  copilotRecordOf,
  copilotStateOrNull,
  mapCopilotStateText,
  readCopilotTranscript,
} from './copilot.js';
import { readGeminiTranscript } from './gemini.js';
import { type ListTranscriptState, listRecordOf, listStateOrNull, mapListStateText } from './list-state.js';
import { openCodeFilesWrittenSince, openCodeTakenCalls, readOpenCodeSession } from './opencode.js';
import type { ReadResult } from './transcript-file.js';

/**
 * One agent's transcript format: read it (from where the last read stopped) into the common record.
 * Every reader keeps a state of its own between reads, which the app keeps in our store.
 */
export interface TranscriptReader<State> {
  read(file: string, session: string, previous: State | null): ReadResult<State> | null;
  /** A remembered state when it has the shape this reader writes, else `null` (read afresh). */
  stateOrNull(value: unknown): State | null;
  /** The state with every text in it passed through `change` (redaction, before it is kept). */
  mapText(state: State, change: (text: string) => string): State;
  /** The record a remembered state amounts to: what the read before handed over. */
  recordOf(state: State, session: string): TranscriptRecord;
}

const claude: TranscriptReader<ClaudeTranscriptState> = {
  read: readClaudeTranscript,
  stateOrNull: claudeStateOrNull,
  mapText: mapStateText,
  recordOf: claudeRecordOf,
};

const codex: TranscriptReader<ListTranscriptState> = {
  read: readCodexTranscript,
  stateOrNull: listStateOrNull,
  mapText: mapListStateText,
  recordOf: listRecordOf,
};

const gemini: TranscriptReader<ListTranscriptState> = {
  read: readGeminiTranscript,
  stateOrNull: listStateOrNull,
  mapText: mapListStateText,
  recordOf: listRecordOf,
};

const copilot: TranscriptReader<CopilotTranscriptState> = {
  read: readCopilotTranscript,
  stateOrNull: copilotStateOrNull,
  mapText: mapCopilotStateText,
  recordOf: copilotRecordOf,
};

/** The agents whose transcripts are read, by the name the hooks give them (`--agent`). */
export const TRANSCRIPT_READERS: Readonly<Record<string, TranscriptReader<unknown>>> = {
  claude: claude as TranscriptReader<unknown>,
  codex: codex as TranscriptReader<unknown>,
  gemini: gemini as TranscriptReader<unknown>,
  copilot: copilot as TranscriptReader<unknown>,
};

/**
 * What a read of a session handed over whole remembers for the next (kept per session in our store): the
 * shell and edit calls it took in, so that the next read hands over only new commands (a `replace` save
 * may have cut the list since) and tells the files written since, and the tasks and status it handed
 * over, to tell what is newer.
 */
export interface InlineTranscriptState {
  version: 1;
  calls: string[];
  tasks?: Task[] | undefined;
  status?: string | undefined;
}

/** As many call ids as the file readers remember. */
const MAX_INLINE_CALLS = 400;

/** One agent whose hook hands the session over in the payload; `read` takes the payload for a file. */
export type InlineTranscriptReader = Omit<TranscriptReader<InlineTranscriptState>, 'read'> & {
  read(
    payload: unknown,
    session: string,
    previous: InlineTranscriptState | null,
  ): ReadResult<InlineTranscriptState> | null;
};

const opencode: InlineTranscriptReader = {
  read(payload, session, previous) {
    const known = new Set(previous?.calls ?? []);
    const record = readOpenCodeSession(payload, session, known);
    if (!record) return null;
    const calls = [...known, ...openCodeTakenCalls(payload).filter((id) => !known.has(id))];
    return {
      record,
      filesSinceLastRead: openCodeFilesWrittenSince(payload, known),
      state: {
        version: 1,
        calls: calls.slice(-MAX_INLINE_CALLS),
        ...(record.tasks ? { tasks: [...record.tasks] } : {}),
        ...(record.status !== undefined ? { status: record.status } : {}),
      },
    };
  },
  stateOrNull(value) {
    if (typeof value !== 'object' || value === null) return null;
    const state = value as Record<string, unknown>;
    const isTask = (item: unknown) =>
      typeof item === 'object' &&
      item !== null &&
      typeof (item as Task).description === 'string' &&
      (TASK_STATUSES as readonly unknown[]).includes((item as Task).status);
    const valid =
      state.version === 1 &&
      Array.isArray(state.calls) &&
      state.calls.every((id) => typeof id === 'string') &&
      (state.tasks === undefined || (Array.isArray(state.tasks) && state.tasks.every(isTask))) &&
      (state.status === undefined || typeof state.status === 'string');
    return valid ? (state as unknown as InlineTranscriptState) : null;
  },
  mapText: (state, change) => ({
    ...state,
    ...(state.tasks
      ? { tasks: state.tasks.map((task) => ({ ...task, description: change(task.description) })) }
      : {}),
    ...(state.status !== undefined ? { status: change(state.status) } : {}),
  }),
  recordOf: (state, session) => ({
    session,
    tasks: state.tasks,
    status: state.status,
    files: [],
    commands: [],
  }),
};

/**
 * The agents whose hooks hand the session over in the payload instead of naming a file (OpenCode's
 * plugin, which reads it through OpenCode's SDK client): read whole each time.
 */
export const INLINE_TRANSCRIPT_READERS: Readonly<Record<string, InlineTranscriptReader>> = {
  opencode,
};
