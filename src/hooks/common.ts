import type { AppDeps } from '../app/deps.js';
import { ROOT_ENV } from '../app/root.js';
import { type HookInput, stringField } from './input.js';

export { HOOK_EVENTS, type HookEvent } from '../core/hook-events.js';

/** Claude Code drops hook output past 10,000 characters. */
export const HOOK_OUTPUT_MAX_CHARS = 10_000;

/** What a hook has to say: text for the model (each agent's adapter renders it), and notes for people on stderr. */
export interface HookResult {
  context?: string;
  notes: string[];
  /** For the person, shown by the agent where it can (Claude Code's `systemMessage`). */
  userMessage?: string;
}

/** What a handler may need beyond the app's dependencies. */
export interface HookContext {
  /**
   * The agent whose hook this is (`--agent`), for what differs by agent below the adapters (its transcript),
   * and recorded with its prompts' snapshots.
   */
  agent?: string | undefined;
  /** The CLI's own file, for work a hook hands to a detached `claude-checkpoint` process. */
  cliPath?: string | undefined;
  /**
   * The agent has no session start after compaction (Gemini CLI, Copilot CLI): compaction leaves the
   * brief due, and the next prompt brings it back.
   */
  briefOnNextPrompt?: boolean;
  /**
   * Lets the agent go on before the handler has finished: a handler calls it, with nothing to say to the
   * agent, once all the agent must wait for is done. Only the MCP server's relay offers it: a hook's own
   * process has to finish its work before it exits. The relay is given the notes said so far (`stderr`:
   * executeHook passes them; a handler calls it with none).
   */
  answerEarly?: ((stderr?: string) => void) | undefined;
  /** The event's time budget: past it the hook gives up (hooks/run.ts). Work that may wait keeps well within it. */
  budgetMs?: number | undefined;
  /** When the budget runs out (ms since the epoch): a wait that can be cut short ends a little before. */
  deadline?: number | undefined;
  /**
   * The input was cut (hooks/hook-io.ts): over MAX_INPUT_BYTES, or it ended before its JSON object did.
   * What came after the cut is gone, a command's outcome with it, so nothing may be guessed from what is missing.
   */
  inputCut?: InputCut | undefined;
  /** The command journal's id for the record of a relayed Bash hook (relay-protocol.ts's RelayRequest.recordId). */
  recordId?: string | undefined;
  /**
   * The server this hook handed its event to took it and died before answering (`why`): the hook runs
   * nothing that may have run there; a Bash hook writes its record again under `recordId`.
   */
  lostRelay?: { why: string } | undefined;
}

/**
 * How long the project's git scan may take inside a hook: what is left of its budget, less a margin to
 * answer in. Past it the brief comes without its drift check and says so (a million files can take
 * longer than a hook may). `undefined` outside a budget.
 */
export function scanTimeoutWithin(context: HookContext): number | undefined {
  if (context.deadline === undefined) return undefined;
  return Math.max(500, context.deadline - Date.now() - 1_500);
}

/** How a hook's input was cut: past its 16 MB read, or ended (or its wait did) before its object did. */
export type InputCut = 'over-limit' | 'unfinished';

/** Where `hook --root` puts its value in the input, ahead of every other rule. */
export const ROOT_OPTION = '__claudeCheckpointRoot';

/**
 * The project a hook acts on: `--root`, then CHECKPOINT_PROJECT_ROOT, then the project folder Claude Code names
 * (CLAUDE_PROJECT_DIR), then the session's cwd from the hook input, then the process's folder.
 */
export function hookProjectRoot(deps: AppDeps, input: HookInput): string | undefined {
  if (typeof input[ROOT_OPTION] === 'string') return input[ROOT_OPTION];
  // undefined lets root resolution apply CHECKPOINT_PROJECT_ROOT itself, with its own error messages.
  if (deps.env[ROOT_ENV]?.trim()) return undefined;
  return deps.env.CLAUDE_PROJECT_DIR?.trim() || stringField(input, 'cwd') || undefined;
}

/** Where `hookProjectRoot` took the root from, as errors name it: `--root`, CLAUDE_PROJECT_DIR, the input's cwd. */
export function hookRootLabel(deps: AppDeps, input: HookInput): string | undefined {
  if (typeof input[ROOT_OPTION] === 'string') return '--root';
  if (deps.env[ROOT_ENV]?.trim()) return undefined;
  if (deps.env.CLAUDE_PROJECT_DIR?.trim()) return 'CLAUDE_PROJECT_DIR';
  return stringField(input, 'cwd') ? "the hook input's cwd" : undefined;
}
