import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { CHECKPOINT_FILE, isInGitFolder, isOwnFile, pathWithin, type RealLocation } from '../core/paths.js';
import { fsPath } from '../core/raw-path.js';
import { isOurPath, resolvedThroughLinks } from '../store/store-within.js';

/**
 * The real location of an absolute path given outside `root` as written (see toProjectPath), else
 * undefined: `/tmp/p/a.txt` where `/tmp` links to `/private/tmp` and the root is `/private/tmp/p` (macOS),
 * or the project named through a link to it. A path inside the root as written is never resolved here,
 * so no link inside the project is followed.
 */
export function realLocationOf(root: string, given: string): RealLocation | undefined {
  if (!path.isAbsolute(given) || given.includes('\0')) return undefined;
  const absolute = path.resolve(given);
  if (pathWithin(root, absolute) !== null) return undefined;
  // The folder it is in, not the name itself: a link given by its name is the link, as inside the root.
  const real = path.join(resolvedThroughLinks(path.dirname(absolute)), path.basename(absolute));
  if (real === absolute || pathWithin(root, real) !== null) return { path: real, isThroughProject: false };
  // Outside: say so plainly unless a folder on the way is really the project's, a link in it leading out.
  for (let at = path.dirname(absolute); path.dirname(at) !== at; at = path.dirname(at))
    if (pathWithin(root, resolvedThroughLinks(at)) !== null) return { path: real, isThroughProject: true };
  return { path: real, isThroughProject: false };
}

/**
 * Why a project path a save was given names nothing a checkpoint can list, or null: git's own folder,
 * this tool's own files (the checkpoint, its store), a folder, or a name reached through a symbolic link
 * to a folder (never followed: the file is listed where it really lies). A path that does not exist is no
 * problem here: an agent may note a file it removed (the save warns, see saveCheckpoint).
 */
export async function savedPathProblem(
  root: string,
  file: string,
  ourFolders: readonly string[],
): Promise<string | null> {
  if (isInGitFolder(file))
    return `'${file}' is in git's own folder (.git): a checkpoint lists the project's files, not git's`;
  if (isOwnFile(file))
    return `'${file}' is the checkpoint's own file (${CHECKPOINT_FILE}): a checkpoint lists the project's files, not its own`;
  if (isOurPath(file, ourFolders))
    return `'${file}' is in this tool's own store: a checkpoint lists the project's files, not the store's`;
  const names = file.split('/');
  for (let depth = 1; depth <= names.length; depth++) {
    const at = names.slice(0, depth).join('/');
    const stats = await lstat(fsPath(path.join(root, at))).catch(() => null);
    // Gone (or a file where a folder was named): nothing further down exists either.
    if (stats === null) return null;
    if (depth === names.length)
      return stats.isDirectory() ? `'${file}' is a folder: name the files in it` : null;
    if (stats.isSymbolicLink()) return throughLink(root, file, at);
    if (!stats.isDirectory()) return null;
  }
  return null;
}

/** The problem of a path through the symbolic link `link`: where it really lies, when in the project. */
function throughLink(root: string, file: string, link: string): string {
  const real = pathWithin(root, resolvedThroughLinks(path.join(root, file)));
  const named = `'${file}' goes through the symbolic link '${link}'`;
  return real === null || real === ''
    ? `${named}, which leads out of the project`
    : `${named}: name the file where it lies in the project, '${real.split(path.sep).join('/')}'`;
}
