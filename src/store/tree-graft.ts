import * as fsp from 'node:fs/promises';
import path from 'node:path';
import type { StoreGit } from './store-git.js';
import { uniqueSuffix } from './temp-name.js';

/**
 * The tree of `commit` with the folder `folder` (a path in the repository, without a trailing `/`)
 * replaced by `subtree`: what a project in a folder of its repository (a monorepo's package) hands off,
 * so that the commit shows only the project's own changes against its parent. Built in a private index
 * of the store's own, so neither the user's index nor the store's changes.
 */
export async function graftTree(
  git: StoreGit,
  gitDir: string,
  commit: string,
  folder: string,
  subtree: string,
): Promise<string> {
  const env = { GIT_INDEX_FILE: path.join(gitDir, `graft-index-${uniqueSuffix()}`) };
  try {
    await git(['read-tree', commit], { extraEnv: env });
    // The folder's entries as HEAD has them go; the snapshot's take their place.
    const listed = await git(['ls-files', '-z', '--cached', '--', `:(literal)${folder}/`], {
      extraEnv: env,
    });
    // A file where the folder or one above it is in HEAD (a file the user replaced with a folder) goes too.
    const above = folder.split('/').map((_, index, names) => names.slice(0, index + 1).join('/'));
    await git(['update-index', '-z', '--force-remove', '--stdin'], {
      input: `${listed.stdout}${above.join('\0')}\0`,
      extraEnv: env,
    });
    await git(['read-tree', `--prefix=${folder}/`, subtree], { extraEnv: env });
    return (await git(['write-tree'], { extraEnv: env })).stdout.trim();
  } finally {
    await fsp.rm(env.GIT_INDEX_FILE, { force: true });
  }
}
