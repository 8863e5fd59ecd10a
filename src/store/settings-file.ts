import { isUtf8 } from 'node:buffer';
import path from 'node:path';
import { CheckpointError, thenSentence } from '../core/errors.js';
import {
  type ResolvedSettings,
  resolveSettings,
  type SettingsLayer,
  type SettingValues,
  settingErrors,
} from '../core/settings.js';
import { type Surface, wordsFor } from '../core/surface.js';
import { parseJsonFile } from '../core/text.js';
import { notUtf8 } from '../core/utf8-input.js';
import { errorCode, nodeFs, type StoreFs } from './fs-seam.js';
import { homeFolder } from './home-folder.js';
import { configDirFromEnv, MAX_SETTINGS_BYTES, USER_SETTINGS_FILE } from './hook-settings.js';

// Reads the settings files for the registry in core/settings.ts. Synchronous and small: the hooks' loader
// reads the user's settings before it decides whether to relay, and a missing file costs one failed open.

/** Locates the folder itself, so it can only be an environment variable. */
export const CONFIG_DIR_ENV = 'CHECKPOINT_CONFIG_DIR';
/** The user's settings, next to redaction.json. */
export { USER_SETTINGS_FILE } from './hook-settings.js';
/** The project's own settings, committed with it: it may only add protection (see core/settings.ts). */
export const PROJECT_SETTINGS_FILE = path.join('.claude', 'checkpoint-config.json');

/** The user's own configuration folder: $CHECKPOINT_CONFIG_DIR, else $XDG_CONFIG_HOME/claude-checkpoint. */
export function userConfigDir(env: NodeJS.ProcessEnv): string {
  return configDirFromEnv(env) ?? path.join(homeFolder(env), '.config', 'claude-checkpoint');
}

export function userSettingsFile(env: NodeJS.ProcessEnv): string {
  return path.join(userConfigDir(env), USER_SETTINGS_FILE);
}

export interface SettingsReport extends ResolvedSettings {
  files: { user: string; project: string | null };
}

/** The settings read since holdSettings, per environment and project (`''`: none); unset, none are held. */
let held: WeakMap<NodeJS.ProcessEnv, Map<string, SettingsReport>> | undefined;

/**
 * From now on, readSettings answers each environment and project with what it read the first time, for
 * the rest of the process (`false` lets go). For a short CLI command, which then reads one version of the
 * settings throughout, where `status` read and resolved them eight times (about 1 ms; issue 26). Never in
 * the server or a hook host, which live on while the user edits their settings.
 */
export function holdSettings(isHeld = true): void {
  held = isHeld ? (held ?? new WeakMap()) : undefined;
}

/**
 * The effective settings from the environment, the user's settings file and, given a project, the
 * project's own file. Never throws: what is wrong is in `problems`.
 */
export function readSettings(
  env: NodeJS.ProcessEnv,
  projectRoot?: string | null,
  fs: Pick<StoreFs, 'readFileSync' | 'lstatSync'> = nodeFs,
): SettingsReport {
  const reports = held && fs === nodeFs ? held : undefined;
  const known = reports?.get(env)?.get(projectRoot ?? '');
  if (known) return known;
  const user = userSettingsFile(env);
  const project = projectRoot ? path.join(projectRoot, PROJECT_SETTINGS_FILE) : null;
  const report = {
    ...resolveSettings({
      env,
      user: readLayer(fs, user, false),
      project: project ? readLayer(fs, project, true) : null,
    }),
    files: { user, project },
  };
  if (reports) {
    const byProject = reports.get(env) ?? new Map<string, SettingsReport>();
    reports.set(env, byProject.set(projectRoot ?? '', report));
  }
  return report;
}

/**
 * One setting the user's side decides (their file and environment; a project cannot change it), for
 * the hooks' plumbing: a wrong value gives the one below it, and `doctor` names the problem.
 */
export function userSetting<K extends keyof SettingValues>(
  env: NodeJS.ProcessEnv,
  name: K,
): SettingValues[K] {
  return readSettings(env).values[name];
}

/** What settingsOf needs: the environment, and where a hook's problems go. */
export interface SettingsDeps {
  env: NodeJS.ProcessEnv;
  /**
   * Set in hooks: a wrong value is reported here and the one below it is used, so a session never
   * breaks over a setting. Unset (commands, MCP tools): a wrong value stops with an error naming it.
   */
  settingsProblem?: ((message: string) => void) | undefined;
  /**
   * Set by the CLI's commands: told each setting that is not used (an unknown key, a project's value it
   * may not set), so that a misspelt setting does not pass in silence. The command goes on.
   */
  settingsWarning?: ((message: string) => void) | undefined;
  /** Whose words the error uses (see core/surface.ts); the CLI's when unset. */
  surface?: Surface | undefined;
  /** The `--root` the CLI was given: the command the error names carries it. */
  commandRoot?: string | undefined;
}

/** The effective settings for a use case; see SettingsDeps for what happens to wrong values. */
export function settingsOf(deps: SettingsDeps, projectRoot?: string | null): SettingValues {
  const report = readSettings(deps.env, projectRoot);
  const errors = settingErrors(report.problems);
  for (const problem of report.problems)
    if (problem.severity === 'warning') deps.settingsWarning?.(problem.message);
  if (deps.settingsProblem) {
    for (const problem of errors)
      deps.settingsProblem(problem.name ? `${problem.message}; the value below it is used` : problem.message);
  } else if (errors.length > 0) {
    throw new CheckpointError(
      'INVALID_INPUT',
      thenSentence(
        errors.map((problem) => problem.message).join('; '),
        wordsFor(deps.surface ?? 'cli', deps.commandRoot).fixSetting,
      ),
    );
  }
  return report.values;
}

function readLayer(
  fs: Pick<StoreFs, 'readFileSync' | 'lstatSync'>,
  file: string,
  isProject: boolean,
): SettingsLayer | null {
  let text: string;
  try {
    // Most users and projects have no file: asked without an exception (issue 26).
    const stats = fs.lstatSync(file, { throwIfNoEntry: false });
    if (!stats) return null;
    // Security: a project's file is read only as a plain file inside the project, never through a link.
    if (isProject && stats.isSymbolicLink())
      return { path: file, unreadable: 'is a symbolic link, so it is not read' };
    const bytes = fs.readFileSync(file) as Buffer;
    // Decoded, a byte that is not UTF-8 becomes U+FFFD in a value: said, as a file that is not JSON is.
    const bad = isUtf8(bytes) ? null : notUtf8(bytes);
    if (bad !== null) return { path: file, unreadable: `is not UTF-8 text (${bad})` };
    text = bytes.toString();
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return null;
    return { path: file, unreadable: `could not be read (${(error as Error).message})` };
  }
  if (text.length > MAX_SETTINGS_BYTES)
    return { path: file, unreadable: `is larger than ${MAX_SETTINGS_BYTES / 1024} KB` };
  try {
    return { path: file, json: parseJsonFile(text) };
  } catch (error) {
    return { path: file, unreadable: `is not valid JSON (${(error as Error).message})` };
  }
}
