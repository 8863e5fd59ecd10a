import { statSync } from 'node:fs';
import path from 'node:path';
import { type ConfigWatch, joined, stampsOf, watchConfig } from './config-watch.js';
import { isIgnoredByGit } from './repo.js';
import { runGit } from './run.js';

/**
 * `isIgnoredByGit` for the checkpoint file on every save, remembered for as long as none of the files
 * that decide the answer changes: the `.gitignore` files from the project up to the repository's top and
 * its `info/exclude`, and every config file git reads (included ones too) with the global excludes file
 * they name, watched as the snapshot store watches them (git/config-watch.ts). The first question in a
 * process asks git alone (a command or a hook asks once); the next learns the config files with one
 * `git config` and asks again; from then on git runs only when one of the files changed (issue 26: an
 * included config, or the excludes file it names, changed under a long-running server unnoticed).
 * In a linked worktree or a submodule (`.git` is a file), git is asked every time.
 */
export async function isIgnoredByGitRemembered(root: string, relativePath: string): Promise<boolean> {
  const local = localFiles(root);
  if (local === null) return isIgnoredByGit(root, relativePath);
  const cacheKey = `${root}\0${relativePath}`;
  const known = remembered.get(cacheKey);
  if (!known) {
    const ignored = await isIgnoredByGit(root, relativePath);
    remembered.set(cacheKey, { local: local.stamps, watch: null, ignored });
    return ignored;
  }
  // Stamped before git answers: a file changed while it does is seen changed by the next question.
  const { changed, watch } = await watchConfig(
    async () =>
      (await runGit(['config', '--list', '--show-origin', '--includes', '-z'], { cwd: local.top })).stdout,
    local.top,
    known.watch,
    [path.join(local.top, '.git', 'config')],
  );
  if (!changed && known.local === local.stamps) return known.ignored;
  const ignored = await isIgnoredByGit(root, relativePath);
  remembered.set(cacheKey, { local: local.stamps, watch, ignored });
  return ignored;
}

const remembered = new Map<string, { local: string; watch: ConfigWatch | null; ignored: boolean }>();

/**
 * The repository's top and what the ignore files inside it look like now, or `null` when they cannot all
 * be named.
 */
function localFiles(root: string): { top: string; stamps: string } | null {
  const files: string[] = [];
  for (let dir = root; ; ) {
    files.push(path.join(dir, '.gitignore'));
    const dotGit = statSync(path.join(dir, '.git'), { throwIfNoEntry: false });
    if (dotGit) {
      if (!dotGit.isDirectory()) return null;
      files.push(path.join(dir, '.git', 'info', 'exclude'));
      return { top: dir, stamps: joined(stampsOf(files)) };
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}
