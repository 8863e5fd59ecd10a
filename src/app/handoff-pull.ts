import type { PulledFiles } from '../core/drift.js';
import { CheckpointError, isCheckpointError } from '../core/errors.js';
import { receiveHandoffCheckpoint } from '../core/handoff-checkpoint.js';
import type { PullOutcome } from '../core/handoff-text.js';
import { escapeControls } from '../core/quote.js';
import { Redactor } from '../core/redact.js';
import { type Checkpoint, parseCheckpoint, serializeCheckpoint } from '../core/schema.js';
import { changesNothing, type RestorePlan } from '../core/snapshot.js';
import { WORDS } from '../core/surface.js';
import { fetchIntoStore, handoffRef, listRemoteHandoffs } from '../git/handoff-remote.js';
import { copyCommitIntoProject } from '../git/objects.js';
import { runGit } from '../git/run.js';
import { writePulledFiles } from '../store/pulled-files.js';
import { defaultStoreBase, projectStoreDir } from '../store/store-location.js';
import type { AppDeps } from './deps.js';
import { detectDrift } from './drift.js';
import {
  type HandoffMeta,
  type LeftOut,
  leftOutEntry,
  objectDirs,
  openHandoff,
  projectTreeOf,
  readHandoffCommit,
} from './handoff-common.js';
import { handoffSeen } from './handoff-seen.js';
import { loadRedactionConfig } from './redaction.js';
import { restoreTreeLocked } from './rewind.js';
import type { RootContext } from './save.js';

export interface PullRequest {
  projectRoot?: string | undefined;
  remote?: string | undefined;
  name?: string | undefined;
  dryRun: boolean;
  /** When HEAD is not the base: check out the base (its branch when that points there), on a clean tree only. */
  checkout?: boolean;
}

export type { PullOutcome } from '../core/handoff-text.js';

/**
 * Fetches a handoff into the private store and (unless a dry run) makes the working tree equal to it,
 * and its checkpoint, after a safety snapshot that keeps the checkpoint it replaces. Nothing changes when
 * HEAD is not its base.
 */
export async function pullHandoff(
  deps: AppDeps,
  request: PullRequest,
  context: RootContext = {},
): Promise<PullOutcome> {
  const { store, root, head, folder, name, remote, isNameGiven } = await openHandoff(deps, request, context);
  const ref = handoffRef(name);
  const found = await listRemoteHandoffs(root.root, remote, name);
  const commit = found.get(ref);
  if (!commit) {
    // Where the handoffs are, and how to name one (a trial: on branch feature, only "no handoff 'feature'").
    const words = WORDS[deps.surface];
    throw new CheckpointError(
      'INVALID_INPUT',
      isNameGiven
        ? `${words.handoffNameField}: no handoff '${name}' on remote '${escapeControls(remote)}': ${words.listHandoffs}`
        : `${words.handoffNameField}: no handoff '${name}' on remote '${escapeControls(remote)}' (without ${words.handoffNameField}, the handoff of ${folder === '' ? 'the current branch' : 'this folder and the current branch'}): ${words.listHandoffs}; to pull another, ${words.handoffName}`,
    );
  }
  const objects = await objectDirs(store);
  // This project's redaction settings as they are before the pull: the same redactor a save here uses.
  // Security: not the handoff's own, whose exemptions would let its secrets through.
  const redaction = await loadRedactionConfig(deps.fs, deps.env, root.root);
  // One hold of the store's lock from the fetch to the restore: a gc in between would prune the fetched
  // objects, which no ref of the store names.
  const { meta, checkpoint, summary, apply, done, checkedOutFrom } = await store.withLock(async () => {
    await store.init();
    const before = await store.objectBytes();
    await fetchIntoStore(root.root, remote, new Map([[ref, commit]]), objects, {
      content: true,
      gone: 'refuse',
      surface: deps.surface,
    });
    // What the fetch brought is in the store's size from now on, like what a snapshot adds (issue 26).
    store.noteAdded(Math.max(0, (await store.objectBytes()) - before));
    const read = await readHandoffCommit(store, commit);
    const meta = read.meta;
    // A handoff applies in the folder of the repository it was pushed from.
    const tree = await projectTreeOf(store, { ...read, name, remote }, folder);
    // What came from the remote is checked like any file we load, before anything is applied; then
    // redacted and marked as the other person's words (issue 26, audit items 5 and 7).
    const redactor = new Redactor(redaction.config);
    const author = redactor.text(meta.author);
    const checkpoint =
      meta.checkpoint === null
        ? null
        : receiveHandoffCheckpoint(
            parseHandoffCheckpoint(meta.checkpoint, { name, remote, commit }, redactor),
            { name, remote, author, pushedAt: meta.createdAt, commit },
            redactor,
          ).checkpoint;
    // The pull names the goal the checkpoint holds, which it writes: the message's copy (its first line)
    // is only what `handoff list` shows, and a client that skips the gate may make it say anything.
    const goal =
      checkpoint === null
        ? meta.goal === null
          ? null
          : redactor.text(meta.goal)
        : (checkpoint.goal.primary.split('\n')[0] ?? null);
    const isOnBase = head.head === meta.base;
    const isCheckingOut = request.checkout === true && !isOnBase;
    // The plan of a --checkout is refused as the checkout itself is: a trial's dry run printed a plan,
    // and the command it suggested, that the real run then refused.
    if (isCheckingOut) await requireCheckoutPossible(root.root, meta, objects.store);
    const baseMatches =
      isOnBase ||
      (isCheckingOut &&
        !request.dryRun &&
        (await checkOutBase(root.root, meta, () =>
          copyCommitIntoProject({ root: root.root, storeObjects: objects.store }, meta.base),
        )));
    // The safety snapshot below is taken after the checkout: its undo brings the files back, not HEAD.
    const checkedOutFrom = baseMatches && !isOnBase ? { branch: head.branch, head: head.head } : null;
    // What --checkout would check out, for the plan to say where HEAD ends up.
    const checkout = isOnBase ? null : { branch: await checkoutBranch(root.root, meta) };
    const summary = {
      ref,
      commit,
      base: meta.base,
      branch: meta.branch,
      author,
      goal,
      redacted: redactor.count,
      baseMatches,
      checkout,
      leftOut: meta.leftOut ?? [],
      folderUnknown: meta.root === undefined,
    };
    // The usual restore (plan, safety snapshot, journal), of the handoff's tree.
    const apply = !request.dryRun && baseMatches;
    // Its checkpoint is written with the tree; the one here is kept with the safety snapshot (see
    // restoreTreeLocked), so that the undo brings it back.
    const done = await restoreTreeLocked(
      deps,
      store,
      {
        id: `handoff ${name} (${commit.slice(0, 12)})`,
        tree,
        checkpoint: checkpoint === null ? undefined : serializeCheckpoint(checkpoint),
        // What the push left out is not the handoff's to delete here (a trial: a file too large to carry).
        skipped: skippedOf(meta.leftOut ?? []),
      },
      // A pull that changes nothing takes no safety snapshot and names no undo (as restore; newcomer trial).
      { paths: [], dryRun: !apply, unlessEmpty: true },
    );
    return { meta, checkpoint, summary, apply, done, checkedOutFrom };
  });
  // A plan (a dry run, a base that does not match) writes nothing: it says what a pull would do.
  const checkpointState =
    checkpoint === null
      ? 'none'
      : done.plan.checkpoint === undefined
        ? 'unchanged'
        : apply
          ? 'written'
          : 'would be written';
  if (!apply)
    return {
      ...summary,
      applied: false,
      changed: done.plan,
      undo: null,
      checkedOutFrom: null,
      checkpoint: checkpointState,
    };
  // A pull that changed nothing (the same tree, the same checkpoint) keeps the record of the one before.
  if (checkpoint !== null && !changesNothing(done.plan)) {
    await recordPulledFiles(deps, root.root, checkpoint, { ...meta, author: summary.author }, done.plan, {
      // Unchanged: the same text, so the same checkpoint this machine had.
      ownCheckpoint: done.plan.checkpoint === undefined || done.plan.checkpoint.current?.id === checkpoint.id,
    });
  }
  await (await handoffSeen(store, root.root, remote, ref)).remember(commit);
  return {
    ...summary,
    applied: true,
    changed: done.plan,
    undo: done.undoSnapshotId,
    checkedOutFrom,
    checkpoint: checkpointState,
  };
}

/**
 * The checkpoint a handoff carries, checked like any file we load. One it cannot use is refused as the
 * handoff's (the parse error alone reads as if the file here were damaged), before anything is applied.
 */
function parseHandoffCheckpoint(
  text: string,
  handoff: { name: string; remote: string; commit: string },
  redactor: Redactor,
): Checkpoint {
  try {
    return parseCheckpoint(text);
  } catch (error) {
    if (!isCheckpointError(error)) throw error;
    // Security: the message quotes what the remote sent (a field's name): redacted, and shown inert.
    const why = escapeControls(redactor.text(error.message));
    const isNewer = error.code === 'UNSUPPORTED_VERSION';
    throw new CheckpointError(
      isNewer ? 'UNSUPPORTED_VERSION' : 'CORRUPT',
      `handoff '${handoff.name}' on remote '${escapeControls(handoff.remote)}' (commit ${handoff.commit.slice(0, 12)}) carries ${isNewer ? 'a checkpoint this version cannot read' : 'a damaged checkpoint'}: ${why}; nothing was changed, and the checkpoint here is untouched${isNewer ? '' : ' (push the handoff again from the other machine)'}`,
      { cause: error },
    );
  }
}

/**
 * Switches the project to the handoff's base commit: its branch when that branch points there, else a
 * detached HEAD. Only after requireCheckoutPossible. A base the repository lacks comes from the handoff
 * itself (`copyBase`: its objects only, never a fetch or a ref).
 */
async function checkOutBase(root: string, meta: HandoffMeta, copyBase: () => Promise<void>): Promise<true> {
  // The handoff carries its base's objects (the push sent them): no fetch needed (issue 26).
  if (!(await hasCommit(root, meta.base))) await copyBase();
  const branch = await checkoutBranch(root, meta);
  const target = branch === null ? ['--detach', meta.base] : [branch];
  await runGit(['checkout', '--quiet', ...target], { cwd: root, timeoutMs: 5 * 60_000 });
  return true;
}

/**
 * What a checkout needs, checked for its plan (a dry run) as for the run: a clean tree (untracked files
 * aside, as git's own checkout), and the base commit here or in the handoff (`storeObjects`).
 */
async function requireCheckoutPossible(root: string, meta: HandoffMeta, storeObjects: string): Promise<void> {
  const dirty = (
    await runGit(['status', '--porcelain', '--untracked-files=no'], { cwd: root })
  ).stdout.trim();
  // Only the CLI checks out (pull_handoff never does): its flag names the choice (newcomer trial).
  if (dirty)
    throw new CheckpointError(
      'INVALID_INPUT',
      '--checkout: the working tree has uncommitted changes; commit or stash them first (nothing was changed)',
    );
  if (!(await hasCommit(root, meta.base, storeObjects)))
    throw new CheckpointError(
      'INVALID_INPUT',
      `--checkout: commit ${meta.base} is not in this repository, nor in the handoff; run git fetch, then pull again (nothing was changed)`,
    );
  // git's checkout refuses to write over an untracked file (a trial: the plan said "Overwrite: new.ts",
  // the run then failed on it, naming no file): refused here, before anything is copied or moved.
  const inTheWay = await untrackedInTheWay(root, meta.base, storeObjects);
  if (inTheWay.length > 0) {
    const named = inTheWay.slice(0, 10).map((file) => escapeControls(file));
    if (inTheWay.length > 10) named.push(`and ${inTheWay.length - 10} more`);
    throw new CheckpointError(
      'INVALID_INPUT',
      `--checkout: the checkout of ${meta.base.slice(0, 12)} would write over ${inTheWay.length} untracked file(s) here, which git refuses: ${named.join(', ')}; move them out of the project (or delete them), then pull again (nothing was changed)`,
    );
  }
}

/**
 * The untracked files (ignored ones aside: git writes over those) at a path the base commit has and HEAD
 * does not, or inside one: what `git checkout <base>` refuses to write over. A review: an untracked
 * nested repository (listed as `vendor/`) was missed, names were compared exactly where the repository
 * ignores case, and a file under a submodule the base adds (git leaves it be) was counted.
 */
async function untrackedInTheWay(root: string, base: string, storeObjects: string): Promise<string[]> {
  // `:<old mode> <new mode> <old oid> <new oid> A`, then the path: gitlinks (160000) are submodules.
  const fields = (
    await runGit(['diff', '--raw', '--no-renames', '-z', '--diff-filter=A', 'HEAD', base, '--'], {
      cwd: root,
      exactNames: true,
      extraEnv: { GIT_ALTERNATE_OBJECT_DIRECTORIES: storeObjects },
    })
  ).stdout.split('\0');
  const added: string[] = [];
  const submodules: string[] = [];
  for (let at = 0; at + 1 < fields.length; at += 2) {
    const [meta, file] = [fields[at] as string, fields[at + 1] as string];
    if (!meta.startsWith(':') || file === '') continue;
    added.push(file);
    if (meta.split(' ')[1] === '160000') submodules.push(file);
  }
  if (added.length === 0) return [];
  const ignoresCase =
    (
      await runGit(['config', '--bool', 'core.ignorecase'], { cwd: root, okExitCodes: [0, 1] }).catch(() => ({
        stdout: '',
      }))
    ).stdout.trim() === 'true';
  const key = (file: string) => (ignoresCase ? file.toLowerCase() : file);
  const paths = new Set(added.map(key));
  // Folders of those paths: an untracked file there (where the base has a folder) is in the way too.
  const folders = new Set(added.flatMap(foldersOf).map(key));
  // A submodule the base adds is in the way of a file at its path, not of the files in its folder (git
  // leaves those be; a review).
  const inSubmodule = new Set(submodules.map(key));
  // The whole repository's, from its top (`:/`, `--full-name`): a checkout changes more than this folder.
  const { stdout } = await runGit(
    ['ls-files', '-z', '--others', '--exclude-standard', '--full-name', '--', ':/'],
    {
      cwd: root,
      exactNames: true,
    },
  );
  return stdout.split('\0').filter((listed) => {
    // A nested repository is listed as its folder, with a slash.
    const file = key(listed.endsWith('/') ? listed.slice(0, -1) : listed);
    if (file === '' || foldersOf(file).some((folder) => inSubmodule.has(folder))) return false;
    return paths.has(file) || folders.has(file) || foldersOf(file).some((folder) => paths.has(folder));
  });
}

/** The folders `file` is in, outermost first (`a/b/c` → `a`, `a/b`). */
function foldersOf(file: string): string[] {
  const names = file.split('/');
  return names.slice(0, -1).map((_, index) => names.slice(0, index + 1).join('/'));
}

/** Whether the project (with `storeObjects`, the store too) holds `commit`. */
async function hasCommit(root: string, commit: string, storeObjects?: string): Promise<boolean> {
  const { exitCode } = await runGit(['cat-file', '-e', `${commit}^{commit}`], {
    cwd: root,
    okExitCodes: [0, 1, 128],
    ...(storeObjects === undefined ? {} : { extraEnv: { GIT_ALTERNATE_OBJECT_DIRECTORIES: storeObjects } }),
  });
  return exitCode === 0;
}

/**
 * The branch `--checkout` switches to: the handoff's branch when that branch here points at its base,
 * else null (a detached HEAD): the other machine's branch name says nothing of this clone's.
 */
async function checkoutBranch(root: string, meta: HandoffMeta): Promise<string | null> {
  if (!meta.branch) return null;
  const tip = (
    await runGit(['rev-parse', '--verify', '-q', `refs/heads/${meta.branch}`], {
      cwd: root,
      okExitCodes: [0, 1],
    })
  ).stdout.trim();
  return tip === meta.base ? meta.branch : null;
}

/**
 * Right after the pull the tree is the handoff's: a file that drifts from the pulled checkpoint and that
 * the pull wrote or deleted was changed on the other machine after its save. Their content as written
 * goes to the store, so the brief can say so for as long as they keep it (issue 26). A file that drifts
 * but that the pull left alone was already so here: after a push-back, that is this machine's own edit.
 * Unless it is gone and the checkpoint is not one this machine had before (`ownCheckpoint`): a file the
 * other machine's checkpoint lists and its tree no longer has (one it made and deleted after its save)
 * was never here to change (a new-user trial: "changed here" for a file this machine never had). After
 * a push-back the checkpoint is this machine's own, and a file gone here too is its own deletion.
 */
async function recordPulledFiles(
  deps: AppDeps,
  root: string,
  checkpoint: Checkpoint,
  meta: Pick<HandoffMeta, 'author' | 'leftOut'>,
  plan: RestorePlan,
  { ownCheckpoint }: { ownCheckpoint: boolean },
): Promise<void> {
  const written = new Set([...plan.overwrite, ...plan.create, ...plan.delete]);
  const oids: Record<string, string | null> = {};
  const leftOut: NonNullable<PulledFiles['leftOut']> = {};
  await detectDrift(root, checkpoint, [], deps.env, undefined, {
    pulledFiles: (drift, oidNow) => {
      for (const file of drift.changedSince) {
        if (!oidNow.has(file)) continue;
        const oid = oidNow.get(file) ?? null;
        // A file the push left out never came: neither the other machine's change nor this one's (a
        // trial: "changed on the other machine" for a file too large to carry).
        const left = written.has(file) ? undefined : leftOutEntry(meta.leftOut ?? [], file);
        if (left) leftOut[file] = { oid, kind: left.kind };
        else if (written.has(file) || (!ownCheckpoint && oid === null)) oids[file] = oid;
      }
    },
  });
  writePulledFiles(deps.fs, projectStoreDir(defaultStoreBase(deps.env), root), {
    checkpointId: checkpoint.id,
    pulledAt: deps.now().toISOString(),
    author: meta.author,
    oids,
    ...(Object.keys(leftOut).length > 0 ? { leftOut } : {}),
  });
}

/** A handoff's left-out paths as a restore target's `skipped`: files, and folders (without their `/`). */
function skippedOf(leftOut: readonly LeftOut[]): { large: Array<{ path: string }>; nested: string[] } {
  return {
    large: leftOut.filter((entry) => !entry.path.endsWith('/')).map((entry) => ({ path: entry.path })),
    nested: leftOut.filter((entry) => entry.path.endsWith('/')).map((entry) => entry.path.slice(0, -1)),
  };
}
