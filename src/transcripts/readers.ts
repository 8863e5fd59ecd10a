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
import { readOpenCodeSession } from './opencode.js';

/**
 * One agent's transcript format: read it (from where the last read stopped) into the common record.
 * Every reader keeps a state of its own between reads, which the app keeps in our store.
 */
export interface TranscriptReader<State> {
  read(
    file: string,
    session: string,
    previous: State | null,
  ): { record: TranscriptRecord; state: State } | null;
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
 * The agents whose hooks hand the session over in the payload instead of naming a file (OpenCode's
 * plugin, which reads it through OpenCode's SDK client): the whole of what is read, nothing remembered.
 */
export const INLINE_TRANSCRIPT_READERS: Readonly<
  Record<string, (payload: unknown, session: string) => TranscriptRecord | null>
> = {
  opencode: readOpenCodeSession,
};
