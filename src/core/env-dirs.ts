import path from 'node:path';

/**
 * The folder an environment variable names (`HOME`, `XDG_STATE_HOME`, `XDG_CONFIG_HOME`,
 * `CHECKPOINT_CONFIG_DIR`), trimmed; `undefined` when it is unset, empty or relative. A relative one would
 * be read from whatever folder a command starts in: the store written inside the project, a cloned
 * repository's file read as the user's own settings. The XDG Base Directory spec has such values ignored.
 */
export function absoluteDirFromEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value && path.isAbsolute(value) ? value : undefined;
}
