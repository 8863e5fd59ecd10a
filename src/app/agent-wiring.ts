import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { absoluteDirFromEnv } from '../core/env-dirs.js';
import { entryFilePath, isCliEntryFile, ourHookEntryOfCommand, PACKAGE_NAME } from '../core/hook-entry.js';
import { cliCommand } from '../core/surface.js';
import { agentHome } from '../store/agent-homes.js';
import { readTextOrNull } from '../store/fs-seam.js';
import { homeFolder } from '../store/home-folder.js';
import type { Check } from './check.js';
import { readJsonc, readJsoncObject } from './jsonc.js';
import { SETUP_HOOK_EVENTS } from './setup-hooks.js';

/**
 * `claude-checkpoint setup <agent>` as a fix to run: `--project` for a project's set-up, with the `--root`
 * the command was given (`commandRoot`), which names the project from wherever it is run.
 */
export function setupCommand(agent: string, scope: string, commandRoot: string | undefined): string {
  const isProject = scope === 'project';
  return cliCommand(`setup ${agent}`, {
    root: isProject ? commandRoot : undefined,
    args: isProject ? ['--project'] : [],
  });
}

/**
 * Why an agent set up in both scopes runs our hooks twice, in its own rule: Codex ("Matching hooks from
 * multiple files all run", https://developers.openai.com/codex/hooks), Copilot CLI ("all hook entries from
 * all sources are run", https://docs.github.com/en/copilot/reference/hooks-reference), OpenCode (the global
 * plugins folder and every .opencode/plugins, https://opencode.ai/docs/plugins). Gemini CLI runs a hook
 * with the same name and command once (gemini-cli, packages/core/src/hooks/hookPlanner.ts), so for it only
 * two installations count.
 */
export const BOTH_SCOPES_RUN = {
  codex: 'Codex runs the hooks of every file',
  copilot: 'Copilot CLI runs the hooks of every file',
  opencode: 'OpenCode loads the plugins of both folders',
  gemini: 'they run different installations, and Gemini CLI runs both',
} as const;

/** The agents that send no id for a tool call or a prompt: the same hook twice records them twice. */
const SENDS_NO_IDS: Readonly<Record<string, string>> = {
  copilot: 'Copilot CLI',
  gemini: 'Gemini CLI',
};

/**
 * What running every hook of ours twice does, for `agent` (a review of issue 26: where the agent sends
 * ids, commands and prompts are kept once, see docs/hooks.md "The same hook twice").
 */
export function twiceEffect(agent: string): string {
  const twice =
    "the session-start brief is given twice, and each pre-command snapshot and each full save (at a session's or turn's end) is taken twice";
  const name = SENDS_NO_IDS[agent];
  return name
    ? `${twice}, and each command is recorded twice and each prompt counts twice in rewind (${name} sends no ids to tell them apart)`
    : `${twice} (commands and prompts are still recorded once, by the ids the agent sends)`;
}

/**
 * The warning for an agent set up in both the user's and the project's configuration, whose hooks it then
 * runs twice at every event (trial 4, item 4; see twiceEffect). `why` says why both run (the agent's own
 * rule).
 */
export function bothScopes(
  name: string,
  agent: string,
  found: readonly string[],
  commandRoot: string | undefined,
  why: string,
): Check {
  return {
    name,
    level: 'warn',
    detail: `set up in both ${found.join(' and ')} (${why}), so every hook runs twice: ${twiceEffect(agent)}`,
    fix: bothScopesFix(agent, commandRoot),
  };
}

/** What to do about both scopes: keep one set-up, and which command takes the other out. */
export function bothScopesFix(agent: string, commandRoot: string | undefined): string {
  const project = cliCommand(`setup ${agent}`, { root: commandRoot, args: ['--project', '--uninstall'] });
  const user = cliCommand(`setup ${agent}`, { args: ['--uninstall'] });
  return `Keep one: \`${project}\` takes this project's out (your user set-up covers every project), or \`${user}\` takes yours out and keeps this project's.`;
}

/** The fix where an agent is used but not set up: the user's set-up, or this project's only. */
export function setupEither(agent: string, commandRoot: string | undefined): string {
  return commandRoot === undefined
    ? `\`${setupCommand(agent, 'user', undefined)}\` (or \`--project\` for this project only)`
    : `\`${setupCommand(agent, 'user', undefined)}\` (or \`${setupCommand(agent, 'project', commandRoot)}\` for this project only)`;
}

/**
 * The first entry file a hooks file's commands run that does not exist: each string of the JSON that runs
 * our hook entry (`node <…/dist/hook.js> <event>`, quoted paths with spaces included) is checked.
 */
export function absentEntryFile(text: string, home: string, root: string): string | undefined {
  // JSON with comments, as setup accepts and keeps it (trial 2026-12-06: a comment hid a gone entry).
  const parsed = readJsonc(text);
  if (parsed === undefined) return undefined;
  const strings: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') strings.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(walk);
  };
  walk(parsed);
  return strings
    .map((command) => ourHookEntryOfCommand(command)?.file)
    .find((file) => {
      const full = file ? entryFilePath(file, home, root) : null;
      return full !== null && !existsSync(full);
    }) as string | undefined;
}

/**
 * The file a `claude-checkpoint` server entry runs with node (`command` plus `args`, or OpenCode's
 * `command` list), when it does not exist: the installation setup pointed the agent at moved away.
 */
export function absentServerFile(entry: unknown, home: string, cwd: string): string | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { command, args } = entry as { command?: unknown; args?: unknown };
  const argv: unknown[] = Array.isArray(command) ? command : [command, ...(Array.isArray(args) ? args : [])];
  const [program, file] = argv;
  if (typeof program !== 'string' || typeof file !== 'string') return undefined;
  if (!/(?:^|[\\/])node(?:\.exe)?$/i.test(program) || !/\.[cm]?js$/.test(file)) return undefined;
  const full = entryFilePath(file, home, cwd);
  return full !== null && !existsSync(full) ? file : undefined;
}

/** The hook entry file an OpenCode plugin of ours runs, when it does not exist. */
function absentPluginEntry(text: string): string | undefined {
  const hook = /^const HOOK = (".*");$/m.exec(text)?.[1];
  if (hook === undefined) return undefined;
  const file = JSON.parse(hook) as string;
  return path.isAbsolute(file) && !existsSync(file) ? file : undefined;
}

/**
 * `doctor` for agents whose setup is files of ours (Copilot CLI's hooks file, OpenCode's plugin): is it
 * set up, is the server there, and does the hook entry those files name still exist? `null` when the
 * agent is not in use here (no folder of its own).
 */
interface AgentPlace {
  scope: 'user' | 'project';
  /** The file of ours that carries the hooks (or plugin). */
  hooksFile: string;
  /** Files any of which may hold our server entry, under `serverKey` (the first that holds one counts). */
  serverFiles: string[];
}

async function agentWiring(
  home: string,
  name: string,
  agent: string,
  /** Where the agent's JSON config keeps its MCP servers (`mcpServers`, OpenCode's `mcp`). */
  serverKey: string,
  inUse: boolean,
  places: AgentPlace[],
  trustNote: string,
  /** What a file of ours written by an earlier version lacks, if anything. */
  lacking: ((hooks: string) => Promise<string | undefined>) | undefined,
  /** The CLI's `--root`, which the fixes carry over. */
  commandRoot: string | undefined,
  /** Why the agent runs both scopes' hooks (its own rule), for the warning when both are set up. */
  bothRun: string,
): Promise<Check | null> {
  const found: string[] = [];
  for (const place of places) {
    const hooks = await readFile(place.hooksFile, 'utf8').catch(() => null);
    if (hooks === null) continue;
    const servers = await Promise.all(
      place.serverFiles.map(async (file) => {
        const config = readJsoncObject(await readFile(file, 'utf8').catch(() => ''));
        const entry = (config?.[serverKey] as Record<string, unknown> | undefined)?.['claude-checkpoint'];
        return entry === undefined ? null : { file, entry };
      }),
    );
    const server = servers.find((found) => found !== null);
    const rerun = `Run \`${setupCommand(agent, place.scope, commandRoot)}\` again`;
    if (place.serverFiles.length > 0 && !server)
      return {
        name,
        level: 'warn',
        detail: `${place.hooksFile} is there, but the claude-checkpoint server is missing from ${place.serverFiles.join(' or ')}`,
        fix: `${rerun}.`,
      };
    const serverGone = server && absentServerFile(server.entry, home, path.dirname(server.file));
    if (server && serverGone)
      return {
        name,
        level: 'warn',
        detail: `the claude-checkpoint server in ${server.file} runs ${serverGone}, which no longer exists`,
        fix: `${rerun} from the installation you use now.`,
      };
    const missing = place.hooksFile.endsWith('.js')
      ? absentPluginEntry(hooks)
      : absentEntryFile(hooks, home, path.dirname(place.hooksFile));
    if (missing)
      return {
        name,
        level: 'warn',
        detail: `${place.hooksFile} runs ${missing}, which no longer exists`,
        fix: `${rerun} from the installation you use now.`,
      };
    const lacks = await lacking?.(hooks);
    if (lacks)
      return {
        name,
        level: 'warn',
        detail: `${place.hooksFile} was written by an earlier version: it lacks ${lacks}`,
        fix: `${rerun}.`,
      };
    found.push(`${place.scope} (${place.hooksFile})`);
  }
  if (found.length === 0 && !inUse) return null;
  if (found.length > 1) return bothScopes(name, agent, found, commandRoot, bothRun);
  return found.length > 0
    ? { name, level: 'ok', detail: `set up: ${found.join(' and ')}${trustNote}` }
    : {
        name,
        level: 'warn',
        detail: `${name} is used here, but the checkpoint server and hooks are not set up for it`,
        fix: `Run ${setupEither(agent, commandRoot)}.`,
      };
}

export function copilotWiring(
  root: string,
  env: NodeJS.ProcessEnv,
  commandRoot?: string,
): Promise<Check | null> {
  const home = homeFolder(env);
  const userDir = agentHome(env, 'copilot');
  const mcpConfig = path.join(userDir, 'mcp-config.json');
  return agentWiring(
    home,
    'Copilot CLI',
    'copilot',
    'mcpServers',
    existsSync(userDir),
    [
      {
        scope: 'user',
        hooksFile: path.join(userDir, 'hooks', 'claude-checkpoint.json'),
        serverFiles: [mcpConfig],
      },
      // A project's server is in its .mcp.json (or .github/mcp.json), or in the user's mcp-config.json.
      {
        scope: 'project',
        hooksFile: path.join(root, '.github', 'hooks', 'claude-checkpoint.json'),
        serverFiles: [path.join(root, '.mcp.json'), path.join(root, '.github', 'mcp.json'), mcpConfig],
      },
    ],
    '; Copilot CLI runs them in folders you trust',
    async (text) => {
      const parsed = readJsoncObject(text);
      if (parsed === undefined) return 'valid JSON';
      const wired = Object.keys((parsed.hooks as object | undefined) ?? {});
      const missing = SETUP_HOOK_EVENTS.copilot.filter((event) => !wired.includes(event));
      return missing.length > 0 ? `the ${missing.join(', ')} hooks` : undefined;
    },
    commandRoot,
    BOTH_SCOPES_RUN.copilot,
  );
}

export function openCodeWiring(
  root: string,
  env: NodeJS.ProcessEnv,
  commandRoot?: string,
): Promise<Check | null> {
  const home = homeFolder(env);
  const configDir = path.join(
    absoluteDirFromEnv(env, 'XDG_CONFIG_HOME') ?? path.join(home, '.config'),
    'opencode',
  );
  const configs = (dir: string) => [path.join(dir, 'opencode.json'), path.join(dir, 'opencode.jsonc')];
  return agentWiring(
    home,
    'OpenCode',
    'opencode',
    'mcp',
    existsSync(configDir) || existsSync(path.join(root, '.opencode')),
    [
      {
        scope: 'user',
        hooksFile: path.join(configDir, 'plugins', 'claude-checkpoint.js'),
        serverFiles: configs(configDir),
      },
      {
        scope: 'project',
        hooksFile: path.join(root, '.opencode', 'plugins', 'claude-checkpoint.js'),
        serverFiles: [...configs(root), ...configs(configDir)],
      },
    ],
    '',
    async (text) => {
      const { openCodePlugin } = await import('./opencode-plugin.js');
      const hook = /^const HOOK = (".*");$/m.exec(text)?.[1];
      if (hook === undefined) return undefined;
      // The plugin this version writes for the same hook entry: any difference is an older plugin.
      return text === openCodePlugin(JSON.parse(hook) as string) ? undefined : "this version's plugin";
    },
    commandRoot,
    BOTH_SCOPES_RUN.opencode,
  );
}

/**
 * Whether a hook's entry file (its absolute path) may be ours. A `dist/cli.js` is a common name: one that
 * exists is ours only when the nearest package.json above it names this package (review 6). Any other
 * entry file, and one that does not exist (reported as moved away), is taken as ours.
 */
export function isOurEntryFile(full: string): boolean {
  if (!isCliEntryFile(full) || !existsSync(full)) return true;
  let dir = path.dirname(path.dirname(full));
  for (let depth = 0; depth < 8; depth++) {
    const text = readTextOrNull(path.join(dir, 'package.json'));
    if (text !== null) {
      try {
        return (JSON.parse(text) as { name?: unknown }).name === PACKAGE_NAME;
      } catch {
        return false;
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return false;
}
