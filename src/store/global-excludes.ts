import { type Stats, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { StoreGit } from './store-git.js';
import type { StoreState } from './store-state.js';

/**
 * Whether the ignore rules from outside the project and the store may have changed since the last
 * capture: the user's global excludes file (core.excludesFile, or git's default one) and the config
 * files that name it. The store's git reads them, but nothing in the project changes when they do, so
 * the scan alone cannot tell. A few stats per snapshot; git is asked for core.excludesFile only when a
 * config file changed (and once for a store that never recorded them, which counts as a change).
 */
export async function globalExcludesChanged(
  git: StoreGit,
  root: string,
  state: StoreState,
): Promise<boolean> {
  const home = os.homedir();
  const xdg = process.env.XDG_CONFIG_HOME?.trim() || path.join(home, '.config');
  // Our git runs without GIT_* variables (see gitEnvironment): these are the config files it reads.
  const configs = stampOf([path.join(home, '.gitconfig'), path.join(xdg, 'git', 'config'), '/etc/gitconfig']);
  const previous = state.globalExcludes;
  const file =
    previous?.configs === configs
      ? previous.file
      : (
          await git(['config', '--path', '--get', 'core.excludesFile'], { okExitCodes: [0, 1] })
        ).stdout.trim() || path.join(xdg, 'git', 'ignore');
  const excludes = stampOf([path.resolve(root, file)]); // git reads a relative one from the project
  state.globalExcludes = { configs, file, excludes };
  return previous?.configs !== configs || previous.excludes !== excludes;
}

function stampOf(files: readonly string[]): string {
  return files
    .map((file) => {
      const stats = statOrNull(file);
      return stats ? `${file}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}` : `${file}:-`;
    })
    .join('\n');
}

function statOrNull(file: string): Stats | null {
  try {
    return statSync(file, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null; // unreadable, or a file on the way: git cannot read it either
  }
}
