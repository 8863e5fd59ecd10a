import { readFileSync, type Stats, statSync } from 'node:fs';
import path from 'node:path';
import { fsPath } from '../core/raw-path.js';
import { coveringPathspecs, isUnder } from './snapshot-diff.js';
import type { StoreGit } from './store-git.js';

/**
 * The outermost folders above these paths (the scan's, `/`-separated) that hold a `.git`: nested
 * repositories git's scan steps into all the same, because the store's index holds entries under them
 * (a folder snapshotted while plain, then `git init` there). One where the index held nothing is
 * reported by the scan as a folder (`dir/`) instead: only the folders above a path are looked at. One
 * lstat per folder, most of them known already from the scan's own paths.
 */
export function nestedReposAbove(
  root: string,
  paths: readonly string[],
  inTree: (file: string) => Stats | null,
): string[] {
  const found = new Set<string>();
  const checked = new Set<string>();
  for (const file of paths) {
    const parts = (file.endsWith('/') ? file.slice(0, -1) : file).split('/');
    for (let depth = 1; depth < parts.length; depth++) {
      const dir = parts.slice(0, depth).join('/');
      if (found.has(dir)) break;
      if (checked.has(dir)) continue;
      checked.add(dir);
      if (inTree(`${dir}/.git`) !== null && isRepository(root, dir)) {
        found.add(dir);
        break;
      }
    }
  }
  return [...found];
}

/**
 * Whether the `.git` in `dir` makes it a repository, as git tells one: a git folder (a `HEAD` file beside
 * `objects`, or a worktree's `commondir`), or a file `gitdir: <path>` naming one. An empty `.git`, one
 * naming a folder that is gone (a worktree removed) or a dangling link is not: git's scan reads such a
 * folder as any other, and so do snapshots (review of 2026-12-07: such folders were said to be nested).
 */
function isRepository(root: string, dir: string): boolean {
  const folder = path.join(root, dir);
  let gitDir = path.join(folder, '.git');
  try {
    if (statSync(fsPath(gitDir)).isFile()) {
      const named = /^gitdir: (.+)$/m.exec(readFileSync(fsPath(gitDir), 'utf8').slice(0, 4096))?.[1]?.trim();
      if (!named) return false;
      gitDir = path.resolve(folder, named);
    }
    const has = (name: string, kind: 'file' | 'folder') => {
      const stats = statSync(fsPath(path.join(gitDir, name)), { throwIfNoEntry: false });
      return kind === 'file' ? stats?.isFile() === true : stats?.isDirectory() === true;
    };
    return has('HEAD', 'file') && (has('objects', 'folder') || has('commondir', 'file'));
  } catch {
    return false;
  }
}

/** The entries the store's index holds under these folders, each with whether it is a submodule. */
export async function heldUnder(
  git: StoreGit,
  dirs: readonly string[],
): Promise<Array<{ path: string; isSubmodule: boolean }>> {
  // A folder whose name is not valid UTF-8 cannot be a pathspec: the folder above it is listed instead.
  const specs = coveringPathspecs(dirs).map((dir) => `:(literal)${dir}/`);
  const { stdout } = await git(['ls-files', '-z', '--stage', '--', ...specs]);
  const held: Array<{ path: string; isSubmodule: boolean }> = [];
  for (const record of stdout.split('\0')) {
    // <mode> SP <oid> SP <stage> TAB <path>
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const file = record.slice(tab + 1);
    if (isUnder(file, dirs)) held.push({ path: file, isSubmodule: record.startsWith('160000 ') });
  }
  return held;
}
