import type { Command } from 'commander';
import type { AppDeps } from '../app/deps.js';
import { HOOK_EVENTS } from '../core/hook-events.js';
import { AGENTS } from '../hooks/agent-names.js';

/**
 * `claude-checkpoint hook <event>`: the same hooks the plugin runs through its lean entry (dist/hook.js),
 * for hand-written hook settings. Always exits 0.
 */
export function registerHookCommand(
  program: Command,
  deps: AppDeps,
  setExitCode: (code: number) => void,
): void {
  program
    .command('hook')
    .description(`run as a Claude Code hook (${HOOK_EVENTS.join(', ')}); reads the hook JSON on stdin`)
    .argument('<event>', 'the hook event name')
    .option(
      '--root <dir>',
      'project root (default: CHECKPOINT_PROJECT_ROOT, then CLAUDE_PROJECT_DIR, then the session folder)',
    )
    .option('--agent <name>', `the agent whose hook this is: ${AGENTS.join(', ')} (default claude)`)
    .action(async (event: string, options: { root?: string; agent?: string }) => {
      setExitCode(0);
      const { runHook } = await import('../hooks/run.js');
      await runHook(event, options, deps, { cliPath: process.argv[1] });
    });
}
