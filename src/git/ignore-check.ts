import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isIgnoredByGit } from './repo.js';

/**
 * `isIgnoredByGit` for the checkpoint file on every save, remembered for as long as none of the files
 * that decide the answer changes: the `.gitignore` files from the project up to the repository's top,
 * its `info/exclude` and config, and the user's and system's git config and global ignore file. A save
 * then asks git only when one of them changed, instead of starting `git check-ignore` every time.
 * In a linked worktree or a submodule (`.git` is a file), git is asked every time.
 */
export async function isIgnoredByGitRemembered(root: string, relativePath: string): Promise<boolean> {
  const key = decidingFiles(root);
  const cacheKey = `${root}\0${relativePath}`;
  const known = remembered.get(cacheKey);
  if (key !== null && known?.key === key) return known.ignored;
  const ignored = await isIgnoredByGit(root, relativePath);
  if (key !== null) remembered.set(cacheKey, { key, ignored });
  return ignored;
}

const remembered = new Map<string, { key: string; ignored: boolean }>();

/** What the deciding files look like now, or `null` when they cannot all be named. */
function decidingFiles(root: string): string | null {
  const files: string[] = [];
  for (let dir = root; ; ) {
    files.push(path.join(dir, '.gitignore'));
    const dotGit = statSync(path.join(dir, '.git'), { throwIfNoEntry: false });
    if (dotGit) {
      if (!dotGit.isDirectory()) return null;
      files.push(path.join(dir, '.git', 'info', 'exclude'), path.join(dir, '.git', 'config'));
      break;
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
  const home = os.homedir();
  const xdg = process.env.XDG_CONFIG_HOME?.trim() || path.join(home, '.config');
  files.push(
    path.join(home, '.gitconfig'),
    path.join(xdg, 'git', 'config'),
    path.join(xdg, 'git', 'ignore'),
    '/etc/gitconfig',
  );
  return files
    .map((file) => {
      const stats = statSync(file, { throwIfNoEntry: false });
      return stats ? `${file}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}` : `${file}:-`;
    })
    .join('\n');
}
