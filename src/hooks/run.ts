import path from 'node:path';
import type { AppDeps } from '../app/deps.js';
import { SETUP_HOOK_EVENTS } from '../app/setup-hooks.js';
import { describeError, thenSentence } from '../core/errors.js';
import { settingsOf } from '../store/settings-file.js';
import { ADAPTERS, AGENTS, type Agent } from './agents.js';
import { HOOK_EVENTS, type HookContext, type HookEvent, hookRootLabel, type InputCut } from './common.js';
import { handleHook, ROOT_OPTION } from './handlers.js';
import type { HookOptions } from './hook-args.js';
import { HOOK_BUDGET_MS, inputWaitMs } from './hook-budgets.js';
import { MAX_INPUT_BYTES, readHookStdin, writeAll } from './hook-io.js';
import { INPUT_CUT_KEY, INPUT_UNFINISHED_KEY, isInputCut, parseHookInput } from './input.js';
import { renderPreCommand } from './pre-command-output.js';

/**
 * Events whose handler is not cut short at its budget: it records a command (in the checkpoint, or in
 * its journal when the lock is busy), which waits for nobody, and a starved machine taking longer than
 * the budget to get there must not cost the record (issue 26). What may wait after uses `budgetMs`.
 */
const RECORDING_EVENTS: ReadonlySet<HookEvent> = new Set(['PostToolUse', 'PostToolUseFailure']);

/**
 * Runs one hook: reads Claude Code's hook JSON on stdin, acts on it within the event's time budget (the
 * Bash hooks keep theirs themselves: RECORDING_EVENTS), and writes its output. Never throws: a broken checkpoint tool must never break a session, so problems are
 * explained on stderr and the caller exits 0.
 */
export async function runHook(
  event: string,
  options: HookOptions,
  deps: AppDeps,
  context: HookContext = {},
): Promise<void> {
  const { stdout, stderr } = await executeHook(
    event,
    options,
    await readHookStdin(inputWaitMs(event, deps.env)),
    deps,
    context,
  );
  if (stdout) writeAll(1, stdout);
  if (stderr) writeAll(2, stderr);
}

/**
 * One hook, given its input: what it writes to stdout (for the agent) and stderr (for people). The
 * in-process body of runHook, and what the MCP server runs for a hook relayed to it.
 */
export async function executeHook(
  event: string,
  options: HookOptions,
  stdin: string,
  deps: AppDeps,
  context: HookContext = {},
): Promise<{ stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const note = (text: string) => {
    stderr += `claude-checkpoint hook ${event}: ${text}\n`;
  };
  // As the CLI's commands refuse it (cli/repeated-options.ts), but a hook never fails the session.
  if (options.repeated) {
    note(`${options.repeated} was given more than once; give it once. Nothing done.`);
    return { stdout, stderr };
  }
  const agent = (options.agent ?? 'claude') as Agent;
  const adapter = ADAPTERS[agent];
  if (!adapter) {
    note(`unknown agent '${options.agent}'; expected one of ${AGENTS.join(', ')}. Nothing done.`);
    return { stdout, stderr };
  }
  if (agent === 'claude' && !(HOOK_EVENTS as readonly string[]).includes(event)) {
    // An event of Gemini CLI's own (trial 4, item 9): the hook was run without the agent that sends it.
    const isGemini = (SETUP_HOOK_EVENTS.gemini as readonly string[]).includes(event);
    note(
      `unknown event; expected one of ${HOOK_EVENTS.join(', ')}${isGemini ? `. ${event} is Gemini CLI's event: add --agent gemini, as \`claude-checkpoint setup gemini\` writes it` : ''}. Nothing done.`,
    );
    return { stdout, stderr };
  }
  // path.resolve would make '' the current folder in silence, as the CLI's commands refuse it too.
  if (options.root === '') {
    note(
      "--root must name the project's folder: got '' (leave --root out for the session's folder). Nothing done.",
    );
    return { stdout, stderr };
  }
  let timer: NodeJS.Timeout | undefined;
  try {
    const raw = parseHookInput(stdin);
    const inputBytes = raw[INPUT_CUT_KEY];
    const unfinishedBytes = raw[INPUT_UNFINISHED_KEY];
    const inputCut: InputCut | undefined =
      typeof inputBytes === 'number' ? 'over-limit' : isInputCut(raw) ? 'unfinished' : undefined;
    delete raw[INPUT_CUT_KEY];
    delete raw[INPUT_UNFINISHED_KEY];
    if (typeof inputBytes === 'number')
      note(
        `the hook input is ${inputBytes} bytes, over the ${MAX_INPUT_BYTES} read (MAX_INPUT_BYTES, 16 MB): only the fields in its first 16 MB are used (the one the cut falls in is left out, never kept in part)`,
      );
    else if (inputCut)
      note(
        `the hook input ended, or its wait did, after ${unfinishedBytes} bytes, before its JSON object did: only its whole fields are used`,
      );
    const mapped = adapter.toEvent(event, raw, inputCut !== undefined);
    if (!mapped) return { stdout, stderr }; // an event or tool this agent reports that is not ours
    const { event: hookEvent, input } = mapped;
    // The server took this hook and died before answering: it may have run it, so only a command's
    // record is written again, under the id the server had (the journal takes an id once).
    if (context.lostRelay && !RECORDING_EVENTS.has(hookEvent)) {
      note(
        `the MCP server stopped before it answered (${context.lostRelay.why}); it may not have finished this hook`,
      );
      return { stdout, stderr };
    }
    // The current folder only for a relative --root: an absolute one works from a deleted folder.
    if (options.root !== undefined)
      input[ROOT_OPTION] = path.isAbsolute(options.root)
        ? path.resolve(options.root)
        : path.resolve(deps.cwd(), options.root);
    // A wrong setting never breaks a session: the hook says so and goes on with the value below it.
    const told = new Set<string>();
    const hookDeps: AppDeps = {
      ...deps,
      // A root that is wrong is named where it came from, never as the tools' projectRoot (issue 26).
      rootArgument: hookRootLabel(deps, input),
      isHook: true,
      settingsProblem: (text) => {
        if (!told.has(text)) note(text);
        told.add(text);
      },
    };
    const budget = settingsOf(hookDeps).hookTimeoutMs ?? HOOK_BUDGET_MS[hookEvent];
    const { answerEarly } = context;
    const handling = handleHook(hookEvent, input, hookDeps, {
      ...context,
      // The early answer carries what the hook has said so far (its input cut short, a setting's problem).
      ...(answerEarly ? { answerEarly: () => answerEarly(stderr) } : {}),
      budgetMs: budget,
      deadline: Date.now() + budget,
      agent,
      briefOnNextPrompt: adapter.briefOnNextPrompt,
      ...(inputCut ? { inputCut } : {}),
    });
    const result = RECORDING_EVENTS.has(hookEvent)
      ? await handling
      : await Promise.race([
          handling,
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () => reject(new Error(`gave up after ${budget} ms so as not to hold up the session`)),
              budget,
            );
          }),
        ]);
    // The pre-command hook's output has its own shape per agent (a permission decision, a message).
    const output =
      hookEvent === 'PreToolUse' ? renderPreCommand(agent, event, result) : adapter.render(event, result);
    if (output) stdout = `${output}\n`;
    for (const text of result.notes) note(text);
  } catch (error) {
    note(thenSentence(describeError(error), 'The session continues unaffected.'));
  } finally {
    clearTimeout(timer);
  }
  return { stdout, stderr };
}
