import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats, statSync } from 'node:fs';
import path from 'node:path';

// Synchronous reads: a handful of small files and stats, which a snapshot in its own process would
// otherwise pay node:fs/promises's loading for (a few milliseconds, issue 26).

/** Far over any real ignore list; what is bigger is not one, and is not read whole. */
const MAX_IGNORE_FILE_BYTES = 4 * 1024 * 1024;

/**
 * The file's text, or '' when it cannot be read (missing, a folder, no permission) or is not a regular
 * file: opened without blocking and checked before it is read, since a FIFO would otherwise hold the
 * whole process (a hook past its time limit, a server's every tool), where anyone may leave one (a
 * `.gitignore` in `/tmp`, above projects that have no repository). Links are followed, as git does.
 */
function readText(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return '';
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > MAX_IGNORE_FILE_BYTES) return '';
    return readFileSync(fd, 'utf8');
  } catch {
    return '';
  } finally {
    closeSync(fd);
  }
}

/** The stats of what is at `file`, or null when nothing can be seen there. */
function statOrNull(file: string): Stats | null {
  try {
    return statSync(file, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/**
 * The ignore rules a project's git applies from outside its own folder: `.gitignore` files of the
 * folders above it, up to the top of its repository, that repository's `info/exclude` (in its common
 * git folder for a linked worktree or a submodule, whose `.git` is a file), and the excludes file its
 * config names (`excludesFile`, see globalExcludesChanged). git applies them to the project's files,
 * but the snapshot store's work tree is the project folder and its git folder is its own, so git would
 * not read them there: without this, a package of a monorepo would snapshot the `node_modules/` its
 * repository ignores at the top, and a worktree the `.env` its repository's `info/exclude` names.
 * Lowest precedence first, as git reads them: the excludes file, `info/exclude`, then the `.gitignore`
 * files from the top down (within one list, the last rule that matches wins).
 *
 * Rules anchored to another folder (a `/` before the end) are translated when they point into the
 * project, and dropped otherwise; unanchored rules (`node_modules/`, `*.log`) apply at any depth as is.
 */
export async function inheritedIgnoreRules(
  root: string,
  excludesFile: string | null = null,
): Promise<string> {
  const chunks: string[] = [];
  const withExcludes = async (prefix: string) => {
    const text = excludesFile ? readText(excludesFile) : '';
    return (text ? translate(text, prefix) : '') + chunks.join('');
  };
  // The folders above, up to the repository's top: their `.gitignore` files are read only once a
  // repository is found, since outside one none of them applies.
  const above: string[] = [];
  let dir = root;
  for (let depth = 0; depth < 64; depth++) {
    const dotGit = statOrNull(path.join(dir, '.git'));
    if (dir !== root) above.push(dir);
    if (dotGit) {
      for (const folder of above) {
        const text = readText(path.join(folder, '.gitignore'));
        if (text) chunks.unshift(translate(text, path.relative(folder, root)));
      }
      const gitDir = dotGit.isDirectory()
        ? path.join(dir, '.git')
        : await gitDirOfFile(path.join(dir, '.git'));
      const exclude = gitDir ? readText(path.join(await commonDir(gitDir), 'info', 'exclude')) : '';
      if (exclude) chunks.unshift(translate(exclude, path.relative(dir, root)));
      return withExcludes(path.relative(dir, root));
    }
    const parent = path.dirname(dir);
    if (parent === dir) break; // not in a repository: only the excludes file applies
    dir = parent;
  }
  return withExcludes('');
}

/**
 * The top of the project's repository (the folder with its `.git`), or the project itself outside one:
 * where git resolves a relative config origin or excludes file from.
 */
export async function repositoryTop(root: string): Promise<string> {
  let dir = root;
  for (let depth = 0; depth < 64; depth++) {
    if (statOrNull(path.join(dir, '.git'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return root;
}

/** The git folder a `.git` file points to (`gitdir: <path>`, a linked worktree's or a submodule's). */
async function gitDirOfFile(file: string): Promise<string | null> {
  const text = readText(file);
  const named = /^gitdir: (.+)$/m.exec(text)?.[1]?.trim();
  return named ? path.resolve(path.dirname(file), named) : null;
}

/** A linked worktree's git folder names the repository's own in `commondir`, where `info/` is. */
async function commonDir(gitDir: string): Promise<string> {
  const named = readText(path.join(gitDir, 'commondir')).trim();
  return named ? path.resolve(gitDir, named) : gitDir;
}

/** Rewrites rules written for the folder `from` so they mean the same from the project, `prefix` below it. */
export function translate(text: string, prefix: string): string {
  const below = prefix.split(path.sep).join('/');
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '' || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    const rule = negated ? line.slice(1) : line;
    const body = rule.endsWith('/') ? rule.slice(0, -1) : rule;
    if (!body.includes('/') || below === '') {
      out.push(line); // applies at any depth, or already relative to the project
      continue;
    }
    const anchored = rule.startsWith('/') ? rule.slice(1) : rule;
    if (anchored.startsWith('**/')) out.push(line);
    else if (anchored.startsWith(`${below}/`))
      out.push(`${negated ? '!' : ''}/${anchored.slice(below.length + 1)}`);
  }
  return out.length > 0 ? `${out.join('\n')}\n` : '';
}
