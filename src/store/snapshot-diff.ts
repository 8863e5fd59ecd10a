import type { ChangeCounts } from '../core/snapshot.js';
import type { StoreGit } from './store-git.js';
import type { TreeChange } from './worktree-writer.js';

export interface DiffEntry {
  path: string;
  status: 'A' | 'M' | 'D' | 'T';
  added: number | null;
  deleted: number | null;
}

/** Files that differ between two trees, optionally limited to some paths. */
export async function changesBetween(
  git: StoreGit,
  fromTree: string,
  toTree: string,
  paths: readonly string[] = [],
): Promise<TreeChange[]> {
  const { stdout } = await git([
    'diff-tree',
    '-r',
    '-z',
    '--no-renames',
    '--raw',
    fromTree,
    toTree,
    '--',
    ...paths,
  ]);
  const parts = stdout.split('\0');
  const changes: TreeChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const [beforeMode = '', afterMode = '', beforeOid = '', afterOid = '', status = ''] = (parts[i] ?? '')
      .slice(1)
      .split(' ');
    const file = parts[i + 1] ?? '';
    if (status === 'A' || status === 'M' || status === 'D' || status === 'T') {
      changes.push({ path: file, status, beforeMode, afterMode, beforeOid, afterOid });
    }
  }
  return changes;
}

/** Files added, modified and deleted between two trees (folders of nested repositories not counted). */
export async function countChanges(
  git: StoreGit,
  baseTree: string | undefined,
  tree: string,
): Promise<ChangeCounts> {
  const counts: ChangeCounts = { added: 0, modified: 0, deleted: 0 };
  if (!baseTree) {
    const { stdout } = await git(['ls-tree', '-r', '-z', '--full-tree', '--name-only', tree]);
    counts.added = stdout.split('\0').filter(Boolean).length;
    return counts;
  }
  for (const change of await changesBetween(git, baseTree, tree)) {
    if (change.afterMode === '160000' || change.beforeMode === '160000') continue;
    if (change.status === 'A') counts.added++;
    else if (change.status === 'D') counts.deleted++;
    else counts.modified++;
  }
  return counts;
}

/** A file list with line counts (null for binary files). */
export async function diffStat(
  git: StoreGit,
  fromTree: string,
  toTree: string,
  paths: readonly string[] = [],
): Promise<DiffEntry[]> {
  const changes = await changesBetween(git, fromTree, toTree, paths);
  const { stdout } = await git([
    'diff-tree',
    '-r',
    '-z',
    '--no-renames',
    '--numstat',
    fromTree,
    toTree,
    '--',
    ...paths,
  ]);
  const counts = new Map<string, { added: number | null; deleted: number | null }>();
  for (const record of stdout.split('\0')) {
    const match = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(record);
    if (!match) continue;
    const [, added = '-', deleted = '-', file = ''] = match;
    counts.set(file, {
      added: added === '-' ? null : Number(added),
      deleted: deleted === '-' ? null : Number(deleted),
    });
  }
  return changes.map((change) => ({
    path: change.path,
    status: change.status,
    ...(counts.get(change.path) ?? { added: null, deleted: null }),
  }));
}

/** A unified diff of one path between two trees. */
export async function unifiedDiff(
  git: StoreGit,
  fromTree: string,
  toTree: string,
  file: string,
): Promise<string> {
  const { stdout } = await git([
    'diff-tree',
    '-p',
    '--no-renames',
    '--no-ext-diff',
    '--no-textconv',
    '--no-color',
    fromTree,
    toTree,
    '--',
    file,
  ]);
  return stdout;
}

/** Whether a tree holds `file`, or a folder of that name with something in it. */
export async function treeHasPath(git: StoreGit, tree: string, file: string): Promise<boolean> {
  // The same pathspec rules as diffStat's, so both agree on what `file` names.
  const { stdout } = await git(['ls-tree', '-r', '--name-only', '-z', tree, '--', file]);
  return stdout !== '';
}
