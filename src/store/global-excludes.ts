import { type ConfigWatch, watchConfig } from '../git/config-watch.js';
import type { StoreGit } from './store-git.js';
import type { StoreState } from './store-state.js';

/**
 * Whether the ignore rules from outside the project and the store may have changed since the last
 * capture: the user's global excludes file (core.excludesFile, or git's default one) and the config
 * files that name it. The store's git reads them, but nothing in the project changes when they do, so
 * the scan alone cannot tell. A few stats per snapshot; git is asked only when a watched config file
 * changed (and once for a store that never recorded them, which counts as a change): see watchConfig.
 */
export async function globalExcludesChanged(
  git: StoreGit,
  root: string,
  state: StoreState,
): Promise<boolean> {
  const { changed, watch } = await watchConfig(
    async () => (await git(['config', '--list', '--show-origin', '--includes', '-z'])).stdout,
    root,
    recordedOrNull(state.globalExcludes),
  );
  state.globalExcludes = watch;
  return changed;
}

/** A record written by a version that watched fixed files only (no list) counts as none. */
function recordedOrNull(recorded: StoreState['globalExcludes']): ConfigWatch | null {
  if (!recorded || !Array.isArray(recorded.configFiles)) return null;
  if (!recorded.configFiles.every((file) => typeof file === 'string')) return null;
  return typeof recorded.configs === 'string' &&
    typeof recorded.file === 'string' &&
    typeof recorded.excludes === 'string'
    ? recorded
    : null;
}
