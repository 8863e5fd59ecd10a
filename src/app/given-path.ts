import { existsSync } from 'node:fs';
import { lstat, stat } from 'node:fs/promises';
import path from 'node:path';
import { CheckpointError, isCheckpointError } from '../core/errors.js';
import {
  CHECKPOINT_FILE,
  isInGitFolder,
  isOwnFile,
  pathWithin,
  type RealLocation,
  toProjectPath,
} from '../core/paths.js';
import { escapeControls } from '../core/quote.js';
import { fsPath } from '../core/raw-path.js';
import { isOurPath, resolvedThroughLinks } from '../store/store-within.js';

/**
 * A path given to a save, diff or restore as the project path it names (see toProjectPath), through a
 * link to the project too (realLocationOf). `from`: the folder a relative path is taken from (the CLI's
 * current folder, as a person types paths); the root when absent (the tools' paths, a JSON document's).
 */
export function projectPathOf(
  root: string,
  given: string,
  field: string,
  from?: string,
  shown?: (file: string) => string,
): string {
  const absolute = from === undefined ? given : path.resolve(from, given);
  try {
    return toProjectPath(root, given, field, { real: realLocationOf(root, absolute), shown, from });
  } catch (error) {
    // Outside the project from here, inside it from the root: said how to type it.
    const hint = isCheckpointError(error) ? rootRelativeHint(root, given, from, shown) : '';
    if (hint === '') throw error;
    throw new CheckpointError((error as CheckpointError).code, `${(error as Error).message}${hint}`);
  }
}

/**
 * When a relative path typed in `from` (the CLI's current folder, not the root) names nothing there but
 * names a file or folder from the project root: how to name that one from `from`, as a clause to add to
 * an error; else ''. Paths typed on the CLI were taken from the root until 2026-12-07: a script or an
 * agent's shell that still types them so is told, not left with a file that is not there.
 */
export function rootRelativeHint(
  root: string,
  given: string,
  from: string | undefined,
  shown: (file: string) => string = (file) => `'${escapeControls(file)}'`,
): string {
  if (from === undefined || from === root || path.isAbsolute(given) || given.includes('\0')) return '';
  const fromRoot = path.resolve(root, given);
  if (existsSync(path.resolve(from, given)) || pathWithin(root, fromRoot) === null || !existsSync(fromRoot))
    return '';
  const here = path.relative(from, fromRoot);
  return `; paths typed on the command line are taken from the current folder, as git takes them: ${shown(given)} from the project root is ${shown(here)} from here (or give an absolute path)`;
}

/**
 * The real location of an absolute path given outside `root` as written (see toProjectPath), else
 * undefined: `/var/p/a.txt` where `/var` links to `/private/var` and the root is `/private/var/p` (macOS),
 * or the project named through a link to it. Links are followed only up to the first folder that really
 * lies in the project; from there on the path is taken as written, so no link inside the project is
 * followed, however the path reaches it (review: `<alias>/lib/a.ts`, with `lib` a link to `src`, was
 * saved as `src/a.ts`), and a name is never resolved: a link given by its name is the link.
 */
export function realLocationOf(root: string, given: string): RealLocation | undefined {
  if (!path.isAbsolute(given) || given.includes('\0')) return undefined;
  const absolute = path.resolve(given);
  if (pathWithin(root, absolute) !== null) return undefined;
  // The folder it is in, as before: a path with no link on the way is plainly outside, and one whose
  // links lead elsewhere is outside too, unless a folder on the way is really the project's.
  // The project's root itself, named through a link: said to be the root (not "outside").
  if (resolvedThroughLinks(absolute) === root) return { path: root, isThroughProject: false };
  const real = path.join(resolvedThroughLinks(path.dirname(absolute)), path.basename(absolute));
  if (real === absolute) return { path: real, isThroughProject: false };
  if (pathWithin(root, real) !== null) {
    // Links are followed up to the first folder that really lies in the project, no further. Only folders
    // that exist are looked at (one past them resolves as the last that exists), from the path's own root
    // (a drive or a share on Windows).
    const top = path.parse(absolute).root;
    const names = absolute.slice(top.length).split(path.sep).filter(Boolean);
    for (let depth = 1; depth < names.length; depth++) {
      const prefix = path.join(top, ...names.slice(0, depth));
      if (!existsSync(prefix)) break;
      const folder = resolvedThroughLinks(prefix);
      if (pathWithin(root, folder) !== null)
        return { path: path.join(folder, ...names.slice(depth)), isThroughProject: false };
    }
    return { path: real, isThroughProject: false };
  }
  for (let at = path.dirname(absolute); path.dirname(at) !== at; at = path.dirname(at))
    if (pathWithin(root, resolvedThroughLinks(at)) !== null) return { path: real, isThroughProject: true };
  return { path: real, isThroughProject: false };
}

/**
 * Why a project path a save was given names nothing a checkpoint can list, or null: git's own folder,
 * this tool's own files (the checkpoint, its store), a folder (not a nested repository or submodule,
 * which git lists as one entry), or a name reached through a symbolic link to a folder (never followed:
 * the file is listed where it really lies). A path that does not exist, also under a link to nothing or
 * to a file, is no problem here: an agent may note a file it removed (the save warns, see
 * saveCheckpoint). `shown`: how a path is written in the message (redacted, see redactPath).
 */
export async function savedPathProblem(
  root: string,
  file: string,
  ourFolders: readonly string[],
  shown: (file: string) => string,
): Promise<string | null> {
  if (isInGitFolder(file))
    return `${shown(file)} is in git's own folder (.git): a checkpoint lists the project's files, not git's`;
  if (isOwnFile(file))
    return `${shown(file)} is the checkpoint's own file (${CHECKPOINT_FILE}): a checkpoint lists the project's files, not its own`;
  if (isOurPath(file, ourFolders))
    return `${shown(file)} is in this tool's own store: a checkpoint lists the project's files, not the store's`;
  const names = file.split('/');
  for (let depth = 1; depth <= names.length; depth++) {
    const at = names.slice(0, depth).join('/');
    const full = fsPath(path.join(root, at));
    const stats = await lstat(full).catch(() => null);
    // Gone (or a file where a folder was named): nothing further down exists either.
    if (stats === null) return null;
    if (depth === names.length) {
      if (stats.isDirectory())
        return (await isRepository(full)) ? null : `${shown(file)} is a folder: name the files in it`;
      // A pipe, socket or device has no content to hash: it read as deleted (review).
      return stats.isFile() || stats.isSymbolicLink()
        ? null
        : `${shown(file)} is not a regular file (a pipe, socket or device): a checkpoint lists files`;
    }
    if (stats.isSymbolicLink())
      return (await stat(full).catch(() => null))?.isDirectory() ? throughLink(root, file, at, shown) : null;
    if (!stats.isDirectory()) return null;
  }
  return null;
}

/** Whether a folder is a repository of its own (a submodule or a nested clone): git lists it as one entry. */
async function isRepository(folder: string | Buffer): Promise<boolean> {
  const dotGit =
    typeof folder === 'string' ? path.join(folder, '.git') : Buffer.concat([folder, Buffer.from('/.git')]);
  return (await lstat(dotGit).catch(() => null)) !== null;
}

/** The problem of a path through the symbolic link `link`: where it really lies, when in the project. */
function throughLink(root: string, file: string, link: string, shown: (file: string) => string): string {
  const real = pathWithin(root, resolvedThroughLinks(path.join(root, file)));
  const named = `${shown(file)} goes through the symbolic link ${shown(link)}`;
  return real === null || real === ''
    ? `${named}, which leads out of the project`
    : `${named}: name the file where it lies in the project, ${shown(real.split(path.sep).join('/'))}`;
}
