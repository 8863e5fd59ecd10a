import path from 'node:path';
import {
  attributeToHandoff,
  type CommitChange,
  changedOutsideRecorded,
  computeDrift,
  type Drift,
} from '../core/drift.js';
import { offeredPathRedaction } from '../core/path-redaction.js';
import type { Checkpoint } from '../core/schema.js';
import { mayFilterOnCheckin } from '../git/filters.js';
import { type RememberedOid, WorktreeHasher } from '../git/oid.js';
import {
  compareHistory,
  diffCommits,
  hashWithFilters,
  isReadable,
  locateRepo,
  type RepoLocation,
  type RepoState,
  type RepoUnreadable,
  readRepoStateOrReason,
} from '../git/repo.js';
import { gitEnvironment, isGitTimeout } from '../git/run.js';
import { readBaseline } from '../store/baseline-store.js';
import { readOidMemory } from '../store/oid-memory.js';
import { readPulledFiles } from '../store/pulled-files.js';
import { defaultStoreBase, projectOurFolders, projectStoreDir } from '../store/store-location.js';

/**
 * Drift since the save, with as few git processes as the question allows (two when HEAD has not moved).
 * `known` passes a repository state (and remembered oids) the caller has already read, so a save does
 * not read them twice.
 */
export async function detectDrift(
  root: string,
  checkpoint: Checkpoint,
  warnings: string[],
  env: NodeJS.ProcessEnv,
  known?: {
    location: RepoLocation | null;
    /** Read already, or being read (a load starts git's scan before it has read the checkpoint). */
    repo: RepoState | RepoUnreadable | null | Promise<RepoState | RepoUnreadable | null>;
    memory?: ReadonlyMap<string, RememberedOid>;
  },
  options: {
    /** Receives the changed files' current content oids (what `handoff pull` records). */
    pulledFiles?: (drift: Drift, oidNow: ReadonlyMap<string, string | null>) => void;
    /** Told why drift was not checked, where the checkpoint has git facts but git cannot answer now. */
    onUnchecked?: (reason: string) => void;
  } = {},
): Promise<Drift | null> {
  if (!checkpoint.git) return null;
  const saved = await withUnlistedFiles(root, checkpoint, warnings, env);
  const location = known ? known.location : await locateRepo(root);
  const reading: Promise<RepoState | RepoUnreadable | null> = known
    ? Promise.resolve(known.repo)
    : location
      ? readRepoStateOrReason(root, location, undefined, projectOurFolders(root, env))
      : Promise.resolve(null);
  // While git scans the tree, hash the files the checkpoint recorded (synchronous I/O, on this core),
  // reading only those written since the last save hashed them.
  const hasher = location
    ? new WorktreeHasher(
        root,
        location.objectFormat,
        known?.memory ??
          (await readOidMemory(projectStoreDir(defaultStoreBase(env), root), location.objectFormat)),
      )
    : null;
  const recorded = new Set(saved.modifiedFiles.map((file) => file.path));
  const recordedOids = hasher ? await hasher.oids(recorded) : new Map<string, string | null>();
  let reply: RepoState | RepoUnreadable | null;
  try {
    reply = await reading;
  } catch (error) {
    if (!isGitTimeout(error)) throw error;
    options.onUnchecked?.('git status did not finish in the time a hook may take (a large repository)');
    warnings.push(
      'Drift was not checked: git status did not finish in the time a hook may take (a large repository). Every file is as the checkpoint says only if nothing changed since; `claude-checkpoint brief` or load_session_checkpoint checks it without a limit.',
    );
    return null;
  }
  // Issue 26: git missing from PATH, or a `.git/config` git cannot parse, is not "no longer a repository".
  if (reply && !isReadable(reply)) {
    options.onUnchecked?.(reply.unreadable);
    warnings.push(`Drift was not checked: ${reply.unreadable}.`);
    return null;
  }
  const repo = reply;
  if (!location || !hasher || !repo?.head) {
    options.onUnchecked?.('the project is no longer a git repository with commits');
    warnings.push('The project is no longer a git repository with commits, so drift could not be checked.');
    return null;
  }
  const history = await compareHistory(root, checkpoint.git.head, repo.head);
  let commitChanges = new Map<string, CommitChange>();
  const unfollowed = new Set(repo.invalidNames);
  if (history.kind === 'known' && checkpoint.git.head !== repo.head) {
    const committed = await diffCommits(root, location, checkpoint.git.head, repo.head);
    commitChanges = committed.changes;
    for (const name of committed.invalidNames) unfollowed.add(name);
  }
  const dirty = repo.entries.map(({ path, headOid, isSubmodule }) => ({ path, headOid, isSubmodule }));
  const toHash = new Set(recorded);
  for (const entry of dirty) if (!entry.isSubmodule) toHash.add(entry.path);
  for (const file of recordedOids.keys()) toHash.delete(file);
  const currentOids = new Map([...recordedOids, ...(await hasher.oids(toHash))]);

  const outside = await withoutRedactedListed(
    changedOutsideRecorded({ recorded, dirty, commitChanges, currentOids }),
    recorded,
  );
  const drift = computeDrift({
    saved,
    currentBranch: repo.branch,
    history,
    currentOids,
    changedOutsideRecorded: await withoutFilterOnlyChanges(root, location, outside, dirty, commitChanges),
  });
  // The content of each changed file now: the working tree's, else (clean) the current HEAD's blob.
  const oidNow = new Map<string, string | null>();
  for (const file of drift.changedSince) {
    if (currentOids.has(file)) oidNow.set(file, currentOids.get(file) ?? null);
    else if (commitChanges.has(file)) oidNow.set(file, commitChanges.get(file)?.after ?? null);
  }
  if (options.pulledFiles) options.pulledFiles(drift, oidNow);
  const pulled = await readPulledFiles(projectStoreDir(defaultStoreBase(env), root), checkpoint.id);
  const attributed = pulled ? attributeToHandoff(drift, pulled, oidNow) : drift;
  // Their names reach us only mangled, so their content cannot be compared: say so, never "unchanged".
  return unfollowed.size > 0 ? { ...attributed, unfollowed: [...unfollowed] } : attributed;
}

/**
 * A dirty file's bytes are compared with a blob git stored after its clean filters (autocrlf, LFS):
 * where those differ only by the filter, git's own hash of the file settles it. Where no filter can
 * apply (mayFilterOnCheckin), git's hash is the one already compared, and no git process runs. Paths
 * with newline characters cannot go through --stdin-paths and are kept as changed.
 */
async function withoutFilterOnlyChanges(
  root: string,
  location: RepoLocation,
  outside: readonly string[],
  dirty: ReadonlyArray<{ path: string; headOid: string | null }>,
  commitChanges: ReadonlyMap<string, CommitChange>,
): Promise<string[]> {
  const before = new Map<string, string>();
  for (const entry of dirty) {
    const base = commitChanges.has(entry.path)
      ? (commitChanges.get(entry.path)?.before ?? null)
      : entry.headOid;
    if (base && outside.includes(entry.path) && !entry.path.includes('\n')) before.set(entry.path, base);
  }
  if (before.size === 0) return [...outside];
  const depth = location.prefix.split('/').filter(Boolean).length;
  const top = path.resolve(root, ...Array<string>(depth).fill('..'));
  const inRepo = [...before.keys()].map((file) => `${location.prefix}${file}`);
  if (!mayFilterOnCheckin(top, inRepo, gitEnvironment())) return [...outside];
  const filtered = await hashWithFilters(root, [...before.keys()]).catch(() => new Map<string, string>());
  return outside.filter((file) => !before.has(file) || filtered.get(file) !== before.get(file));
}

/**
 * A checkpoint cut by the 64 KB cap does not list every file that was dirty at save time; their oids are
 * in the private store. Drift treats them as recorded, or else says why some files may be flagged.
 */
async function withUnlistedFiles(
  root: string,
  checkpoint: Checkpoint,
  warnings: string[],
  env: NodeJS.ProcessEnv,
): Promise<Checkpoint> {
  if (!checkpoint.meta.truncated) return checkpoint;
  const baseline = await readBaseline(projectStoreDir(defaultStoreBase(env), root), checkpoint);
  if (!baseline) {
    warnings.push(
      'This checkpoint was cut to fit 64 KB and the hashes of the files it left out are not on this machine: files that were already uncommitted at save time may be flagged as changed.',
    );
    return checkpoint;
  }
  const listed = new Set(checkpoint.modifiedFiles.map((file) => file.path));
  const unlisted = Object.entries(baseline.oids)
    .filter(([file]) => !listed.has(file))
    .map(([file, oid]) => ({
      path: file,
      status: 'M' as const,
      source: 'git' as const,
      ...(oid ? { hash: oid } : {}),
    }));
  return { ...checkpoint, modifiedFiles: [...checkpoint.modifiedFiles, ...unlisted] };
}

/**
 * The changed paths but those the checkpoint lists redacted (a token in the name: see redactPath), which
 * it keeps no oid of and so does not follow: told by redacting each changed name as the save did, where
 * this process holds the detector (core/path-redaction.ts); without it, none is left out.
 */
async function withoutRedactedListed(
  changed: readonly string[],
  recorded: ReadonlySet<string>,
): Promise<readonly string[]> {
  if (![...recorded].some((file) => file.includes(REDACTED_MARK))) return changed;
  const redact = await offeredPathRedaction();
  return redact ? changed.filter((file) => !recorded.has(redact(file))) : changed;
}

/** REDACTED (core/redact.ts), here without loading the detector on every drift check. */
const REDACTED_MARK = '«redacted»';
