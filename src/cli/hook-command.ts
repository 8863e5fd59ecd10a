import type { Command } from 'commander';
import type { AppDeps } from '../app/deps.js';
import { HOOK_EVENTS } from '../core/hook-events.js';
import { AGENTS } from '../hooks/agent-names.js';
import { watchRepeatedValues } from './repeated-options.js';

/**
 * `claude-checkpoint hook <event>`: the same hooks the plugin runs through its lean entry (dist/hook.js),
 * for hand-written hook settings. Always exits 0.
 */
export function registerHookCommand(
  program: Command,
  deps: AppDeps,
  setExitCode: (code: number) => void,
): void {
  let repeated: string | undefined;
  const hook = program
    .command('hook')
    .description(
      `run as a hook of Claude Code, Codex, Copilot CLI, Gemini CLI or OpenCode (name it with --agent); reads the agent's hook JSON on stdin. Claude Code's events: ${HOOK_EVENTS.join(', ')}; the others' in docs/cli.md`,
    )
    .argument('<event>', 'the hook event, as the agent names it')
    .option(
      '--root <dir>',
      'project root (default: CHECKPOINT_PROJECT_ROOT, then CLAUDE_PROJECT_DIR, then the session folder)',
    )
    .option('--agent <name>', `the agent whose hook this is: ${AGENTS.join(', ')} (default claude)`)
    .action(async (event: string, own: { root?: string; agent?: string }, command: Command) => {
      setExitCode(0);
      // `claude-checkpoint --root <dir> hook <event>`: the program's --root, unless the hook has its own.
      const options = {
        ...own,
        root: own.root ?? (command.parent?.opts().root as string | undefined),
        ...(repeated ? { repeated } : {}),
      };
      const { runHook } = await import('../hooks/run.js');
      await runHook(event, options, deps, { cliPath: process.argv[1] });
    });
  // Said by the hook, as its entry's parseHookArgs does: commander would keep the last value in silence.
  for (const command of [program, hook])
    watchRepeatedValues(command, (option) => {
      repeated ??= option.long;
    });
}
