import { CheckpointError, isCheckpointError } from '../core/errors.js';
import { NO_GIT_IDENTITY } from '../core/handoff-author.js';
import { handoffMessage } from '../core/handoff-message.js';
import { CHECKPOINT_FILE } from '../core/paths.js';
import { escapeControls } from '../core/quote.js';
import { fetchIntoStore, handoffRef, pushFromStore } from '../git/handoff-remote.js';
import { runGit } from '../git/run.js';
import { CheckpointStore } from '../store/checkpoint-store.js';
import { changesBetween } from '../store/snapshot-diff.js';
import type { SnapshotStore } from '../store/snapshot-store.js';
import { graftTree } from '../store/tree-graft.js';
import type { TreeChange } from '../store/worktree-writer.js';
import type { AppDeps } from './deps.js';
import {
  goalOf,
  type HandoffMeta,
  leftOutOf,
  objectDirs,
  openHandoff,
  readHandoffCommit,
  storeGitWithProject,
} from './handoff-common.js';
import { type GateFinding, scanHandoffPush } from './handoff-gate.js';
import { handoffSeen } from './handoff-seen.js';
import { takeSnapshot } from './rewind.js';
import type { RootContext } from './save.js';

export interface HandoffFiles {
  added: string[];
  modified: string[];
  deleted: string[];
}

export interface PushRequest {
  projectRoot?: string | undefined;
  remote?: string | undefined;
  name?: string | undefined;
  allowSecrets: boolean;
  force: boolean;
  /** Run the project's pre-push hook, as `git push` does (false: `--no-verify`, a person's choice). */
  verify: boolean;
}

export type PushOutcome =
  | { pushed: false; secrets: GateFinding[] }
  | {
      pushed: true;
      /** Who pushed, as git names them here, or NO_GIT_IDENTITY. */
      author: string;
      remote: string;
      ref: string;
      commit: string;
      base: string;
      branch: string | null;
      files: HandoffFiles;
      /** The checkpoint it carries: the file's (`sent`), its backup's when the file is unusable, or none. */
      checkpoint: 'sent' | 'backup' | 'none';
      /** Why the backup was sent (the file's own problem), for `backup`. */
      checkpointNotice?: string;
      skipped: {
        large: Array<{ path: string; bytes: number }>;
        nested: string[];
        invalidNames?: string[];
        unreadable?: Array<{ path: string; reason: string }>;
      };
    };

/**
 * Pushes the working tree and the checkpoint as one commit (parent: the project's HEAD) to a handoff ref
 * on the remote. Scanned for secrets first; refused when the remote's ref moved since this machine last
 * saw it, unless forced.
 */
export async function pushHandoff(
  deps: AppDeps,
  request: PushRequest,
  context: RootContext = {},
): Promise<PushOutcome> {
  const { store, root, head, folder, name, remote } = await openHandoff(deps, request, context);
  const objects = await objectDirs(store);
  // Before anything is snapshotted or written, so that a push refused here leaves nothing behind.
  const loaded = await readCheckpointToSend(deps, root.root);
  const checkpoint = loaded?.text ?? null;

  const snapshot = (
    await takeSnapshot(deps, { projectRoot: root.root, trigger: 'handoff', label: `handoff ${name}` })
  ).snapshot;
  const objectsBefore = await store.objectBytes();
  // Security: ignored files a snapshot includes (snapshotIncludeIgnored: .env and the like) never leave the machine.
  const tree = await store.withLock(() => store.withoutIncludedIgnored(snapshot.tree));
  const git = storeGitWithProject(store, objects);
  // A project in a folder of its repository (a monorepo's package) hands off HEAD's tree with that folder
  // replaced, so that the commit shows only its changes; the counts are the project's (a trial: a package's
  // tree on the whole repository's HEAD listed every file outside it as deleted).
  const handoffTree =
    folder === '' ? tree : await store.withLock(() => graftTree(git, store.gitDir, head.head, folder, tree));
  const files = filesOf(await changesBetween(git, head.head, handoffTree), folder);

  const author = (
    await runGit(['var', 'GIT_AUTHOR_IDENT'], {
      cwd: root.root,
      okExitCodes: [0, 128],
      extraEnv: authorEnvironment(deps.env),
    })
  ).stdout
    .replace(/\s+\d+\s+[+-]\d{4}\s*$/, '')
    .trim();
  const meta: HandoffMeta = {
    // 2: the tree is the repository's, the project in `root`; versions before it refuse such a handoff
    // rather than write the whole repository into the project.
    handoff: folder === '' ? 1 : 2,
    root: folder,
    name,
    branch: head.branch,
    base: head.head,
    createdAt: deps.now().toISOString(),
    author: author || NO_GIT_IDENTITY,
    goal: goalOf(checkpoint),
    checkpoint,
    leftOut: leftOutOf(snapshot.skipped),
  };
  const commit = (
    await git(['commit-tree', '--no-gpg-sign', handoffTree, '-p', head.head, '-F', '-'], {
      input: handoffMessage(name, meta),
    })
  ).stdout.trim();
  // The handoff's commit (and trees without the included ignored files) count in the store's size.
  const written = Math.max(0, (await store.objectBytes()) - objectsBefore);
  if (written > 0) await store.withLock(async () => store.noteAdded(written));

  // Security: the scan reads the very commit that is pushed, and all it brings along (see handoff-gate).
  if (!request.allowSecrets) {
    const findings = await scanHandoffPush(deps, {
      root: root.root,
      remote,
      commit,
      storeObjects: objects.store,
      checkpoint,
      ...(loaded?.mainProblem ? { checkpointFile: `${CHECKPOINT_FILE}.prev` } : {}),
    });
    if (findings.length > 0) return { pushed: false, secrets: findings };
  }

  const ref = handoffRef(name);
  const seen = await handoffSeen(store, root.root, remote, ref);
  await pushFromStore(
    root.root,
    remote,
    commit,
    ref,
    request.force
      ? 'force'
      : {
          expected: await seen.last(),
          seenElsewhere: await seen.everywhere(),
          // Only to word the refusal: one it cannot read (a fetch that fails) is refused as before.
          pushedFrom: (other) =>
            otherFolderOf({ store, root: root.root, remote, ref, objects }, other, folder).catch(() => null),
        },
    objects.store,
    deps.surface,
    { verify: request.verify },
  );
  await seen.remember(commit);
  return {
    pushed: true,
    author: meta.author,
    remote,
    ref,
    commit,
    base: head.head,
    branch: head.branch,
    files,
    checkpoint: loaded === null ? 'none' : loaded.mainProblem === null ? 'sent' : 'backup',
    ...(loaded?.mainProblem ? { checkpointNotice: loaded.mainProblem } : {}),
    // Path and size, as docs/handoff.md says: a file's stamp (mtime, inode) is this machine's business.
    skipped: {
      ...snapshot.skipped,
      large: snapshot.skipped.large.map(({ path, bytes }) => ({ path, bytes })),
    },
  };
}

/**
 * The checkpoint's text as a load would use it (the file, else its valid backup), held under the lock,
 * which merges commands waiting in the journal first: the handoff carries them too. A damaged file with
 * no usable backup is refused: sent as it is, it would make the handoff impossible to pull.
 */
async function readCheckpointToSend(
  deps: AppDeps,
  root: string,
): Promise<{ text: string; mainProblem: string | null } | null> {
  const checkpoints = new CheckpointStore(root, deps.fs);
  try {
    return await checkpoints.withLock(() => checkpoints.readLoadedText());
  } catch (error) {
    if (!isCheckpointError(error)) throw error;
    // Every refusal to read it (damaged, a link in its place, a newer version's) says nothing went (review).
    throw new CheckpointError(
      error.code,
      error.code === 'CORRUPT'
        ? `nothing was pushed: the checkpoint would not be usable where it is pulled: ${error.message}`
        : `nothing was pushed: ${error.message}`,
      { cause: error },
    );
  }
}

/**
 * The variables git reads for the author of the user's own commits, from the user's environment: our git
 * calls drop every GIT_* variable, so without them a user named only there was told "(no git identity)".
 */
function authorEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const names = ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'EMAIL'] as const;
  return Object.fromEntries(names.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])));
}

/** The changes, with paths from the project's folder (`folder` in the repository, '' at its top). */
function filesOf(changes: readonly TreeChange[], folder: string): HandoffFiles {
  const files: HandoffFiles = { added: [], modified: [], deleted: [] };
  const within = folder === '' ? '' : `${folder}/`;
  for (const change of changes) {
    // Outside the folder: a file HEAD has where the folder now is (the project's folder was that file),
    // gone with the graft; not one of the project's files (a review: `"deleted": [""]`).
    if (!change.path.startsWith(within)) continue;
    const file = change.path.slice(within.length);
    if (change.status === 'A') files.added.push(file);
    else if (change.status === 'D') files.deleted.push(file);
    else files.modified.push(file);
  }
  return files;
}

/**
 * Where the handoff `commit` on the remote was pushed from, in words, when that is another folder of the
 * repository than this project's (`folder`), else null: read from its commit, fetched into the store.
 */
async function otherFolderOf(
  at: {
    store: SnapshotStore;
    root: string;
    remote: string;
    ref: string;
    objects: { store: string; project: string };
  },
  commit: string,
  folder: string,
): Promise<string | null> {
  const { store } = at;
  const before = await store.objectBytes();
  const { refs } = await fetchIntoStore(at.root, at.remote, new Map([[at.ref, commit]]), at.objects, {
    content: false,
    gone: 'skip',
  });
  const fetched = Math.max(0, (await store.objectBytes()) - before);
  if (fetched > 0) await store.withLock(async () => store.noteAdded(fetched));
  const found = refs.get(at.ref);
  if (found === undefined) return null;
  const theirs = await readHandoffCommit(store, found).then(
    ({ meta }) => meta,
    () => null,
  );
  if (theirs?.root === undefined || theirs.root === folder) return null;
  const where = (name: string) =>
    name === '' ? "the repository's top folder" : `the folder '${escapeControls(name)}'`;
  return `from ${where(theirs.root)} of the repository, and this project is ${where(folder)}`;
}
