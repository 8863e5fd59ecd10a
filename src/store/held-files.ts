// Files over the size cap that one snapshot holds all the same: those a destructive command names (`rm
// big.bin`), up to HELD_NAMED_MAX_BYTES (see core/snapshot.ts). The pre-command snapshot's tree gets them
// beside what the scan took; the private index is left as it is, so later snapshots leave them out again.
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { StoreGit } from './store-git.js';
import { uniqueSuffix } from './temp-name.js';
import { treeStat } from './tree-stat.js';

/** A file's content in the store, ready to enter a tree. */
export interface HeldFile {
  path: string;
  mode: '100644' | '100755';
  oid: string;
  bytes: number;
}

/**
 * Stores the content of `files` (project-relative) byte for byte (no filter, as the scan stores every
 * file), those that are regular files up to `maxBytes` only. Security: a link, or a file under a link,
 * is never followed (treeStat looks at every folder on the way).
 */
export async function storeHeldFiles(
  git: StoreGit,
  root: string,
  files: readonly string[],
  maxBytes: number,
): Promise<HeldFile[]> {
  const inTree = treeStat(root);
  const wanted: Array<{ path: string; mode: HeldFile['mode']; bytes: number }> = [];
  for (const file of files) {
    const stats = file.includes('\n') ? null : inTree(file);
    if (stats?.isFile() && stats.size <= maxBytes)
      wanted.push({ path: file, mode: (stats.mode & 0o111) !== 0 ? '100755' : '100644', bytes: stats.size });
  }
  if (wanted.length === 0) return [];
  const { stdout } = await git(['hash-object', '-w', '--no-filters', '--stdin-paths'], {
    input: `${wanted.map((file) => file.path).join('\n')}\n`,
  });
  const oids = stdout.split('\n');
  return wanted
    .map((file, at) => ({ ...file, oid: (oids[at] ?? '').trim() }))
    .filter((file) => /^[0-9a-f]{40,64}$/.test(file.oid));
}

/**
 * `tree` with `held` in it, written into the store through an index of its own (the store's private one
 * stays as it is: its next scan compares it with the tree it wrote, not with this one).
 */
export async function treeWithHeld(
  git: StoreGit,
  gitDir: string,
  tree: string,
  held: readonly HeldFile[],
): Promise<string> {
  if (held.length === 0) return tree;
  const index = path.join(gitDir, `index-held-${uniqueSuffix()}`);
  // A plain index: the store's config splits its own, which would leave a shared part behind here.
  const run = (args: readonly string[], input?: string) =>
    git(['-c', 'core.splitIndex=false', ...args], {
      extraEnv: { GIT_INDEX_FILE: index },
      ...(input === undefined ? {} : { input }),
    });
  try {
    await run(['read-tree', tree]);
    await run(
      ['update-index', '-z', '--add', '--replace', '--index-info'],
      held.map((file) => `${file.mode} ${file.oid}\t${file.path}\0`).join(''),
    );
    return (await run(['write-tree'])).stdout.trim();
  } finally {
    rmSync(index, { force: true });
    rmSync(`${index}.lock`, { force: true });
  }
}
