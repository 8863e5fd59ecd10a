import { accessSync, constants, lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { mayIndexList } from './index-file.js';

/**
 * Config that can make git store a file's bytes other than as they are (core.autocrlf, core.eol) or
 * that points git at attributes or config we do not read (includes, core.attributesFile, attr.tree).
 * Any mention counts, whatever its value: a doubt only costs the `git hash-object` it would save.
 */
const CONVERTING_CONFIG = /autocrlf|\beol\b|attributesfile|include|\[\s*attr\b/i;
/** The only git whose system files we know without asking it: a distribution's, built for /usr and /etc. */
const KNOWN_GIT = '/usr/bin/git';

/**
 * Whether git might store any of `paths` (relative to the repository's top, `top`) as other bytes than
 * the working tree's: a clean filter, an EOL conversion, `ident` or a working-tree encoding. `false` only
 * when none can apply: no attributes file anywhere git would read one for these paths (the working tree's
 * folders on each path, the index, `info/attributes`, the user's and the system's) and no config that
 * converts or reads more. Then git's own hash of each file is the plain hash of its bytes, and
 * `git hash-object` has nothing to add. Anything unusual (not Linux, another git than the system's, a
 * `.git` file, an index format we do not search, an unreadable file) answers `true`.
 *
 * `env` is the environment git runs with (no GIT_* variable: see gitEnvironment).
 */
export function mayFilterOnCheckin(
  top: string,
  paths: readonly string[],
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): boolean {
  try {
    if (platform !== 'linux' || gitOnPath(env.PATH) !== KNOWN_GIT) return true;
    const gitDir = path.join(top, '.git');
    if (!lstatSync(gitDir).isDirectory()) return true;
    // As git finds the user's files: ~ is HOME, and XDG_CONFIG_HOME when set and not empty.
    const home = env.HOME ?? null;
    const xdg = env.XDG_CONFIG_HOME || (home && path.join(home, '.config'));
    if ((home !== null && !path.isAbsolute(home)) || (xdg && !path.isAbsolute(xdg))) return true;
    const configs = [
      '/etc/gitconfig',
      home && path.join(home, '.gitconfig'),
      xdg && path.join(xdg, 'git', 'config'),
      path.join(gitDir, 'config'),
      path.join(gitDir, 'config.worktree'),
    ];
    for (const file of configs) {
      const text = file ? readIfThere(file) : null;
      if (text !== null && CONVERTING_CONFIG.test(text)) return true;
    }
    const attributes = [
      '/etc/gitattributes',
      xdg && path.join(xdg, 'git', 'attributes'),
      path.join(gitDir, 'info', 'attributes'),
    ];
    for (const file of attributes) if (file && isThere(file)) return true;
    // The working tree's .gitattributes on each path; where one is missing there, git reads the index's.
    const folders = new Set<string>();
    for (const file of paths) {
      for (let dir = path.posix.dirname(file); ; dir = path.posix.dirname(dir)) {
        folders.add(dir === '.' ? '' : dir);
        if (dir === '.' || dir === '/') break;
      }
    }
    for (const dir of folders) if (isThere(path.join(top, dir, '.gitattributes'))) return true;
    return mayIndexList(path.join(gitDir, 'index'), '.gitattributes');
  } catch {
    return true;
  }
}

/** Where `git` resolves on PATH, as spawning it finds it, links resolved; `null` when not found. */
function gitOnPath(searchPath: string | undefined): string | null {
  for (const dir of (searchPath ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(dir)) return null; // a relative entry depends on the folder: not worth knowing
    const candidate = path.join(dir, 'git');
    try {
      // Most folders have no git: asked without an exception for each (issue 26).
      if (!statSync(candidate, { throwIfNoEntry: false })) continue;
      accessSync(candidate, constants.X_OK);
      if (!lstatSync(candidate).isDirectory()) return realpathSync(candidate);
    } catch {
      // not here: the next folder
    }
  }
  return null;
}

// Missing files are asked about without an exception: each costs a `status` some tens of microseconds
// (issue 26); one that goes away between the two calls is still missing.
function readIfThere(file: string): string | null {
  try {
    if (!statSync(file, { throwIfNoEntry: false })) return null;
    return readFileSync(file, 'utf8');
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

function isThere(file: string): boolean {
  try {
    return lstatSync(file, { throwIfNoEntry: false }) !== undefined;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
