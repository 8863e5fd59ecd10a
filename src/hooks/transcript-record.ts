import path from 'node:path';
import type { AppDeps } from '../app/deps.js';
import { recordTranscript, type TranscriptSource } from '../app/record-transcript.js';
import { copilotTurnWritten } from '../transcripts/copilot.js';
import { type HookContext, type HookEvent, type HookResult, hookProjectRoot } from './common.js';
import { type HookInput, objectField, stringField } from './input.js';

/** The session's transcript as the hook input names it, if it does. */
export function transcriptSource(input: HookInput, context: HookContext): TranscriptSource | undefined {
  const file = stringField(input, 'transcript_path', 'transcriptPath');
  const agent = context.agent ?? 'claude';
  if (!file) {
    // OpenCode's plugin hands the session over in the payload (it has no transcript file of its own).
    const inline = objectField(input, 'transcript');
    const session = stringField(input, 'session_id', 'sessionId');
    return inline && session ? { agent, file: '', session, inline } : undefined;
  }
  return {
    agent,
    file,
    session: stringField(input, 'session_id', 'sessionId') ?? path.basename(file, path.extname(file)),
    lastMessage: stringField(input, 'last_assistant_message'),
  };
}

/** Agents whose hooks have no end of the session (Codex's hooks; OpenCode's plugin events). */
const NO_SESSION_END: ReadonlySet<string> = new Set(['codex', 'opencode']);

/**
 * At the end of a turn (Stop) and of the session (SessionEnd, including the end `/clear` causes): fill
 * what the agent did not save from its transcript. Stop touches only the checkpoint file, and finishes
 * before the hook answers: in print mode Claude Code ends right after, cancelling what runs in the
 * background. SessionEnd also records the files the agent wrote (a full save, with git).
 */
export async function recordFromTranscript(
  input: HookInput,
  deps: AppDeps,
  event: HookEvent,
  context: HookContext = {},
): Promise<HookResult> {
  const source = transcriptSource(input, context);
  if (!source) return { notes: [] };
  // At the end of a turn only: a session can end on a turn cut short, whose answer never comes.
  if (event === 'Stop' && source.agent === 'copilot' && source.file)
    await untilCopilotTurnWritten(source.file, context);
  const outcome = await recordTranscript(deps, {
    projectRoot: hookProjectRoot(deps, input),
    source,
    full: event === 'SessionEnd',
    // Codex and OpenCode have no session end hook: their turn's end records the files they wrote.
    filesAtTurnEnd: event === 'Stop' && NO_SESSION_END.has(source.agent),
  });
  return {
    notes: outcome.recorded || outcome.quiet ? [] : [`nothing taken from the transcript: ${outcome.why}`],
  };
}

/** At most this long, and never past the hook's budget, for Copilot CLI to write the turn's end. */
const COPILOT_WAIT_MS = 2_000;

/**
 * Waits, briefly, until Copilot CLI's events file holds the answer of the turn that just ended: it writes
 * its events behind the session, and a read that came first would leave the checkpoint's status a turn
 * behind (the answer is read at the next hook). Goes on after the wait either way.
 */
async function untilCopilotTurnWritten(file: string, context: HookContext): Promise<void> {
  const until = Math.min(
    Date.now() + COPILOT_WAIT_MS,
    (context.deadline ?? Number.POSITIVE_INFINITY) - 1_000,
  );
  while (!copilotTurnWritten(file) && Date.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 25));
}
