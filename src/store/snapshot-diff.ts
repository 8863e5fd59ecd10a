import { CheckpointError } from '../core/errors.js';
import { quotePathFully } from '../core/quote.js';
import { hasRawBytes, textFromBytes } from '../core/raw-path.js';
import { countedAs, isLinkToItself, isLinkTypeChange } from '../core/self-link.js';
import { type ChangeCounts, modeChangeOf } from '../core/snapshot.js';
import { CatFileBatchParser } from '../git/cat-file-batch.js';
import type { StoreGit } from './store-git.js';
import type { TreeChange } from './worktree-writer.js';

export interface DiffEntry {
  path: string;
  status: 'A' | 'M' | 'D' | 'T';
  added: number | null;
  deleted: number | null;
  /** git's modes on each side (`100644`, `100755`, `120000`), when the path is on both and they differ. */
  oldMode?: string;
  newMode?: string;
  /**
   * The side on which the path is a symbolic link to itself, which holds nothing: a file replaced by one
   * is deleted (`D`, `new`), one that replaces such a link is added (`A`, `old`); git says `T` of both.
   */
  linkToItself?: 'old' | 'new';
}

/**
 * Pathspecs that cover `paths` (none: the whole tree). git's arguments cannot carry bytes that are not
 * valid UTF-8 (see raw-path.ts): a path holding some is covered by its deepest folder that holds none,
 * or by the whole tree, and what git answers is narrowed with `isAsked`.
 */
export function coveringPathspecs(paths: readonly string[]): string[] {
  if (!paths.some(hasRawBytes)) return [...paths];
  const specs = new Set<string>();
  for (const file of paths) {
    if (!hasRawBytes(file)) {
      specs.add(file);
      continue;
    }
    const parts = file.split('/');
    const clean = parts.findIndex(hasRawBytes);
    if (clean === 0) return [];
    specs.add(parts.slice(0, clean).join('/'));
  }
  return [...specs];
}

/** Whether `file` is one of `paths` or under one (a literal pathspec's rule); any file when none. */
export function isUnder(file: string, paths: readonly string[]): boolean {
  if (paths.length === 0) return true;
  return paths.some((given) => file === given || file.startsWith(given.endsWith('/') ? given : `${given}/`));
}

/** Files that differ between two trees, optionally limited to some paths. */
export async function changesBetween(
  git: StoreGit,
  fromTree: string,
  toTree: string,
  paths: readonly string[] = [],
): Promise<TreeChange[]> {
  const raw = paths.filter(hasRawBytes);
  if (raw.length === 0) return diffTreeRaw(git, fromTree, toTree, paths);
  // Those asked through a wider pathspec, narrowed; the others as git's pathspecs select them.
  const plain = paths.filter((file) => !hasRawBytes(file));
  const changes = (await diffTreeRaw(git, fromTree, toTree, coveringPathspecs(raw))).filter((change) =>
    isUnder(change.path, raw),
  );
  if (plain.length === 0) return changes;
  const seen = new Set(changes.map((change) => change.path));
  for (const change of await diffTreeRaw(git, fromTree, toTree, plain))
    if (!seen.has(change.path)) changes.push(change);
  return changes;
}

async function diffTreeRaw(
  git: StoreGit,
  fromTree: string,
  toTree: string,
  paths: readonly string[],
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

/**
 * The changes between each pair of trees, in order, from one `git diff-tree --stdin` (one process for
 * any number of pairs, where changesBetween starts one per pair). Pairs of the same tree are empty; a
 * pair given again is asked once (its arrays are shared: read them, do not change them).
 */
export async function changesBetweenPairs(
  git: StoreGit,
  pairs: ReadonlyArray<readonly [from: string, to: string]>,
): Promise<TreeChange[][]> {
  const byPair = new Map<string, TreeChange[]>();
  const asked: number[] = [];
  const result = pairs.map(([from, to], index) => {
    const key = `${from} ${to}`;
    let changes = byPair.get(key);
    if (!changes) {
      changes = [];
      byPair.set(key, changes);
      if (from !== to) asked.push(index);
    }
    return changes;
  });
  if (asked.length === 0) return result;
  const input = asked.map((index) => `${(pairs[index] as readonly [string, string]).join(' ')}\n`).join('');
  const { stdout } = await git(['diff-tree', '--stdin', '-r', '-z', '--no-renames', '--raw'], { input });
  // Each pair's output starts with its own line `<from> <to>\n` (even with -z); then its records,
  // `:<modes> <oids> <status>\0<path>\0`.
  let position = 0;
  let next = 0;
  let current: TreeChange[] | null = null;
  while (position < stdout.length) {
    if (stdout[position] === ':') {
      const statusEnd = stdout.indexOf('\0', position);
      const pathEnd = stdout.indexOf('\0', statusEnd + 1);
      if (statusEnd < 0 || pathEnd < 0 || current === null) break;
      const [beforeMode = '', afterMode = '', beforeOid = '', afterOid = '', status = ''] = stdout
        .slice(position + 1, statusEnd)
        .split(' ');
      if (status === 'A' || status === 'M' || status === 'D' || status === 'T')
        current.push({
          path: stdout.slice(statusEnd + 1, pathEnd),
          status,
          beforeMode,
          afterMode,
          beforeOid,
          afterOid,
        });
      position = pathEnd + 1;
      continue;
    }
    const lineEnd = stdout.indexOf('\n', position);
    const header = stdout.slice(position, lineEnd < 0 ? undefined : lineEnd);
    const index = asked[next++];
    const pair = index === undefined ? undefined : pairs[index];
    if (pair === undefined || header !== `${pair[0]} ${pair[1]}`)
      throw new CheckpointError(
        'GIT_FAILED',
        `git diff-tree --stdin answered '${header.slice(0, 100)}' for pair ${next}`,
      );
    current = result[index as number] as TreeChange[];
    position = lineEnd < 0 ? stdout.length : lineEnd + 1;
  }
  if (next !== asked.length)
    throw new CheckpointError(
      'GIT_FAILED',
      `git diff-tree --stdin answered ${next} of ${asked.length} pairs`,
    );
  return result;
}

const LINK_MODE = '120000';

/**
 * The sides of `changes` that are symbolic links to themselves, as `<oid> <path>` (see self-link.ts):
 * where a link stands on one side and a file on the other (git's typechange), or, with `everyLink`, every
 * link side. Their targets are read by one git process.
 */
export async function linksToThemselves(
  git: StoreGit,
  changes: readonly TreeChange[],
  /** Every link side, not only a change's that has a link on one side: states compared across many steps. */
  everyLink = false,
): Promise<Set<string>> {
  const candidates = everyLink
    ? changes.flatMap((change) =>
        [
          [change.beforeMode, change.beforeOid],
          [change.afterMode, change.afterOid],
        ]
          .filter(([mode]) => mode === LINK_MODE)
          .map(([, oid]) => ({ path: change.path, oid: oid as string })),
      )
    : changes.filter(isLinkTypeChange).map((change) => ({
        path: change.path,
        oid: change.afterMode === LINK_MODE ? change.afterOid : change.beforeOid,
      }));
  const found = new Set<string>();
  if (candidates.length === 0) return found;
  // One git for all of them: a tree whose files became links (git-annex, DVC, stow) has thousands, and
  // a git each took a snapshot past a hook's time budget (review of 2026-12-07).
  const oids = [...new Set(candidates.map((candidate) => candidate.oid))];
  const { bytes } = await git(['cat-file', '--batch'], { input: `${oids.join('\n')}\n` });
  const targets = new Map<string, string>();
  new CatFileBatchParser(({ header, content }) => {
    // A link's target, its bytes kept as the store's names keep them (see raw-path.ts).
    if (header[1] === 'blob' && header[0] !== undefined) targets.set(header[0], textFromBytes(content));
  }).push(bytes ?? Buffer.alloc(0));
  for (const { path, oid } of candidates) {
    const target = targets.get(oid);
    if (target !== undefined && isLinkToItself(path, target)) found.add(`${oid} ${path}`);
  }
  return found;
}

/** How each change counts, a link to itself on one side told apart (see self-link.ts). */
function countsOf(change: TreeChange, selfLinks: ReadonlySet<string>): keyof ChangeCounts {
  return countedAs(
    { mode: change.beforeMode, isLinkToItself: selfLinks.has(`${change.beforeOid} ${change.path}`) },
    { mode: change.afterMode, isLinkToItself: selfLinks.has(`${change.afterOid} ${change.path}`) },
  );
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
  const changes = await changesBetween(git, baseTree, tree);
  const selfLinks = await linksToThemselves(git, changes);
  for (const change of changes) {
    if (change.afterMode === '160000' || change.beforeMode === '160000') continue;
    counts[countsOf(change, selfLinks)]++;
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
    ...coveringPathspecs(paths),
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
  const selfLinks = await linksToThemselves(git, changes);
  return changes.map((change) => {
    const entry: DiffEntry = {
      path: change.path,
      status: change.status,
      ...(counts.get(change.path) ?? { added: null, deleted: null }),
      ...modeChangeOf(change),
    };
    // A link's target is no line of a file: only the file's side is counted.
    const counted = countsOf(change, selfLinks);
    if (change.status === 'T' && counted === 'deleted')
      return { ...entry, status: 'D', added: entry.added === null ? null : 0, linkToItself: 'new' };
    if (change.status === 'T' && counted === 'added')
      return { ...entry, status: 'A', deleted: entry.deleted === null ? null : 0, linkToItself: 'old' };
    return entry;
  });
}

/** A unified diff of one path between two trees. */
export async function unifiedDiff(
  git: StoreGit,
  fromTree: string,
  toTree: string,
  file: string,
): Promise<string> {
  const isRaw = hasRawBytes(file);
  const { bytes } = await git([
    // The headers name such a file as git quotes it by default, whatever the user's config says.
    ...(isRaw ? ['-c', 'core.quotePath=true'] : []),
    'diff-tree',
    '-p',
    '--no-renames',
    '--no-ext-diff',
    '--no-textconv',
    '--no-color',
    fromTree,
    toTree,
    '--',
    ...coveringPathspecs([file]),
  ]);
  // The patch is text (content, and names as git quotes them): bytes that are not UTF-8 are U+FFFD here.
  const stdout = bytes?.toString('utf8') ?? '';
  if (!isRaw) return stdout;
  // The covering pathspec may have brought other files' patches: only this file's.
  const header = `diff --git ${quotePathFully(`a/${file}`)} ${quotePathFully(`b/${file}`)}`;
  return stdout
    .split(/^(?=diff --git )/m)
    .filter((section) => section.split('\n', 1)[0] === header)
    .join('');
}

/** Whether a tree holds `file`, or a folder of that name with something in it. */
export async function treeHasPath(git: StoreGit, tree: string, file: string): Promise<boolean> {
  // The same pathspec rules as diffStat's, so both agree on what `file` names.
  const { stdout } = await git([
    'ls-tree',
    '-r',
    '--name-only',
    '-z',
    tree,
    '--',
    ...coveringPathspecs([file]),
  ]);
  if (!hasRawBytes(file)) return stdout !== '';
  return stdout.split('\0').some((listed) => listed !== '' && isUnder(listed, [file]));
}
