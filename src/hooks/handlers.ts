import { captureFacts, recordCommands } from '../app/auto.js';
import type { AppDeps } from '../app/deps.js';
import { loadCheckpoint, readCheckpoint } from '../app/load.js';
import { takeSnapshot } from '../app/rewind.js';
import { ROOT_ENV } from '../app/root.js';
import { formatAge } from '../core/time.js';
import { startBackgroundGc } from './background.js';
import { bashOutcome, type HookInput, stringField } from './input.js';

/** The events `claude-checkpoint hook <event>` understands. */
export const HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreCompact',
  'PostToolUse',
  'PostToolUseFailure',
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Claude Code drops hook output past 10,000 characters. */
export const HOOK_OUTPUT_MAX_CHARS = 10_000;

/** What a hook prints: JSON for Claude Code on stdout (or nothing), and notes for people on stderr. */
export interface HookResult {
  stdout?: string;
  notes: string[];
}

export const STARTUP_ENV = 'CHECKPOINT_HOOK_STARTUP';

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

export async function handleHook(event: HookEvent, input: HookInput, deps: AppDeps): Promise<HookResult> {
  switch (event) {
    case 'SessionStart':
      return sessionStart(input, deps);
    case 'UserPromptSubmit':
      return userPromptSubmit(input, deps);
    case 'PreCompact':
      return preCompact(input, deps);
    case 'PostToolUse':
    case 'PostToolUseFailure':
      return postToolUse(input, deps, event);
  }
}

/**
 * After /clear, compaction or resume: the whole brief, as additional context. At startup: a short notice
 * (or the brief, or nothing, per CHECKPOINT_HOOK_STARTUP = notice | brief | off). Nothing saved: nothing said.
 */
async function sessionStart(input: HookInput, deps: AppDeps): Promise<HookResult> {
  const source = stringField(input, 'source') ?? 'startup';
  const onStartup = deps.env[STARTUP_ENV]?.trim() || 'notice';
  if (source === 'startup' && onStartup === 'off') return { notes: [] };
  const projectRoot = hookProjectRoot(deps, input);
  let context: string;
  if (source === 'startup' && onStartup !== 'brief') {
    // A notice needs what was saved, not what changed since: no git, no brief.
    const saved = await readCheckpoint(deps, { projectRoot });
    if (!saved.found) return { notes: [] };
    const tasks = saved.checkpoint.goal.tasks;
    const done = tasks.filter((task) => task.status === 'done').length;
    const age = formatAge(new Date(saved.checkpoint.updatedAt), deps.now());
    context = [
      `A session checkpoint exists for this project (saved ${age}).`,
      `Goal: ${saved.checkpoint.goal.primary.slice(0, 300)}`,
      tasks.length > 0 ? `Tasks: ${done}/${tasks.length} done.` : '',
      'If the user wants to continue that work, call load_session_checkpoint (or run `claude-checkpoint brief`) to get the resume brief.',
    ]
      .filter(Boolean)
      .join('\n');
  } else {
    const loaded = await loadCheckpoint(deps, { projectRoot });
    if (!loaded.found) return { notes: [] };
    const why =
      source === 'compact'
        ? 'the conversation was compacted'
        : source === 'clear'
          ? '/clear'
          : `session ${source}`;
    context = `Session checkpoint restored automatically after ${why}. Treat it as your memory of this work: continue from its next steps, and re-read only the files it flags as changed.\n\n${loaded.brief}`;
  }
  const output = {
    hookSpecificOutput: {
      hookEventName: 'SessionStart',
      additionalContext: context.slice(0, HOOK_OUTPUT_MAX_CHARS - 200),
    },
  };
  return { stdout: JSON.stringify(output), notes: [] };
}

/** A snapshot before every prompt, labelled with the prompt's first line. Prints nothing on stdout: that would become context. */
async function userPromptSubmit(input: HookInput, deps: AppDeps): Promise<HookResult> {
  const prompt = stringField(input, 'prompt', 'user_prompt') ?? '';
  const label = prompt
    .split('\n')
    .find((line) => line.trim() !== '')
    ?.trim();
  const outcome = await takeSnapshot(deps, {
    projectRoot: hookProjectRoot(deps, input),
    trigger: 'prompt',
    label,
    sessionId: stringField(input, 'session_id', 'sessionId'),
  });
  const cliPath = process.argv[1];
  if (outcome.detachDue && cliPath) startBackgroundGc(cliPath, outcome.root.root, deps.env);
  return { notes: [] };
}

/** Before compaction: refresh the facts in the checkpoint (keeping the agent's notes) and take a snapshot. */
async function preCompact(input: HookInput, deps: AppDeps): Promise<HookResult> {
  const projectRoot = hookProjectRoot(deps, input);
  await captureFacts(deps, { projectRoot });
  await takeSnapshot(deps, {
    projectRoot,
    trigger: 'pre-compact',
    label: `before ${stringField(input, 'trigger') ?? 'auto'} compaction`,
    sessionId: stringField(input, 'session_id', 'sessionId'),
  });
  return { notes: [] };
}

/** After a Bash tool call: its command and outcome join the checkpoint's recent commands (redacted). */
async function postToolUse(input: HookInput, deps: AppDeps, event: HookEvent): Promise<HookResult> {
  if (stringField(input, 'tool_name') !== 'Bash') return { notes: [] };
  // PostToolUse fires for calls that succeeded; PostToolUseFailure (newer versions) for the others.
  const outcome = bashOutcome(input, { failed: event === 'PostToolUseFailure' });
  if (!outcome.command) return { notes: ['PostToolUse: no command in the hook input; nothing recorded'] };
  await recordCommands(deps, {
    projectRoot: hookProjectRoot(deps, input),
    commands: [{ command: outcome.command, exitCode: outcome.exitCode, note: outcome.note }],
  });
  return { notes: [] };
}
