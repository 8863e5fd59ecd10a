import { type Stats, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The config files git reads and the global excludes file they name, as they looked: every config file
 * (the defaults, the files they include, a system config under any prefix) with its stamp, and the
 * excludes file (core.excludesFile, or git's default one) with its own.
 */
export interface ConfigWatch {
  configFiles: string[];
  /** The config files' stamps, joined; `''` when one was edited while git read it (asked again next time). */
  configs: string;
  file: string;
  excludes: string;
}

/**
 * The watch brought up to date, and whether anything it watches changed since `previous`. A few stats;
 * git is asked (`listConfig` runs `git config --list --show-origin --includes -z` with `root` as its
 * working folder) only when a watched config file changed, or with no `previous` (which counts as a
 * change), and then for every config file it reads and the excludes file at once. One source of truth
 * for the snapshot store's global excludes and the remembered "is the checkpoint ignored".
 */
export async function watchConfig(
  listConfig: () => Promise<string>,
  root: string,
  previous: ConfigWatch | null,
  /** Config files watched even before git names them (and while missing, so a new one is noticed). */
  alsoWatched: readonly string[] = [],
): Promise<{ changed: boolean; watch: ConfigWatch }> {
  // The files git reads: git takes $HOME as it is, a relative one from the folder it runs in (the
  // project), never from ours; without it, the account's home stands in.
  const home = process.env.HOME ? path.resolve(root, process.env.HOME) : os.homedir();
  const xdg = process.env.XDG_CONFIG_HOME?.trim() || path.join(home, '.config');
  // Git runs without GIT_* variables (see gitEnvironment): these are the config files it reads wherever
  // it was installed. Watched even while missing, so that a new one is noticed.
  const defaults = [
    path.join(home, '.gitconfig'),
    path.join(xdg, 'git', 'config'),
    '/etc/gitconfig',
    ...alsoWatched,
  ];
  const before = stampsOf(previous?.configFiles ?? defaults);
  if (previous && joined(before) === previous.configs) {
    const excludes = joined(stampsOf([path.resolve(root, previous.file)])); // git reads a relative one from the project
    return { changed: previous.excludes !== excludes, watch: { ...previous, excludes } };
  }
  const answer = parseConfigList(await listConfig(), { root, home });
  const configFiles = [...new Set([...defaults, ...answer.configFiles])];
  const file = answer.excludesFile || path.join(xdg, 'git', 'ignore');
  const after = stampsOf(configFiles);
  // A file edited while git read it may have been read as it was: recorded so that the next call asks again.
  const isSettled = [...after].every(([config, stamp]) => (before.get(config) ?? stamp) === stamp);
  return {
    changed: true,
    watch: {
      configFiles,
      configs: isSettled ? joined(after) : '',
      file,
      excludes: joined(stampsOf([path.resolve(root, file)])),
    },
  };
}

/** What `git config --list --show-origin --includes -z` says about the files behind the ignore rules. */
export interface ConfigListAnswer {
  /** Every config file git read, and every file an include names (read or not, there or not). */
  configFiles: string[];
  /** The last core.excludesFile, `~` expanded as git's `--path` does; `null` when none is set. */
  excludesFile: string | null;
}

/**
 * Reads the answer of `git config --list --show-origin --includes -z`, run with `root` as its working
 * folder: `origin NUL key LF value NUL` per value (no LF and value for a bare key).
 */
export function parseConfigList(output: string, context: { root: string; home: string }): ConfigListAnswer {
  const configFiles = new Set<string>();
  let excludesFile: string | null = null;
  const fields = output.split('\0');
  for (let at = 0; at + 1 < fields.length; at += 2) {
    const origin = fields[at] as string;
    const entry = fields[at + 1] as string;
    const newline = entry.indexOf('\n');
    const key = (newline === -1 ? entry : entry.slice(0, newline)).toLowerCase();
    const value = newline === -1 ? null : entry.slice(newline + 1);
    // Other origins (`command line:`, `blob:`, `standard input:`) are no file to watch.
    const from = origin.startsWith('file:') ? path.resolve(context.root, origin.slice('file:'.length)) : null;
    if (from) configFiles.add(from);
    if (key === 'core.excludesfile') excludesFile = value ? expandHome(value, context.home) : null;
    // Watched whether or not its condition holds now, and before the file exists: a new one is noticed.
    const isInclude = key === 'include.path' || (key.startsWith('includeif.') && key.endsWith('.path'));
    if (isInclude && value && from) {
      const target = expandHome(value, context.home);
      configFiles.add(path.resolve(path.dirname(from), target)); // git reads a relative one from the includer's folder
    }
  }
  return { configFiles: [...configFiles], excludesFile };
}

/** `~/x` and `~` as git's `--path` expands them (from HOME); `~user/` only for the current user. */
function expandHome(value: string, home: string): string {
  if (value === '~') return home;
  if (value.startsWith('~/')) return path.join(home, value.slice(2));
  const user = /^~([^/]+)(\/.*)?$/.exec(value);
  if (user) {
    try {
      const info = os.userInfo();
      if (info.username === user[1]) return path.join(info.homedir, user[2] ?? '');
    } catch {
      // no entry for this user: left as written, like a path git cannot expand
    }
  }
  return value;
}

/** Each file's identity and times (`ino:size:mtime:ctime`, or `-` when there is none), by file. */
export function stampsOf(files: readonly string[]): Map<string, string> {
  return new Map(
    files.map((file) => {
      const stats = statOrNull(file);
      return [file, stats ? `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}` : '-'];
    }),
  );
}

/** Stamps as one string, to compare with a later one. */
export const joined = (stamps: Map<string, string>) =>
  [...stamps].map(([file, stamp]) => `${file}:${stamp}`).join('\n');

function statOrNull(file: string): Stats | null {
  try {
    return statSync(file, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null; // unreadable, or a file on the way: git cannot read it either
  }
}
