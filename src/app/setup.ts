import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { absoluteDirFromEnv } from '../core/env-dirs.js';
import { type AgentWithHome, agentHome, relativeAgentHome } from '../store/agent-homes.js';
import { homeFolder } from '../store/home-folder.js';
import { type HooksOff, hooksSwitchedOff } from './agent-hooks-off.js';
import { BOTH_SCOPES_RUN, bothScopesFix, twiceEffect } from './agent-wiring.js';
import { hooksInBothPlaces, inlineHookEvents } from './codex-inline-hooks.js';
import { readJsoncObject } from './jsonc.js';
import { openCodePlugin } from './opencode-plugin.js';
import type { SetupAgent } from './setup-agents.js';
import {
  type FileEdit,
  hookCommand,
  isOurHookCommand,
  isOurHooksFile,
  jsonEdit,
  NAME,
  ownFileEdit,
  SERVER_MARK,
  type SetupHolds,
  type SetupNote,
  tomlServerEdit,
} from './setup-edits.js';
import {
  type EditTarget,
  foldersUpTo,
  forgetSetupNote,
  missingFolders,
  openEditTarget,
  readSetupNote,
  removeEditTarget,
  writeEditTarget,
  writeSetupNote,
} from './setup-files.js';
import { CODEX_HOOKS, COPILOT_HOOKS, GEMINI_HOOKS } from './setup-hooks.js';

/** The first line of the plugin setup writes for OpenCode: a plugin file without it is not ours. */
const OPENCODE_PLUGIN_FIRST_LINE = `// ${NAME}: added by \`claude-checkpoint setup opencode\``;

export { SETUP_AGENTS, type SetupAgent } from './setup-agents.js';

export interface SetupRequest {
  agent: SetupAgent;
  scope: 'user' | 'project';
  projectRoot: string;
  dryRun: boolean;
  uninstall: boolean;
  /** This installation's own files: the server and the hooks' entry the agent will run. */
  serverPath: string;
  hookPath: string;
  /** The `--root` the command was given, which the commands it prints carry over. */
  commandRoot?: string | undefined;
}

export interface FileReport {
  file: string;
  /** What of ours the file holds (or held, for a removal). */
  holds: SetupHolds;
  action: 'installed' | 'updated' | 'unchanged' | 'removed' | 'absent';
  /** The file as it would be (dry run) or is now; `null` when it does not exist. */
  content: string | null;
}

export interface SetupReport {
  agent: SetupAgent;
  dryRun: boolean;
  files: FileReport[];
  /** What the user must still do once, which setup never does for them. */
  nextStep: string | null;
  /**
   * The other scope (user or project) already has our hooks, which the agent would run too, so every hook
   * twice: the files, and what to do (trial 4, item 4). `null` when it has none, or after an uninstall.
   */
  otherScope: { files: string[]; why: string; twice: string; fix: string } | null;
  /** A setting of the agent's that runs no hooks at all, ours included; `null` when none, or after an uninstall. */
  hooksOff: HooksOff | null;
  /**
   * The variable moving the agent's user folder holds a relative path, taken from the current folder as
   * the agent takes it: the folder setup used. `null` when it is absolute or unset, and for `--project`.
   */
  relativeHome: { variable: string; value: string; folder: string } | null;
  /**
   * Codex only: the `config.toml` beside setup's `hooks.json` has inline `[hooks]` too, which Codex merges
   * with a warning at every startup; what to do. `null` when it has none, or after an uninstall.
   */
  inlineHooks: { events: string[]; detail: string; fix: string } | null;
}

function editsFor(
  request: SetupRequest,
  env: NodeJS.ProcessEnv,
): { edits: FileEdit[]; nextStep: string | null } {
  const home = homeFolder(env);
  // The user's folder as the agent finds it: CODEX_HOME, COPILOT_HOME and GEMINI_CLI_HOME move it.
  const folder = (agent: AgentWithHome, projectFolder: string) =>
    request.scope === 'user' ? agentHome(env, agent) : path.join(request.projectRoot, projectFolder);
  const hook = (event: string) => hookCommand(request.hookPath, event, request.agent);
  if (request.agent === 'gemini') {
    return {
      edits: [
        jsonEdit(path.join(folder('gemini', '.gemini'), 'settings.json'), {
          server: { command: 'node', args: [request.serverPath], env: SERVER_MARK },
          // Gemini CLI names hooks; ours carry our name, and timeouts in milliseconds.
          groups: GEMINI_HOOKS.map(([event, matcher, timeout]) => ({
            event,
            group: { matcher, hooks: [{ name: NAME, type: 'command', command: hook(event), timeout }] },
          })),
        }),
      ],
      // Folder trust is on by default (settingsSchema.ts, security.folderTrust.enabled), and in a folder not
      // trusted Gemini CLI runs no hooks, the user's included (packages/core/src/hooks/hookRegistry.ts), and
      // connects no MCP server (docs/cli/trusted-folders.md; mcp-client-manager.ts). Trust is given in its
      // dialog or with `/permissions trust [<directory-path>]` (docs/reference/commands.md).
      nextStep: `Gemini CLI runs hooks and MCP servers only in a trusted folder (${request.scope === 'user' ? 'each project you start it in' : request.projectRoot}): answer "Trust folder" when it asks, or run /permissions trust in the session.`,
    };
  }
  if (request.agent === 'opencode') {
    // OpenCode: no hook files. Our plugin goes in its plugins folder, the server under \`mcp\` in its config.
    const configDir =
      request.scope === 'user'
        ? path.join(absoluteDirFromEnv(env, 'XDG_CONFIG_HOME') ?? path.join(home, '.config'), 'opencode')
        : request.projectRoot;
    const pluginDir =
      request.scope === 'user'
        ? path.join(configDir, 'plugins')
        : path.join(request.projectRoot, '.opencode', 'plugins');
    const jsonc = path.join(configDir, 'opencode.jsonc');
    const json = path.join(configDir, 'opencode.json');
    return {
      edits: [
        ownFileEdit(
          path.join(pluginDir, `${NAME}.js`),
          'the plugin',
          openCodePlugin(request.hookPath),
          (text) => text.startsWith(OPENCODE_PLUGIN_FIRST_LINE),
        ),
        jsonEdit(existsSync(jsonc) && !existsSync(json) ? jsonc : json, {
          serverKey: 'mcp',
          server: {
            type: 'local',
            command: ['node', request.serverPath],
            enabled: true,
            environment: SERVER_MARK,
          },
          groups: [],
        }),
      ],
      // "Files in these directories are automatically loaded at startup" (https://opencode.ai/docs/plugins),
      // and so is its config: an OpenCode already running has neither.
      nextStep:
        'OpenCode loads plugins and MCP servers when it starts: restart any OpenCode that is running now.',
    };
  }
  if (request.agent === 'copilot') {
    // Copilot CLI loads every hooks file in its folder: ours is a file of its own. The server goes into
    // the user's mcp-config.json, or for a project into its .mcp.json (which Copilot CLI reads from the
    // working folder up to the repository's root, in a trusted folder).
    const hooks = {
      version: 1,
      hooks: Object.fromEntries(
        COPILOT_HOOKS.map(([event, timeoutSec]) => [
          event,
          [{ type: 'command', bash: hook(event), timeoutSec }],
        ]),
      ),
    };
    const hooksFile =
      request.scope === 'user'
        ? path.join(agentHome(env, 'copilot'), 'hooks', `${NAME}.json`)
        : path.join(request.projectRoot, '.github', 'hooks', `${NAME}.json`);
    const server = { command: 'node', args: [request.serverPath], tools: ['*'], env: SERVER_MARK };
    return {
      edits: [
        ownFileEdit(hooksFile, 'the hooks', `${JSON.stringify(hooks, null, 2)}\n`, isOurHooksFile),
        request.scope === 'user'
          ? jsonEdit(path.join(agentHome(env, 'copilot'), 'mcp-config.json'), {
              server: { type: 'local', ...server },
              groups: [],
            })
          : // `stdio`, the type every client of a shared .mcp.json knows (Claude Code reads it too).
            jsonEdit(path.join(request.projectRoot, '.mcp.json'), {
              server: { type: 'stdio', ...server },
              groups: [],
            }),
      ],
      nextStep:
        'Copilot CLI runs hooks and MCP servers only in a folder you trust: answer "trust" when it asks in a project.',
    };
  }
  // Codex: Claude Code's hook format in hooks.json (timeouts in seconds), the MCP server in config.toml.
  const codexDir = folder('codex', '.codex');
  return {
    edits: [
      jsonEdit(path.join(codexDir, 'hooks.json'), {
        groups: CODEX_HOOKS.map(([event, matcher, timeout]) => ({
          event,
          group: {
            ...(matcher ? { matcher } : {}),
            hooks: [{ type: 'command', command: hook(event), timeout }],
          },
        })),
      }),
      tomlServerEdit(path.join(codexDir, 'config.toml'), request.serverPath),
    ],
    nextStep:
      request.scope === 'project'
        ? `Codex reads a project's .codex folder only once you trust the project: start Codex in ${request.projectRoot} and answer that you trust it (or add [projects.${JSON.stringify(request.projectRoot)}] with trust_level = "trusted" to ${path.join(agentHome(env, 'codex'), 'config.toml')}). Then, as for every hook, open /hooks and approve the claude-checkpoint hooks (setup never does either for you).`
        : 'Codex runs hooks only after you review them: start Codex, open /hooks and approve the claude-checkpoint hooks (setup never does that for you).',
  };
}

/**
 * Installs (or with `uninstall`, removes) this tool's MCP server and hooks in an agent's configuration.
 * Edits the user's files as files of theirs: parsed with a real parser, only our entries changed (each
 * marked as ours), formatting and comments kept, written atomically through a symlink with their mode
 * kept. An uninstall takes exactly our entries out of the file as it is now, so what the user wrote
 * since stays; a file setup created goes once nothing else is in it.
 */
export async function setupAgent(request: SetupRequest, env: NodeJS.ProcessEnv): Promise<SetupReport> {
  const { edits, nextStep } = editsFor(request, env);
  const inside = request.scope === 'project' ? request.projectRoot : null;
  // Every file is checked before any is written: a refusal leaves the whole configuration as it was.
  const targets = await Promise.all(edits.map((edit) => openEditTarget(edit.file, inside)));
  const notes = await Promise.all(edits.map((edit) => readSetupNote(env, request.agent, edit.file)));
  // Before any is written: two files of ours in one new folder both name it as made by setup.
  const plans = edits.map((edit, index) =>
    planFileEdit(edit, targets[index] as EditTarget, notes[index] ?? null, request),
  );
  const files: FileReport[] = [];
  for (const plan of plans) files.push(await plan(env));
  const changed = files.some((file) => file.action === 'installed' || file.action === 'updated');
  return {
    agent: request.agent,
    dryRun: request.dryRun,
    files,
    nextStep: changed ? nextStep : null,
    otherScope: request.uninstall ? null : await otherScopeHooks(request, env),
    hooksOff:
      request.uninstall || (request.agent !== 'codex' && request.agent !== 'gemini')
        ? null
        : await hooksSwitchedOff(request.agent, env, request.projectRoot),
    inlineHooks: request.uninstall ? null : await codexInlineHooks(request, edits, targets),
    relativeHome: relativeHomeOf(request, env),
  };
}

function relativeHomeOf(request: SetupRequest, env: NodeJS.ProcessEnv): SetupReport['relativeHome'] {
  const agent = request.agent;
  if (request.scope !== 'user' || (agent !== 'codex' && agent !== 'gemini')) return null;
  const relative = relativeAgentHome(env, agent);
  return relative && { ...relative, folder: agentHome(env, agent) };
}

/** Codex: inline `[hooks]` in the config.toml beside the hooks.json setup writes (see codex-inline-hooks.ts). */
async function codexInlineHooks(
  request: SetupRequest,
  edits: FileEdit[],
  targets: EditTarget[],
): Promise<SetupReport['inlineHooks']> {
  if (request.agent !== 'codex') return null;
  const at = edits.findIndex((edit) => edit.file.endsWith('config.toml'));
  const hooksFile = edits.find((edit) => edit.file.endsWith('hooks.json'))?.file;
  const text = targets[at]?.text;
  if (at === -1 || hooksFile === undefined || text === null || text === undefined) return null;
  const { parse } = await import('smol-toml');
  let events: string[];
  try {
    events = inlineHookEvents(parse(text));
  } catch {
    // Not TOML: setup has refused it already.
    return null;
  }
  if (events.length === 0) return null;
  return { events, ...hooksInBothPlaces(edits[at]?.file ?? '', hooksFile, events) };
}

/**
 * The files of the other scope (the project's for a user set-up, the user's for `--project`) that hold our
 * hooks, which the agent runs as well as this scope's: Codex and Copilot CLI run the hooks of every file,
 * OpenCode loads both plugin folders. Gemini CLI runs a hook with the same name and command once
 * (gemini-cli's hookPlanner.ts, deduplicateHooks), so there only another installation's hooks count.
 */
async function otherScopeHooks(
  request: SetupRequest,
  env: NodeJS.ProcessEnv,
): Promise<SetupReport['otherScope']> {
  const other: SetupRequest = { ...request, scope: request.scope === 'user' ? 'project' : 'user' };
  const mine = new Set(editsFor(request, env).edits.map((edit) => edit.file));
  const files: string[] = [];
  for (const edit of editsFor(other, env).edits) {
    // The same file in both scopes (a project at the home folder) is one set-up.
    if (edit.holds === 'the MCP server' || mine.has(edit.file)) continue;
    const text = await readFile(edit.file, 'utf8').catch(() => null);
    if (text === null || !hasOurHooks(edit, text, request)) continue;
    files.push(edit.file);
  }
  if (files.length === 0) return null;
  return {
    files,
    why: BOTH_SCOPES_RUN[request.agent],
    twice: twiceEffect(request.agent),
    fix: bothScopesFix(request.agent, request.commandRoot),
  };
}

/** Whether a file of the other scope runs our hooks in a way the agent does not fold into this scope's. */
function hasOurHooks(edit: FileEdit, text: string, request: SetupRequest): boolean {
  let without: string | null;
  try {
    without = edit.remove(text, null);
  } catch {
    return false;
  }
  if (without === text) return false;
  if (request.agent !== 'gemini') return true;
  const commands = new Set(GEMINI_HOOKS.map(([event]) => hookCommand(request.hookPath, event, 'gemini')));
  const hooks = (readJsoncObject(text) as { hooks?: Record<string, unknown> } | undefined)?.hooks ?? {};
  return Object.values(hooks)
    .flatMap((groups) => (Array.isArray(groups) ? groups : []))
    .flatMap((group) => (group as { hooks?: unknown } | null)?.hooks ?? [])
    .map((hook) => (hook as { command?: unknown } | null)?.command)
    .some((command) => isOurHookCommand(command) && !commands.has(command as string));
}

/**
 * The folders an uninstall removes with a file setup created, while empty: those its note names, or for a
 * note written before setup noted them (`created` without `folders`), every folder up to the home or
 * project folder, as that version's uninstall did.
 */
function foldersToRemove(
  target: EditTarget,
  note: SetupNote | null,
  request: SetupRequest,
  env: NodeJS.ProcessEnv,
): string[] {
  if (note?.folders !== undefined) return note.folders;
  if (note?.created !== true) return [];
  return foldersUpTo(target.file, request.scope === 'user' ? homeFolder(env) : request.projectRoot);
}

/** Works out one file's change (refusing what setup must not do) and returns the step that makes it. */
function planFileEdit(
  edit: FileEdit,
  target: EditTarget,
  note: SetupNote | null,
  request: SetupRequest,
): (env: NodeJS.ProcessEnv) => Promise<FileReport> {
  const { file, holds } = edit;
  const before = target.text;
  if (request.uninstall) {
    if (before === null) return async () => ({ file, holds, action: 'absent', content: null });
    const without = edit.remove(before, note);
    if (without === before) return async () => ({ file, holds, action: 'absent', content: before });
    // A file setup created, with nothing of the user's left in it, goes; any other keeps the user's text.
    const gone = without === null || (!target.linked && edit.isEmpty(without) && note?.created === true);
    return async (env) => {
      if (!request.dryRun) {
        if (gone) await removeEditTarget(target, foldersToRemove(target, note, request, env));
        else await writeEditTarget(target, without);
        await forgetSetupNote(env, request.agent, file);
      }
      return { file, holds, action: 'removed', content: gone ? null : without };
    };
  }
  const { text: after, note: made } = edit.install(before, note);
  if (after === before) return async () => ({ file, holds, action: 'unchanged', content: after });
  const action = before === null || edit.remove(before, note) === before ? 'installed' : 'updated';
  // A note of an earlier version, which did not note the folders, stays so (see foldersToRemove).
  const isEarlierNote = note?.created === true && note.folders === undefined && before !== null;
  const folders = isEarlierNote
    ? undefined
    : [...new Set([...(note?.folders ?? []), ...(before === null ? missingFolders(target.target) : [])])];
  return async (env) => {
    if (!request.dryRun) {
      // The note first: a note of more than was made is harmless (only what our removal empties goes).
      // `folders` always, even empty: a note without it is an earlier version's (see foldersToRemove).
      await writeSetupNote(env, request.agent, file, { ...made, ...(folders ? { folders } : {}) });
      await writeEditTarget(target, after);
    }
    return { file, holds, action, content: after };
  };
}
