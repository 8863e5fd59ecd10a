import type { AppDeps } from '../app/deps.js';
import { recordCommands } from '../app/record-commands.js';
import { describeError } from '../core/errors.js';
import {
  type HookContext,
  type HookEvent,
  type HookResult,
  hookProjectRoot,
  type InputCut,
} from './common.js';
import { bashOutcome, type HookInput, stringField } from './input.js';
import { POWERSHELL_TOOL } from './pre-command-gate.js';

const UNKNOWN_OUTCOME: Record<InputCut, string> = {
  'over-limit': 'outcome unknown: the hook input was over 16 MB',
  unfinished: 'outcome unknown: the hook input ended before its report',
};

const COMMAND_CUT: Record<InputCut, string> = {
  'over-limit':
    'the command was cut with the hook input at its 16 MB read (MAX_INPUT_BYTES): too long to record, and never recorded in part; nothing recorded',
  unfinished: 'the hook input ended before its command did; nothing recorded',
};

/**
 * After a shell tool call (Bash, or an agent's PowerShell tool): its command and outcome join the checkpoint's recent commands (redacted). When
 * the checkpoint's lock is busy they go to its journal, and the lock's holder merges them: the hook waits
 * for nobody. Only where the journal cannot help does it wait for the lock, a quarter of its budget at most.
 */
export async function postToolUse(
  input: HookInput,
  deps: AppDeps,
  event: HookEvent,
  context: HookContext = {},
): Promise<HookResult> {
  const tool = stringField(input, 'tool_name');
  if (tool !== 'Bash' && tool !== POWERSHELL_TOOL) return { notes: [] };
  // PostToolUse fires for calls that succeeded; PostToolUseFailure (newer versions) for the others.
  const read = bashOutcome(input, { failed: event === 'PostToolUseFailure' });
  // Cut at the input's limit, the tool's report is gone in part: its exit code (an agent reports it after
  // the output) cannot be told, and a default would call a failure a success (a review).
  const outcome = context.inputCut
    ? { command: read.command, note: UNKNOWN_OUTCOME[context.inputCut] }
    : read;
  // A shell call always has a command: in a cut input, the cut took it (issue 26: it was called missing).
  if (!outcome.command)
    return {
      notes: [
        context.inputCut ? COMMAND_CUT[context.inputCut] : 'no command in the hook input; nothing recorded',
      ],
    };
  const { lostRelay } = context;
  let recorded: Awaited<ReturnType<typeof recordCommands>>;
  try {
    recorded = await recordCommands(
      deps,
      {
        projectRoot: hookProjectRoot(deps, input),
        commands: [
          {
            command: outcome.command,
            exitCode: outcome.exitCode,
            note: outcome.note,
            // The same call delivered twice (hooks in two scopes, an agent that retries) is recorded once.
            callId: stringField(input, 'tool_use_id', 'toolUseId', 'tool_call_id', 'toolCallId'),
          },
        ],
      },
      // Through the relay, the hook is answered as soon as the command is on disk, in the journal (issue
      // 26: it must be before the hook ends); the server merges it into the checkpoint after.
      {
        lockWaitMs: Math.min(2_000, (context.budgetMs ?? 8_000) / 4),
        onRecorded: context.answerEarly,
        recordId: context.recordId,
        isRetry: lostRelay !== undefined,
      },
    );
  } catch (error) {
    if (!lostRelay) throw error;
    return {
      notes: [
        `the MCP server stopped before it answered (${lostRelay.why}), and this hook could not record the command either (${describeError(error)}): it may not have been recorded`,
      ],
    };
  }
  // Said, not silent: the server stopped mid-hook, which its log may explain.
  if (!lostRelay) return { notes: [] };
  const stopped = `the MCP server stopped before it answered (${lostRelay.why})`;
  if (recorded.isWritten === false) return { notes: [`${stopped}, after it recorded the command`] };
  return {
    notes: [
      recorded.pending
        ? `${stopped}; this hook put the command in the checkpoint's journal, merged by the next save or hook within ten minutes`
        : `${stopped}; this hook recorded the command itself`,
    ],
  };
}
