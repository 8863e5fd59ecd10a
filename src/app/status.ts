import { constants, existsSync } from 'node:fs';
import { access, readdir, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describeError } from '../core/errors.js';
import { entryFilePath, type HookEntry, ourHookEntry } from '../core/hook-entry.js';
import { HOOK_EVENTS } from '../core/hook-events.js';
import { CHECKPOINT_FILE } from '../core/paths.js';
import { escapeControls } from '../core/quote.js';
import {
  SETTING_NAMES,
  SETTINGS,
  type SettingName,
  type SettingOrigin,
  settingErrors,
  showSetting,
} from '../core/settings.js';
import { describeOverCap, formatBytes, GONE_STORES_FIX, renderGoneStores } from '../core/snapshot-text.js';
import { gitCannotRead, isIgnoredByGit, locateRepo } from '../git/repo.js';
import { GitNotFoundError, runGit } from '../git/run.js';
import { agentHome } from '../store/agent-homes.js';
import { isNotUtf8Notice, isOverLimitNotice } from '../store/checkpoint-store.js';
import { homeFolder } from '../store/home-folder.js';
import {
  HOST_ENV,
  hostDisabled,
  isListening,
  isPrivateFolder,
  RELAY_ENV,
  relayDisabled,
  relaySocketPath,
} from '../store/relay-socket.js';
import { readSettings, type SettingsReport } from '../store/settings-file.js';
import { projectStoreDir } from '../store/store-location.js';
import { estimatedBytes, readUsage } from '../store/store-usage.js';
import { storeFolderWithin } from '../store/store-within.js';
import { hooksSwitchedOff } from './agent-hooks-off.js';
import {
  absentEntryFile,
  absentServerFile,
  BOTH_SCOPES_RUN,
  bothScopes,
  copilotWiring,
  isOurEntryFile,
  openCodeWiring,
  setupCommand,
  setupEither,
  twiceEffect,
} from './agent-wiring.js';
import type { Check } from './check.js';
import { hooksInBothPlaces, inlineHookEvents } from './codex-inline-hooks.js';
import type { AppDeps } from './deps.js';
import { readJsoncObject } from './jsonc.js';
import { readCheckpoint } from './load.js';
import { type ResolvedRoot, ROOT_ENV, resolveProjectRoot } from './root.js';
import { eventsWithoutOurs, isOurHookCommand, SETUP_HOOK_EVENTS } from './setup-hooks.js';
import { storeDiskUse } from './store-caps.js';

export { projectStatus, type StatusReport } from './project-status.js';

/** Diagnoses the set-up, each problem with a fix. */
export async function diagnose(
  deps: AppDeps,
  request: { projectRoot?: string | undefined },
): Promise<Check[]> {
  const checks: Check[] = [];
  try {
    // `git --version` reads no repository: any folder will do, and the current one may be gone (--root).
    const { stdout } = await runGit(['--version'], { cwd: os.tmpdir() });
    checks.push({ name: 'git', level: 'ok', detail: stdout.trim() });
  } catch (error) {
    const isNotExecutable = error instanceof GitNotFoundError && error.isNotExecutable;
    checks.push({
      name: 'git',
      level: 'warn',
      detail: `${isNotExecutable ? 'the git on PATH is not executable (permission denied)' : 'git was not found on PATH'}: checkpoints work, but without drift detection, snapshots (rewind) or handoff`,
      fix: isNotExecutable
        ? 'Make it executable (`chmod +x`), or put a working git earlier on PATH, so that `git --version` works in this shell.'
        : 'Install git (https://git-scm.com) and make sure `git --version` works in this shell.',
    });
  }

  let root: ResolvedRoot;
  try {
    root = await resolveProjectRoot({
      argument: request.projectRoot,
      env: deps.env,
      cwd: deps.cwd,
      surface: deps.surface,
      argumentLabel: deps.rootArgument,
    });
  } catch (error) {
    checks.push({
      name: 'project root',
      level: 'fail',
      detail: (error as Error).message,
      // Issue 26: no "pass --root" to someone who did.
      fix:
        request.projectRoot !== undefined
          ? "Give --root an existing absolute folder: the project's."
          : deps.env[ROOT_ENV]?.trim()
            ? "Set CHECKPOINT_PROJECT_ROOT to the project's folder (an existing absolute one)."
            : "Run this in the project's folder, or pass --root with it.",
    });
    return checks;
  }
  const why = {
    argument: 'from --root',
    environment: 'from CHECKPOINT_PROJECT_ROOT',
    'client-roots': "from the MCP client's roots",
    'working-directory': 'from the current folder',
  }[root.source];
  checks.push({ name: 'project root', level: 'ok', detail: `${root.root} (${why})` });

  const writable = await access(root.root, constants.W_OK).then(
    () => true,
    () => false,
  );
  checks.push(
    writable
      ? { name: 'permissions', level: 'ok', detail: 'the project root is writable' }
      : {
          name: 'permissions',
          level: 'fail',
          detail: `cannot write in ${root.root}`,
          fix: `Give your user write access: chmod u+w '${root.root}'`,
        },
  );
  const file = path.join(root.root, CHECKPOINT_FILE);
  const fileStats = await stat(file).catch(() => null);
  if (fileStats && (fileStats.mode & 0o077) !== 0) {
    checks.push({
      name: 'checkpoint file mode',
      level: 'warn',
      detail: `${file} is readable by others (mode ${(fileStats.mode & 0o777).toString(8)})`,
      fix: `chmod 600 '${file}' (new saves write 0600)`,
    });
  }

  const loaded = await readCheckpoint(deps, { projectRoot: root.root }).catch((error: Error) => error);
  if (loaded instanceof Error) {
    checks.push({
      name: 'checkpoint',
      level: 'fail',
      detail: loaded.message,
      fix: 'Fix the file by hand, or delete .claude-checkpoint* and save again.',
    });
  } else if (loaded.found && loaded.fromBackup) {
    // Why the backup stands in (a bad hand edit, bytes that are not UTF-8, a save cut short), as load says it.
    checks.push({
      name: 'checkpoint',
      level: 'warn',
      detail: loaded.notices[0] ?? `${loaded.path} (loaded from the backup)`,
      fix: existsSync(loaded.path)
        ? 'The next save writes the checkpoint file again, keeping the unusable one as .claude-checkpoint.damaged; fix it by hand to use it instead.'
        : 'The next save writes the checkpoint file again.',
    });
  } else {
    checks.push({ name: 'checkpoint', level: 'ok', detail: loaded.found ? loaded.path : 'none saved yet' });
  }
  // As load says it: a hand edit put a field over its limit.
  for (const notice of loaded instanceof Error || !loaded.found
    ? []
    : loaded.notices.filter(isOverLimitNotice))
    checks.push({
      name: 'checkpoint limits',
      level: 'warn',
      detail: notice,
      fix: 'Shorten the fields by hand, or let the next save cut them (the file as it was is kept beside it).',
    });
  // As load says it: bytes that are not UTF-8 (a hand edit in another encoding), read as U+FFFD.
  for (const notice of loaded instanceof Error || !loaded.found ? [] : loaded.notices.filter(isNotUtf8Notice))
    checks.push({
      name: 'checkpoint encoding',
      level: 'warn',
      detail: notice,
      fix: 'Retype the character at that offset as UTF-8, or let the next save write the file again (the file as it was is kept beside it).',
    });

  const damaged = await readdir(root.root)
    .then((names) => names.filter((name) => /^\.claude-checkpoint\.damaged(?:-\d+)?$/.test(name)).sort())
    .catch(() => []);
  if (damaged.length > 0) {
    checks.push({
      name: 'damaged checkpoint kept',
      level: 'warn',
      detail: `${damaged.join(', ')}: a checkpoint file (a bad hand edit, or one over the limits) that a write replaced, kept beside it`,
      fix: 'Copy what you need from it into a save, then delete it.',
    });
  }

  if (await locateRepo(root.root)) {
    // Issue 26: git missing from PATH or a bad `.git/config` stopped doctor here, with no later check.
    const ignored = await isIgnoredByGit(root.root, CHECKPOINT_FILE).catch((error: unknown) => {
      const unreadable = gitCannotRead(error);
      if (unreadable === null) throw error;
      return { unreadable, isMissing: error instanceof GitNotFoundError };
    });
    checks.push(
      typeof ignored === 'object'
        ? {
            name: 'git ignore',
            // A missing git is the `git` check's warning; a repository git refuses is broken.
            level: ignored.isMissing ? 'warn' : 'fail',
            detail: `could not tell whether the checkpoint files are git-ignored: ${ignored.unreadable}`,
            fix: ignored.isMissing
              ? 'See the `git` check above: once `git --version` works in this shell, this is checked too.'
              : 'Fix what git says (`git status` in the project says the same): until then saves record no git facts and drift is not checked.',
          }
        : ignored
          ? { name: 'git ignore', level: 'ok', detail: '.claude-checkpoint* is git-ignored' }
          : {
              name: 'git ignore',
              level: 'warn',
              detail: 'the checkpoint files are not git-ignored, so they could be committed',
              fix: 'Add the line `.claude-checkpoint*` to .gitignore (or to your global excludes file). This tool never edits it for you.',
            },
    );
  }

  checks.push(await storeCheck(root.root, deps.env));
  const otherAgents = (
    await Promise.all([
      geminiWiring(root.root, deps.env, deps.commandRoot),
      codexWiring(root.root, deps.env, deps.commandRoot),
      copilotWiring(root.root, deps.env, deps.commandRoot),
      openCodeWiring(root.root, deps.env, deps.commandRoot),
    ])
  ).filter((check): check is Check => check !== null);
  const claudeCode = await hookWiring(root.root, deps.env);
  // Someone who uses another agent, and never ran Claude Code here, needs no word on its hooks (trial 4).
  if (claudeCode.level === 'ok' || otherAgents.length === 0 || claudeCodeUsed(deps.env))
    checks.push(claudeCode);
  checks.push(await relayCheck(root.root, deps.env));
  const settingsReport = readSettings(deps.env, root.root);
  checks.push(...settingsChecks(settingsReport, existsSync));
  // Brief h-left, item 2: like the store, a settings folder inside the project is left out of its scans.
  const configWithin = storeFolderWithin(root.root, path.dirname(settingsReport.files.user));
  if (configWithin !== null)
    checks.push({
      name: 'settings',
      level: 'warn',
      detail: `your settings folder lies inside this project at ${configWithin}/: snapshots, restores, handoffs and the checkpoint's file lists leave it out`,
      fix: `The project's own git still sees it: add \`/${configWithin}/\` to .git/info/exclude (or .gitignore), or set XDG_CONFIG_HOME (or CHECKPOINT_CONFIG_DIR) to a folder outside the project.`,
    });
  checks.push(...otherAgents);
  return checks;
}

/** Whether Claude Code has run for this user: it keeps ~/.claude (and ~/.claude.json) from its first start. */
function claudeCodeUsed(env: NodeJS.ProcessEnv): boolean {
  const home = homeFolder(env);
  return existsSync(path.join(home, '.claude')) || existsSync(path.join(home, '.claude.json'));
}

/** The settings files, and each problem in them or in the environment with what to do. */
function settingsChecks(report: SettingsReport, exists: (file: string) => boolean): Check[] {
  const errors = settingErrors(report.problems);
  const checks: Check[] = report.problems.map((problem) => ({
    name: 'settings',
    level: problem.severity === 'error' ? 'fail' : 'warn',
    detail: problem.message,
    fix: fixFor(problem),
  }));
  function fixFor(problem: SettingsReport['problems'][number]): string {
    const inProject = report.files.project !== null && problem.message.startsWith(report.files.project);
    if (inProject)
      return problem.name
        ? `Set ${problem.name} in your own ${report.files.user} if you want it, and remove it from the project's file.`
        : "Correct the project's file; until then it adds nothing.";
    if (!problem.name)
      return problem.severity === 'error'
        ? `Correct ${report.files.user}; until then the snapshot, rewind, restore, diff, list, gc and handoff commands (and their MCP tools) stop on it, save, load and status go on, and hooks use the defaults.`
        : `Correct or remove it in ${report.files.user}; until then it is not used (the file's other settings are).`;
    // Newcomer trial: a wrong value only in the environment was to be corrected in a file that lacks it.
    if (problem.source === 'environment')
      return `Correct or unset ${SETTINGS[problem.name].env} in the environment. Until then the snapshot, rewind, restore, diff, list, gc and handoff commands (and their MCP tools) stop on it, save, load and status go on, and hooks use the value below it.`;
    return problem.severity === 'error'
      ? `Correct ${problem.name} in ${report.files.user}, or ${SETTINGS[problem.name].env} in the environment. Until then the snapshot, rewind, restore, diff, list, gc and handoff commands (and their MCP tools) stop on it, save, load and status go on, and hooks use the value below it.`
      : `Correct ${problem.name} in ${report.files.user} (the environment overrides it for now).`;
  }
  // Only the files there are: a file that does not exist is not read (trial 4, item 9).
  const read = [report.files.user, report.files.project].filter(
    (file): file is string => file !== null && exists(file),
  );
  if (errors.length === 0)
    checks.unshift({
      name: 'settings',
      level: 'ok',
      detail:
        read.length > 0
          ? `${read.join(' and ')}, and the environment (see Settings below)`
          : `no settings file (yours would be ${report.files.user}): the defaults and the environment (see Settings below)`,
    });
  return checks;
}

/** One setting as `doctor` shows it. */
export interface SettingRow {
  name: SettingName;
  env: string;
  value: unknown;
  shown: string;
  from: SettingOrigin[];
  doc: string;
}

/** Every setting's effective value and where it comes from; never throws (the problems are doctor's checks). */
export async function settingRows(
  deps: AppDeps,
  request: { projectRoot?: string | undefined },
): Promise<{ files: SettingsReport['files']; rows: SettingRow[] }> {
  const root = await resolveProjectRoot({
    argument: request.projectRoot,
    env: deps.env,
    cwd: deps.cwd,
    surface: deps.surface,
    argumentLabel: deps.rootArgument,
  }).catch(() => null);
  const report = readSettings(deps.env, root?.root);
  return {
    files: report.files,
    rows: SETTING_NAMES.map((name) => ({
      name,
      env: SETTINGS[name].env,
      value: report.values[name],
      shown: showSetting(name, report.values[name]),
      from: report.origins[name],
      doc: SETTINGS[name].doc,
    })),
  };
}

/** Whether hooks hand their events to a running MCP server for this project (see store/relay-socket.ts). */
/** The snapshot store's disk use, this project's and all projects', against their caps. */
async function storeCheck(root: string, env: NodeJS.ProcessEnv): Promise<Check> {
  const name = 'snapshot store';
  // A wrong cap is a settings check of its own (settingsChecks): here the caps in effect are shown.
  const use = await storeDiskUse(env);
  const storeDir = projectStoreDir(use.base, root);
  const usage = readUsage(storeDir);
  const mine = usage ? estimatedBytes(usage) : 0;
  const cap = (bytes: number | null) => (bytes === null ? 'no cap' : `cap ${formatBytes(bytes)}`);
  const detail = `this project ${formatBytes(mine)} (${cap(use.maxBytes)}); all ${use.projects} project(s) ${formatBytes(use.totalBytes)} (${cap(use.totalMaxBytes)}) in ${use.base}`;
  if (use.orphans.length > 0)
    return {
      name,
      level: 'warn',
      detail: `${detail}; ${renderGoneStores(use.orphans)}`,
      fix: `${GONE_STORES_FIX.charAt(0).toUpperCase()}${GONE_STORES_FIX.slice(1)}.`,
    };
  // A kill during the first snapshot leaves a store without its ready marker (issue 26).
  if (
    existsSync(path.join(storeDir, 'git')) &&
    !existsSync(path.join(storeDir, 'git', 'claude-checkpoint-ready'))
  )
    return {
      name,
      level: 'warn',
      detail: `${detail}; this project's store: set-up never finished (interrupted)`,
      fix: 'The next snapshot finishes it: run `claude-checkpoint snapshot`, or just go on working.',
    };
  // Safety audit of 2026-12-07, items 1 and 8: a store inside the project is left out of every scan of
  // it; the project's own git still sees it, and `git add -A` would commit it.
  const within = storeFolderWithin(root, use.base);
  if (within !== null)
    return {
      name,
      level: 'warn',
      detail: `${detail}; the store lies inside this project at ${within}/: snapshots, restores, handoffs and the checkpoint's file lists leave it out`,
      fix: `The project's own git still sees it: add \`/${within}/\` to .git/info/exclude (or .gitignore), or set storeDir (${SETTINGS.storeDir.env}) to a folder outside the project.`,
    };
  // The last gc deleted all it may and the store stayed over: another gc cannot help, a higher cap can.
  if (use.maxBytes !== null && mine > use.maxBytes && usage?.floorBytes !== undefined) {
    const { reason, fix } = describeOverCap(usage.floorBytes, use.maxBytes);
    return {
      name,
      level: 'warn',
      detail: `${detail}: this project's store is ${reason}`,
      fix: `${fix.charAt(0).toUpperCase()}${fix.slice(1)}.`,
    };
  }
  if (
    (use.maxBytes !== null && mine > use.maxBytes) ||
    (use.totalMaxBytes !== null && use.totalBytes > use.totalMaxBytes)
  )
    return {
      name,
      level: 'warn',
      detail: `${detail}: over a cap (figures since the last gc are upper bounds)`,
      fix: 'Run `claude-checkpoint gc --all`: it measures each store and trims the oldest snapshots.',
    };
  return { name, level: 'ok', detail };
}

/** Whether hooks hand their events to a running MCP server for this project (see hooks/relay-protocol.ts). */
async function relayCheck(root: string, env: NodeJS.ProcessEnv): Promise<Check> {
  const name = 'hook relay';
  if (relayDisabled(env)) {
    return {
      name,
      level: 'ok',
      detail: `off (${RELAY_ENV}=0, or Windows): hooks run their events themselves`,
    };
  }
  const socket = relaySocketPath(env, root);
  if (!socket) {
    return {
      name,
      level: 'ok',
      detail: 'the store path is too long for a socket: hooks run their events themselves',
    };
  }
  const dir = path.dirname(socket);
  if (existsSync(dir) && !isPrivateFolder(dir)) {
    return {
      name,
      level: 'warn',
      detail: `${dir} is not a private folder of yours, so no server listens there and hooks never use it`,
      fix: `chmod 700 '${dir}' (and make sure it is a real folder you own), then restart the agent`,
    };
  }
  if (existsSync(socket) && (await isListening(socket, await import('node:net'))))
    return {
      name,
      level: 'ok',
      detail: `a running MCP server or hook host takes this project's hook events (${socket})`,
    };
  return {
    name,
    level: 'ok',
    detail: hostDisabled(env)
      ? `no MCP server is running for this project now: hooks run their events themselves until one starts (no hook host: ${HOST_ENV}=0)`
      : 'no MCP server or hook host is running for this project now: the next hook starts a host',
  };
}

/** For people who use Gemini CLI (a ~/.gemini or project .gemini folder): is it set up, and do its hooks exist? */
async function geminiWiring(
  root: string,
  env: NodeJS.ProcessEnv,
  commandRoot: string | undefined,
): Promise<Check | null> {
  const home = homeFolder(env);
  const userDir = agentHome(env, 'gemini');
  const places = [
    { scope: 'user', file: path.join(userDir, 'settings.json') },
    { scope: 'project', file: path.join(root, '.gemini', 'settings.json') },
  ];
  const found: string[] = [];
  const commands: string[][] = [];
  let used = false;
  for (const { scope, file } of places) {
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text === null) continue;
    used = true;
    // JSON with comments and trailing commas, read as setup reads it.
    const settings = readJsoncObject(text) as {
      mcpServers?: Record<string, unknown>;
      hooks?: Record<string, Array<{ hooks?: Array<{ name?: string; command?: string }> }>>;
    } | null;
    const isOurs = (hook: unknown) => (hook as { name?: unknown } | null)?.name === 'claude-checkpoint';
    const ours = Object.values(settings?.hooks ?? {}).flatMap((groups) =>
      (Array.isArray(groups) ? groups : []).flatMap((group) => (group?.hooks ?? []).filter(isOurs)),
    );
    // A server of that name without hooks of ours may be the user's own: not a set-up of ours.
    if (ours.length === 0) continue;
    const server = settings?.mcpServers?.['claude-checkpoint'];
    const rerun = `Run \`${setupCommand('gemini', scope, commandRoot)}\` again`;
    // Every event this version wires, from the table setup writes from (trial 4, item 2).
    const lacking = eventsWithoutOurs(settings?.hooks, SETUP_HOOK_EVENTS.gemini, isOurs);
    if (server === undefined || lacking.length > 0)
      return {
        name: 'Gemini CLI',
        level: 'warn',
        detail:
          server === undefined
            ? `${file} has our hooks, but not the claude-checkpoint server`
            : `${file} was set up by an earlier version: it lacks the ${lacking.join(', ')} hooks${lacking.includes('BeforeTool') ? ' (BeforeTool takes a snapshot before a shell command that may destroy work)' : ''}`,
        fix: `${rerun}.`,
      };
    commands.push(ours.map((hook) => String(hook.command)).sort());
    const fix = `${rerun} from the installation you use now.`;
    const missing = absentEntryFile(JSON.stringify(ours), home, root);
    if (missing)
      return {
        name: 'Gemini CLI',
        level: 'warn',
        detail: `the hooks in ${file} run ${missing}, which no longer exists`,
        fix,
      };
    const serverGone = absentServerFile(server, home, root);
    if (serverGone)
      return {
        name: 'Gemini CLI',
        level: 'warn',
        detail: `the claude-checkpoint server in ${file} runs ${serverGone}, which no longer exists`,
        fix,
      };
    found.push(`${scope} settings (${file})`);
  }
  if (!used && !existsSync(userDir)) return null;
  const off = found.length > 0 ? await hooksOffCheck('Gemini CLI', 'gemini', root, env) : null;
  if (off) return off;
  // Gemini CLI concatenates the two scopes' hooks and runs a hook with the same name and command once
  // (packages/core/src/hooks/hookPlanner.ts, deduplicateHooks): only different installations run twice.
  if (found.length > 1 && JSON.stringify(commands[0]) !== JSON.stringify(commands[1]))
    return bothScopes('Gemini CLI', 'gemini', found, commandRoot, BOTH_SCOPES_RUN.gemini);
  return found.length > 0
    ? {
        name: 'Gemini CLI',
        level: 'ok',
        detail: `server and hooks set up in ${found.join(' and ')}; Gemini CLI runs them only in folders you trust (/permissions trust)${found.length > 1 ? '; the same hooks in both, which Gemini CLI runs once' : ''}`,
      }
    : {
        name: 'Gemini CLI',
        level: 'warn',
        detail: 'Gemini CLI is used here, but the checkpoint server and hooks are not set up for it',
        fix: `Run ${setupEither('gemini', commandRoot)}.`,
      };
}

/** The hooks of one settings.json group that run our entry (`home`, `root`: to find its file). */
function groupEntries(group: unknown, home: string, root: string): HookEntry[] {
  const hooks = (group as { hooks?: unknown } | null)?.hooks;
  if (!Array.isArray(hooks)) return [];
  return hooks.flatMap((hook) => {
    const entry = ourHookEntry(hook);
    if (entry === null) return [];
    // Another tool's `node …/dist/cli.js hook <Event>` is not ours.
    const full = entry.file === null ? null : entryFilePath(entry.file, home, root);
    return full === null || isOurEntryFile(full) ? [entry] : [];
  });
}

/** The groups of one settings.json event that hold a hook of ours. */
function ourGroups(groups: unknown, home: string, root: string): Array<{ matcher?: unknown }> {
  return Array.isArray(groups) ? groups.filter((group) => groupEntries(group, home, root).length > 0) : [];
}

/** The events for Claude Code's shell tools (Bash, PowerShell), whose hooks a matcher selects by tool name. */
const SHELL_HOOK_EVENTS: readonly string[] = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure'];

/**
 * Whether every group of ours in a settings.json event runs for `tool`: as Claude Code reads a matcher,
 * none (or `*`) for every tool, letters, digits, `_` and `|` a list of exact names, anything else a regex.
 */
function ourGroupsMatch(groups: unknown, tool: string, home: string, root: string): boolean {
  return ourGroups(groups, home, root).every((group: { matcher?: unknown }) => {
    const matcher = typeof group.matcher === 'string' ? group.matcher : '';
    if (matcher === '' || matcher === '*') return true;
    if (/^[\w|]+$/.test(matcher)) return matcher.split('|').includes(tool);
    try {
      return new RegExp(matcher).test(tool);
    } catch {
      return false;
    }
  });
}

/** Whether Claude Code will run our hooks: through the plugin, or through settings.json entries. */
async function hookWiring(root: string, env: NodeJS.ProcessEnv): Promise<Check> {
  const home = homeFolder(env);
  const files = [
    path.join(home, '.claude', 'settings.json'),
    path.join(root, '.claude', 'settings.json'),
    path.join(root, '.claude', 'settings.local.json'),
  ];
  const wired = new Set<string>();
  const wiredIn = new Set<string>();
  /** The entry files our hooks run, by event: two for one event run that event twice. */
  const entryFiles = new Map<string, Set<string>>();
  const bashOnly = new Set<string>();
  const absent = new Map<string, { settings: string; events: string[] }>();
  let plugin = false;
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => null);
    if (!text) continue;
    let settings: { hooks?: Record<string, unknown>; enabledPlugins?: Record<string, unknown> };
    try {
      settings = JSON.parse(text);
    } catch {
      continue;
    }
    if (
      Object.entries(settings.enabledPlugins ?? {}).some(
        ([id, on]) => id.startsWith('session-checkpoint@') && on !== false,
      )
    )
      plugin = true;
    for (const event of HOOK_EVENTS) {
      // Recognised by the entry it runs, not by a folder name: a clone may live in any folder.
      const entries = ourGroups(settings.hooks?.[event], home, root).flatMap((group) =>
        groupEntries(group, home, root),
      );
      if (entries.length === 0) continue;
      wired.add(event);
      wiredIn.add(file);
      const runs = entryFiles.get(event) ?? new Set<string>();
      for (const entry of entries)
        runs.add(
          entry.file === null ? 'claude-checkpoint' : (entryFilePath(entry.file, home, root) ?? entry.file),
        );
      entryFiles.set(event, runs);
      for (const entry of entries) {
        const full = entry.file === null ? null : entryFilePath(entry.file, home, root);
        if (full === null || entry.file === null || existsSync(full)) continue;
        const seen = absent.get(entry.file) ?? { settings: file, events: [] };
        seen.events.push(event);
        absent.set(entry.file, seen);
      }
      if (
        SHELL_HOOK_EVENTS.includes(event) &&
        !ourGroupsMatch(settings.hooks?.[event], 'PowerShell', home, root)
      )
        bashOnly.add(event);
    }
  }
  const [missingFile, where] = [...absent][0] ?? [];
  if (missingFile !== undefined && where)
    return {
      name: 'Claude Code hooks',
      level: 'warn',
      detail: `the hooks in ${where.settings} for ${where.events.join(', ')} point at ${missingFile}, which does not exist${absent.size > 1 ? ` (and ${absent.size - 1} other entry file(s) do not either)` : ''}: those hooks fail at every event`,
      fix: 'Put the absolute path of your build there (the dist/hook.js of the folder where you ran npm run build), as in the hooks snippet of docs/agents/claude-code.md (Manual set-up), or install the plugin and remove these entries.',
    };
  // Claude Code runs every matching hook and folds only identical commands into one (code.claude.com/docs/
  // en/hooks): the plugin's and a settings.json entry's differ, so each event ran twice (trial 4, item 4).
  if (plugin && wired.size > 0)
    return {
      name: 'Claude Code hooks',
      level: 'warn',
      detail: `the session-checkpoint plugin is enabled, and settings.json runs our hooks too (for ${[...wired].join(', ')}), so every hook runs twice: ${twiceEffect('claude')}`,
      fix: `Keep the plugin, which brings every hook: remove our entries from the hooks of ${[...wiredIn].join(' and ')} (the manual set-up of docs/agents/claude-code.md), or disable the plugin.`,
    };
  if (plugin)
    return {
      name: 'Claude Code hooks',
      level: 'ok',
      detail: 'the session-checkpoint plugin is enabled (it brings the hooks and the server)',
    };
  // Hooks of ours in two settings files that run different installations: Claude Code runs both.
  const doubled = [...entryFiles].filter(([, runs]) => runs.size > 1).map(([event]) => event);
  if (doubled.length > 0)
    return {
      name: 'Claude Code hooks',
      level: 'warn',
      detail: `our hooks for ${doubled.join(', ')} run more than one installation's entry (${[...new Set(doubled.flatMap((event) => [...(entryFiles.get(event) ?? [])]))].join(', ')}), so each of those hooks runs twice: ${twiceEffect('claude')}`,
      fix: `Keep one set: remove our entries from all but one of ${[...wiredIn].join(', ')}.`,
    };
  if (wired.size === HOOK_EVENTS.length && bashOnly.size > 0)
    return {
      name: 'Claude Code hooks',
      level: 'warn',
      detail: `hooks configured in settings.json, but those for ${[...bashOnly].join(', ')} do not match the PowerShell tool: the commands it runs (Claude Code's shell on Windows without Git Bash) take no snapshot first and are not recorded`,
      fix: 'Set their matcher to "Bash|PowerShell", as the hooks snippet in docs/agents/claude-code.md (Manual set-up) does, or install the plugin.',
    };
  if (wired.size === HOOK_EVENTS.length)
    return {
      name: 'Claude Code hooks',
      level: 'ok',
      detail: `hooks configured in settings.json for ${[...wired].join(', ')}`,
    };
  const missing = HOOK_EVENTS.filter((event) => !wired.has(event));
  return {
    name: 'Claude Code hooks',
    level: 'warn',
    detail:
      wired.size === 0
        ? 'no hooks found: the brief will not come back by itself after /clear'
        : `hooks missing for ${missing.join(', ')}`,
    fix: 'Install the plugin (claude plugin marketplace add tenlean/claude-checkpoint-mcp; claude plugin install session-checkpoint@tenlean), or add the hooks snippet from docs/agents/claude-code.md (Manual set-up) to ~/.claude/settings.json.',
  };
}

/** For people who use Codex (a ~/.codex folder or a project .codex): server and hooks set up, hooks still there? */
async function codexWiring(
  root: string,
  env: NodeJS.ProcessEnv,
  commandRoot: string | undefined,
): Promise<Check | null> {
  const home = homeFolder(env);
  const userDir = agentHome(env, 'codex');
  const found: string[] = [];
  for (const [scope, dir] of [
    ['user', userDir],
    ['project', path.join(root, '.codex')],
  ] as const) {
    const [config, hooks] = await Promise.all([
      readFile(path.join(dir, 'config.toml'), 'utf8').catch(() => ''),
      readFile(path.join(dir, 'hooks.json'), 'utf8').catch(() => ''),
    ]);
    // The text only tells whether to load a TOML parser: the table is found as TOML reads it (a quoted
    // key, spaces in the brackets).
    if (!config.includes('claude-checkpoint')) continue;
    const configFile = path.join(dir, 'config.toml');
    const read = await codexServer(config);
    // A file Codex cannot read is not one that lacks our server: setup would refuse to edit it too.
    if ('error' in read)
      return {
        name: 'Codex',
        level: 'warn',
        detail: `${configFile} is not valid TOML (${read.error}): Codex will not load it`,
        fix: `Fix ${configFile} by hand, at the place the message names: Codex reads none of it until then.`,
      };
    const { server, inlineHooks } = read;
    if (server === undefined || !hooks.includes('--agent codex')) continue;
    // Both hooks.json (ours) and inline [hooks]: Codex merges them and warns at every startup.
    if (inlineHooks.length > 0)
      return {
        name: 'Codex',
        level: 'warn',
        ...hooksInBothPlaces(configFile, path.join(dir, 'hooks.json'), inlineHooks),
      };
    const rerun = `Run \`${setupCommand('codex', scope, commandRoot)}\` again`;
    // Every event this version wires, from the table setup writes from (trial 4, item 2): a hooks.json of
    // an earlier version lacks the PreToolUse snapshot before a destructive command.
    const hooksFile = path.join(dir, 'hooks.json');
    const lacking = eventsWithoutOurs(
      (readJsoncObject(hooks) as { hooks?: unknown } | undefined)?.hooks,
      SETUP_HOOK_EVENTS.codex,
      (hook) => isOurHookCommand((hook as { command?: unknown } | null)?.command, 'codex'),
    );
    if (lacking.length > 0)
      return {
        name: 'Codex',
        level: 'warn',
        detail: `${hooksFile} was set up by an earlier version: it lacks the ${lacking.join(', ')} hooks${lacking.includes('PreToolUse') ? ' (PreToolUse takes a snapshot before a shell command that may destroy work)' : ''}`,
        fix: `${rerun}, then approve the new hooks in Codex (/hooks).`,
      };
    const fix = `${rerun} from the installation you use now.`;
    const missing = absentEntryFile(hooks, home, root);
    if (missing)
      return {
        name: 'Codex',
        level: 'warn',
        detail: `the hooks in ${path.join(dir, 'hooks.json')} run ${missing}, which no longer exists`,
        fix,
      };
    const serverGone = absentServerFile(server, home, root);
    if (serverGone)
      return {
        name: 'Codex',
        level: 'warn',
        detail: `the claude-checkpoint server in ${configFile} runs ${serverGone}, which no longer exists`,
        fix,
      };
    found.push(`${scope} configuration (${dir})`);
  }
  if (found.length === 0 && !existsSync(userDir)) return null;
  const off = found.length > 0 ? await hooksOffCheck('Codex', 'codex', root, env) : null;
  if (off) return off;
  // "Matching hooks from multiple files all run" (https://developers.openai.com/codex/hooks).
  if (found.length > 1) return bothScopes('Codex', 'codex', found, commandRoot, BOTH_SCOPES_RUN.codex);
  return found.length > 0
    ? {
        name: 'Codex',
        level: 'ok',
        detail: `server and hooks set up in ${found.join(' and ')}; Codex runs them once you approve them in /hooks`,
      }
    : {
        name: 'Codex',
        level: 'warn',
        detail: 'Codex is used here, but the checkpoint server and hooks are not set up for it',
        fix: 'Run `claude-checkpoint setup codex`, then approve the hooks in Codex (/hooks).',
      };
}

/** A warning when the agent is set to run no hooks at all (see hooksSwitchedOff), else `null`. */
async function hooksOffCheck(
  name: string,
  agent: 'codex' | 'gemini',
  root: string,
  env: NodeJS.ProcessEnv,
): Promise<Check | null> {
  const off = await hooksSwitchedOff(agent, env, root);
  if (off === null) return null;
  return {
    name,
    level: 'warn',
    detail: `set up, but ${off.file} switches every hook off (${off.setting}): ${name} runs none of ours`,
    fix: `Take ${off.setting} out of ${off.file} (or set it to true).`,
  };
}

/**
 * The `[mcp_servers.claude-checkpoint]` table of a Codex config.toml (`server` undefined: none) and the
 * events it has inline hooks for, or the
 * parser's message (its first line) when the file does not parse.
 */
async function codexServer(
  config: string,
): Promise<{ server: unknown; inlineHooks: string[] } | { error: string }> {
  // Loaded only for a config that names our server: doctor's other checks need no TOML parser.
  const { parse } = await import('smol-toml');
  try {
    const parsed = parse(config) as { mcp_servers?: Record<string, unknown> };
    return { server: parsed.mcp_servers?.['claude-checkpoint'], inlineHooks: inlineHookEvents(parsed) };
  } catch (error) {
    const at = error as { line?: unknown; column?: unknown };
    const where =
      typeof at.line === 'number' && typeof at.column === 'number'
        ? `, line ${at.line}, column ${at.column}`
        : '';
    return { error: `${escapeControls(describeError(error).split('\n')[0] ?? 'unreadable')}${where}` };
  }
}
