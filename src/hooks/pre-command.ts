import { existsSync } from 'node:fs';
import path from 'node:path';
import type { AppDeps } from '../app/deps.js';
import { isGcDue, takeSnapshot } from '../app/rewind.js';
import { ROOT_ENV } from '../app/root.js';
import { startBackgroundGc } from './background.js';
import { type HookContext, type HookResult, hookProjectRoot } from './common.js';
import { type HookInput, stringField } from './input.js';
import { COMMAND_CWD, pendingCommandRisk, realOrSelf } from './pre-command-gate.js';

/** The trigger of a snapshot taken before a command that may destroy work. */
export const PRE_COMMAND_TRIGGER = 'pre-command';

/** The label of a snapshot before a command the hook could not read whole (its input was cut). */
export const UNREAD_COMMAND_LABEL =
  '(a command the hook could not read whole: its input was over 16 MB, or ended early)';

/**
 * A snapshot before a shell command (Bash or PowerShell) that may destroy work (issue 25), labelled with
 * the command (redacted, as every label is). Never blocks, denies or asks: it says nothing to the agent,
 * and a failure is a note on stderr while the command runs anyway. Through the relay, the command runs as soon as the snapshot's
 * content is taken.
 */
export async function preToolUse(input: HookInput, deps: AppDeps, context: HookContext): Promise<HookResult> {
  const risk = pendingCommandRisk(input, deps.cwd(), context.inputCut !== undefined);
  const label = risk.isCommandUnread ? UNREAD_COMMAND_LABEL : risk.command?.replace(/\s+/g, ' ');
  if (!risk.destructive || label === undefined) return { notes: [] };
  const snapshot = (projectRoot: string | undefined, onContentTaken?: () => void) =>
    takeSnapshot(deps, {
      projectRoot,
      trigger: PRE_COMMAND_TRIGGER,
      label,
      sessionId: stringField(input, 'session_id', 'sessionId'),
      onContentTaken,
    });
  // A command the agent runs in another repository (a folder it named outside the project, or a
  // repository nested in it, which the project's snapshots leave out) gets that repository's snapshot
  // too, taken first: the command may start once the last one's content is taken.
  const projectRoot = hookProjectRoot(deps, input);
  const other = otherRepository(input, projectRoot ?? deps.env[ROOT_ENV]?.trim() ?? deps.cwd());
  const others = other ? [await snapshot(other)] : [];
  const outcome = await snapshot(projectRoot, context.answerEarly);
  for (const done of [...others, outcome])
    if (isGcDue(done) && context.cliPath) startBackgroundGc(context.cliPath, done.root.root, deps.env);
  return { notes: [] };
}

/**
 * The repository the command runs in (the nearest folder with a `.git` above the folder the agent named
 * for it), when that is not the session's project; `null` when the command runs in the project, or in a
 * folder of no repository outside it (never a snapshot of an arbitrary folder, which could be the home).
 */
function otherRepository(input: HookInput, sessionRoot: string): string | null {
  const commandCwd = stringField(input, COMMAND_CWD);
  if (!commandCwd) return null;
  const real = (file: string) => realOrSelf(path.resolve(file));
  const project = real(sessionRoot);
  for (let dir = real(commandCwd); ; ) {
    if (dir === project) return null;
    if (existsSync(path.join(dir, '.git'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}
