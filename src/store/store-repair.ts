import { isCheckpointError } from '../core/errors.js';
import type { StoreGit } from './store-git.js';

/**
 * Until its first gc copies them in, a store reads the project's objects through `alternates` (see
 * store-setup.ts), and the user may delete them meanwhile: a reset and a prune, `git filter-repo` after a
 * leaked secret. What git says when an object it needs is not there.
 */
const MISSING_OBJECT =
  /bad tree object|bad object|unable to read|invalid object|missing (?:blob|tree|commit)|not a valid object|could not read|does not point to a valid object/i;

/** Whether a git failure is an object that is not there (see MISSING_OBJECT). */
export function isMissingObjectError(error: unknown): boolean {
  return isCheckpointError(error, 'GIT_FAILED') && MISSING_OBJECT.test(error.message);
}

/**
 * The objects that `revisions` (rev-list arguments: refs, `--all`, `--indexed-objects`) reach and the
 * store cannot read; empty when all are there. A tip that is itself gone counts as missing (see
 * missingTips).
 */
export async function missingObjects(git: StoreGit, revisions: readonly string[]): Promise<string[]> {
  const { stdout, exitCode } = await git(['rev-list', '--objects', '--missing=print', ...revisions], {
    okExitCodes: [0, 128],
  });
  if (exitCode !== 0) return missingTips(git, revisions);
  const missing: string[] = [];
  for (const line of stdout.split('\n')) if (line.startsWith('?')) missing.push(line.slice(1).trim());
  return missing;
}

/**
 * The walk stops (exit 128) when a tip is itself gone, e.g. the store's master still at a commit of the
 * project that the user pruned before any snapshot was taken: which of the tips (each ref for `--all`)
 * the store cannot read. Never empty, so that the caller repairs: when no tip is gone, the walk failed
 * for another reason, and all of `revisions` count as unreadable.
 */
async function missingTips(git: StoreGit, revisions: readonly string[]): Promise<string[]> {
  const tips = revisions.filter((revision) => !revision.startsWith('-'));
  if (revisions.includes('--all')) {
    // %(refname) alone: asking for the object a ref names fails on the very ref that is gone.
    const { stdout } = await git(['for-each-ref', '--format=%(refname)']);
    tips.push('HEAD', ...stdout.split('\n').filter(Boolean));
  }
  const { stdout } = await git(['cat-file', '--batch-check=%(objectname)', '--buffer'], {
    input: `${tips.join('\n')}\n`,
  });
  const gone = stdout
    .split('\n')
    .filter((line) => line.endsWith(' missing'))
    .map((line) => line.slice(0, -' missing'.length));
  return gone.length > 0 ? gone : [...revisions];
}

/**
 * Makes the private index and HEAD usable again after objects they borrowed were deleted. Index entries
 * whose content is gone leave the index, so the next scan finds those files again and reads them into
 * the store (a file that is gone from disk too is simply no longer there); the trees are written again
 * from what is left; and HEAD, when what it names cannot be read whole, moves to a commit of that tree,
 * so that `git status` compares with something that exists. Snapshots are left as they are: each one
 * whose content was deleted says so when restored (see SnapshotStore.checkRestorable), and gc removes
 * them. Call it holding the lock.
 */
export async function repairIndexAndHead(git: StoreGit): Promise<void> {
  await dropLostEntries(git);
  // Trees the index's cache names but the store cannot read are written again, into the store.
  const tree = (await git(['write-tree'])).stdout.trim();
  if ((await missingObjects(git, ['HEAD'])).length === 0) return;
  const commit = (
    await git([
      'commit-tree',
      tree,
      '-m',
      'claude-checkpoint: HEAD rebuilt after borrowed objects were deleted',
    ])
  ).stdout.trim();
  await git(['update-ref', 'refs/heads/master', commit]);
}

/** Takes out of the private index the entries whose content the store cannot read, and names them. */
export async function dropLostEntries(git: StoreGit): Promise<string[]> {
  const listing = (await git(['ls-files', '--stage', '-z'])).stdout.split('\0').filter(Boolean);
  const entries = listing.flatMap((line) => {
    const tab = line.indexOf('\t');
    const [mode, oid] = line.slice(0, tab).split(' ');
    // A submodule's commit is not ours to hold.
    return mode === '160000' || !oid ? [] : [{ oid, path: line.slice(tab + 1) }];
  });
  if (entries.length > 0) {
    const { stdout } = await git(['cat-file', '--batch-check=%(objectname)', '--buffer'], {
      input: `${[...new Set(entries.map((entry) => entry.oid))].join('\n')}\n`,
    });
    const gone = new Set(
      stdout
        .split('\n')
        .filter((line) => line.endsWith(' missing'))
        .map((line) => line.slice(0, -' missing'.length)),
    );
    const lost = entries.filter((entry) => gone.has(entry.oid)).map((entry) => entry.path);
    if (lost.length > 0)
      await git(['update-index', '-z', '--force-remove', '--stdin'], { input: `${lost.join('\0')}\0` });
    return lost;
  }
  return [];
}
