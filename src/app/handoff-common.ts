import path from 'node:path';
import type { LeftOut, LeftOutKind } from '../core/drift.js';
import { CheckpointError, describeError } from '../core/errors.js';
import { NO_GIT_IDENTITY } from '../core/handoff-author.js';
import { escapeControls } from '../core/quote.js';
import { type SurfaceWords, WORDS } from '../core/surface.js';
import { clip } from '../core/text.js';
import { checkHandoffName, chooseRemote } from '../git/handoff-remote.js';
import { locateRepo, readHeadFast } from '../git/repo.js';
import { runGit } from '../git/run.js';
import type { SnapshotStore } from '../store/snapshot-store.js';
import type { StoreGit } from '../store/store-git.js';
import type { AppDeps } from './deps.js';
import { openStore } from './rewind.js';
import type { RootContext } from './save.js';

export type { LeftOut } from '../core/drift.js';

/** What push, pull, list and drop share: the commit's metadata, the store's objects. */

/** What a handoff commit carries besides its tree, as JSON after the first line of its message. */
export interface HandoffMeta {
  /** 2 when `root` is a folder: the tree is the whole repository's (versions before it refuse those). */
  handoff: 1 | 2;
  /**
   * The project's folder in its repository ('' at its top; no trailing `/`). From it on, the commit's
   * tree is HEAD's with that folder replaced by the project's snapshot. Absent in handoffs pushed before
   * it, whose tree is the project's own.
   */
  root?: string;
  name: string;
  branch: string | null;
  base: string;
  createdAt: string;
  author: string;
  goal: string | null;
  /** The `.claude-checkpoint` file as it was, or null when there was none. */
  checkpoint: string | null;
  /**
   * What the push left out of the tree although it was there (a file over the size cap, a nested
   * repository or a folder git could not read; folders end with `/`), so that the receiver neither
   * deletes its own copy nor takes the file for one the other machine deleted. Absent in handoffs pushed
   * before it.
   */
  leftOut?: LeftOut[];
}

const LEFT_OUT_KINDS: ReadonlySet<string> = new Set<LeftOutKind>(['large', 'nested', 'unreadable']);

/** What a push's snapshot left out, as the handoff's metadata carries it. */
export function leftOutOf(skipped: {
  large: ReadonlyArray<{ path: string }>;
  nested: readonly string[];
  unreadable?: ReadonlyArray<{ path: string }> | undefined;
}): LeftOut[] {
  return [
    ...skipped.large.map((entry) => ({ path: entry.path, kind: 'large' as const })),
    ...skipped.nested.map((dir) => ({ path: `${dir}/`, kind: 'nested' as const })),
    ...(skipped.unreadable ?? []).map((entry) => ({
      path: entry.path.endsWith('/') ? entry.path : `${entry.path}/`,
      kind: 'unreadable' as const,
    })),
  ];
}

/** The left-out entry that covers `file` (the path itself, or a folder it is in), or undefined. */
export function leftOutEntry(leftOut: readonly LeftOut[], file: string): LeftOut | undefined {
  return leftOut.find(
    (entry) => entry.path === file || (entry.path.endsWith('/') && file.startsWith(entry.path)),
  );
}

/**
 * Where both ends of a handoff start: the project's store, its HEAD (a handoff needs a commit to build
 * on), the project's folder in its repository ('' at its top), the handoff's name and the remote to use.
 * The name defaults to the branch; in a folder of the repository (a monorepo's package), to the folder
 * then the branch (`packages/app/main`): a review had two packages' handoffs both named `main`, the
 * second refused as another machine's and `--force` replacing the other package's.
 */
export async function openHandoff(
  deps: AppDeps,
  request: { projectRoot?: string | undefined; remote?: string | undefined; name?: string | undefined },
  context: RootContext,
) {
  const { store, root } = await openStore(deps, request.projectRoot, context);
  const head = await requireHead(root.root);
  const folder = (await locateRepo(root.root))?.prefix.replace(/\/$/, '') ?? '';
  const words = WORDS[deps.surface];
  const name =
    request.name === undefined
      ? checkBranchName(head.branch ?? nameRequired(words), folder, words)
      : checkHandoffName(request.name, words.handoffNameField);
  const remote = await chooseRemote(root.root, request.remote, head.branch, deps.surface);
  return { store, root, head, folder, name, remote, isNameGiven: request.name !== undefined };
}

/** HEAD of the project; every handoff command needs one, and says so in the same words. */
export async function requireHead(projectRoot: string) {
  const head = await readHeadFast(projectRoot);
  if (!head)
    throw new CheckpointError('INVALID_INPUT', 'a handoff needs a git repository with at least one commit');
  return head;
}

/** The default name (the folder, then the branch), when it can be one; else what to do instead. */
function checkBranchName(branch: string, folder: string, words: SurfaceWords): string {
  try {
    // A folder's names as a handoff name can hold them (a review: `apps/my app` and `apps/.tools` failed
    // the default): what git refuses in a ref becomes `-`, a leading dot goes.
    const named = folder
      .split('/')
      .map(
        (part) =>
          part
            .replace(/[^A-Za-z0-9._-]/g, '-')
            .replace(/^\.+/, '')
            .replace(/\.lock$/, '-lock') || '-',
      )
      .join('/');
    return checkHandoffName(folder === '' ? branch : `${named}/${branch}`);
  } catch (error) {
    const what =
      folder === ''
        ? `the current branch '${escapeControls(branch)}'`
        : `this folder and the current branch ('${escapeControls(folder)}/${escapeControls(branch)}')`;
    throw new CheckpointError(
      'INVALID_INPUT',
      `${words.handoffNameField}: ${what} cannot name a handoff (${describeError(error)}): ${words.handoffName}`,
      { cause: error },
    );
  }
}

// The field in the reader's own words: `--name` at the CLI, `name` over MCP (newcomer trial).
function nameRequired(words: SurfaceWords): never {
  throw new CheckpointError(
    'INVALID_INPUT',
    `${words.handoffNameField}: HEAD is detached, so there is no branch to name the handoff after: ${words.handoffName}`,
  );
}

export async function readHandoffCommit(
  store: SnapshotStore,
  commit: string,
): Promise<{ meta: HandoffMeta; tree: string }> {
  const { stdout } = await store.git(['cat-file', 'commit', commit]);
  const tree = /^tree ([0-9a-f]{40,64})$/m.exec(stdout)?.[1];
  const body = stdout.slice(stdout.indexOf('\n\n') + 2);
  const json = body.slice(body.indexOf('\n\n') + 2);
  let meta: HandoffMeta;
  try {
    meta = JSON.parse(json) as HandoffMeta;
  } catch {
    meta = {} as HandoffMeta;
  }
  if (!tree || (meta.handoff !== 1 && meta.handoff !== 2) || !isHandoffMeta(meta))
    throw new CheckpointError('CORRUPT', `commit ${commit} is not a handoff this tool wrote`);
  // Security: from the remote: only well-formed entries of a known kind are kept.
  meta.leftOut = Array.isArray(meta.leftOut)
    ? meta.leftOut.filter(
        (entry): entry is LeftOut =>
          typeof entry === 'object' &&
          entry !== null &&
          typeof entry.path === 'string' &&
          entry.path !== '' &&
          LEFT_OUT_KINDS.has(entry.kind),
      )
    : [];
  // Handoffs pushed before issue 26 wrote "unknown" where git had no identity.
  if (meta.author === 'unknown' || meta.author.trim() === '') meta.author = NO_GIT_IDENTITY;
  const problem = unsafeReference(meta);
  if (problem !== null)
    throw new CheckpointError(
      'CORRUPT',
      `handoff commit ${commit} is refused: ${problem}, and it would reach git's command line; nothing was run or changed`,
    );
  return { meta, tree };
}

/** The metadata's fields have the types a handoff's have (see unsafeReference for base and branch). */
function isHandoffMeta(meta: HandoffMeta): boolean {
  const text = (value: unknown) => typeof value === 'string';
  return (
    text(meta.base) &&
    (meta.branch === null || text(meta.branch)) &&
    text(meta.author) &&
    text(meta.createdAt) &&
    (meta.goal === null || text(meta.goal)) &&
    (meta.checkpoint === null || text(meta.checkpoint)) &&
    (meta.root === undefined
      ? meta.handoff === 1
      : text(meta.root) && (meta.root !== '') === (meta.handoff === 2))
  );
}

/**
 * Security: the metadata comes from the remote. The base and the branch reach git's command line (a
 * checkout), so the base must be an object id and the branch a plain branch name (never one that git
 * would read as an option). Says what is wrong, or null.
 */
function unsafeReference(meta: HandoffMeta): string | null {
  const shown = (value: string) => `'${escapeControls(clip(value, 81))}'`;
  if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(meta.base))
    return `its base ${shown(meta.base)} is not a commit id`;
  const branch = meta.branch;
  if (
    branch !== null &&
    (branch === '' ||
      branch.startsWith('-') ||
      [...branch].some((char) => char <= ' ' || char === '\u007f') ||
      /[~^:?*[\\]/.test(branch) ||
      branch.includes('..') ||
      branch.includes('@{') ||
      branch.endsWith('.lock') ||
      branch.endsWith('/') ||
      branch.startsWith('/'))
  )
    return `its branch ${shown(branch)} is not a plain branch name`;
  const root = meta.root ?? '';
  if (
    root !== '' &&
    (root
      .split('/')
      .some((name) => name === '' || name === '.' || name === '..' || name.toLowerCase() === '.git') ||
      [...root].some((char) => char < ' ' || char === '\u007f'))
  )
    return `its folder ${shown(root)} is not a plain path in a repository`;
  return null;
}

/**
 * The tree a pull makes the project equal to. A handoff that names its folder (`root`) holds the whole
 * repository, the project in that folder: pulled in the same folder only, where it was pushed from (a
 * package's handoff pulled in another package, or at the repository's top, would write one over the
 * other). One pushed before it holds the project's own tree.
 */
export async function projectTreeOf(
  store: SnapshotStore,
  handoff: { tree: string; meta: HandoffMeta; name: string; remote: string },
  folderHere: string,
): Promise<string> {
  const { tree, meta } = handoff;
  if (meta.root === undefined) return tree;
  if (meta.root !== folderHere) {
    const where = (folder: string) =>
      folder === '' ? "the repository's top folder" : `the folder '${escapeControls(folder)}'`;
    throw new CheckpointError(
      'INVALID_INPUT',
      `handoff '${handoff.name}' on remote '${escapeControls(handoff.remote)}' was pushed from ${where(meta.root)} of the repository, and this project is ${where(folderHere)}: run the pull in ${where(meta.root)} (nothing was changed)`,
    );
  }
  if (meta.root === '') return tree;
  const { stdout } = await store.git(['cat-file', '--batch-check=%(objectname) %(objecttype)'], {
    input: `${tree}:${meta.root}\n`,
  });
  const [oid, type] = stdout.trim().split(' ');
  // A project with no file left: git stores no empty folder.
  if (type === 'missing' || type === undefined)
    return (await store.git(['mktree', '-z'], { input: '' })).stdout.trim();
  if (type !== 'tree' || oid === undefined)
    throw new CheckpointError(
      'CORRUPT',
      `handoff '${handoff.name}' is refused: its folder '${escapeControls(meta.root)}' is not a folder in its tree; nothing was changed`,
    );
  return oid;
}

export async function objectDirs(store: SnapshotStore): Promise<{ store: string; project: string }> {
  const common = (
    await runGit(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: store.root })
  ).stdout.trim();
  return { store: path.join(store.gitDir, 'objects'), project: path.join(common, 'objects') };
}

/** Git in the store that also reads the project's objects (its HEAD and history), writing none there. */
export function storeGitWithProject(store: SnapshotStore, objects: { project: string }): StoreGit {
  return (args, options = {}) =>
    store.git(args, {
      ...options,
      extraEnv: { GIT_ALTERNATE_OBJECT_DIRECTORIES: objects.project, ...options.extraEnv },
    });
}

/**
 * The first line of the goal a checkpoint's text holds, or null: what a handoff's message carries as
 * its `goal`, and what `handoff list` shows (from the checkpoint the message carries, so that it says
 * what a pull would write, whatever the message's own copy says).
 */
export function goalOf(checkpoint: string | null): string | null {
  if (!checkpoint) return null;
  try {
    const primary = (JSON.parse(checkpoint) as { goal?: { primary?: unknown } }).goal?.primary;
    return typeof primary === 'string' ? (primary.split('\n')[0] ?? null) : null;
  } catch {
    return null;
  }
}
