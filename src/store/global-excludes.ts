import { statSync } from 'node:fs';
import path from 'node:path';
import { type ConfigWatch, watchConfig } from '../git/config-watch.js';
import type { StoreState } from './store-state.js';

/** Runs git with the project's configuration (its own config included), for `git config --list`. */
export type ConfigGit = (args: readonly string[]) => Promise<{ stdout: string }>;

/**
 * Whether the excludes file the project's git reads may have changed since the last capture: the one
 * its config names (core.excludesFile, in the user's config or the project's own), or git's default
 * one, and the config files that decide which. The store's git reads no excludes file of its own: the
 * project's is copied into the store's rules (see inheritedIgnoreRules), so `git` must answer with the
 * project's configuration, from `top` (the repository's top, or the project outside one). A few stats
 * per snapshot; git is asked only when a watched config file changed (and once for a store that never
 * recorded them, which counts as a change): see watchConfig. The file is `state.globalExcludes.file`,
 * relative to `top` when git was given a relative one.
 */
export async function globalExcludesChanged(
  git: ConfigGit,
  top: string,
  state: StoreState,
): Promise<boolean> {
  const local = path.join(top, '.git', 'config');
  const { changed, watch } = await watchConfig(
    async () => (await git(['config', '--list', '--show-origin', '--includes', '-z'])).stdout,
    top,
    recordedOrNull(state.globalExcludes),
    // A repository's own config, watched before git names it (a linked worktree's is named by git).
    statSync(path.join(top, '.git'), { throwIfNoEntry: false })?.isDirectory() ? [local] : [],
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
