import { lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { CommitChange, HistoryComparison } from '../core/drift.js';
import { isCheckpointError } from '../core/errors.js';
import { isOwnFile, pathWithin } from '../core/paths.js';
import { quotePath } from '../core/quote.js';
import { hasRawBytes, lossyText, textFromBytes } from '../core/raw-path.js';
import type { ObjectFormat } from './oid.js';
import { GIT_SCAN_TIMEOUT_MS, GitNotFoundError, isGitTimeout, runGit } from './run.js';
import { parseStatusV2, STATUS_ARGS, type StatusEntry } from './status.js';

/** Where the project sits in its repository. */
export interface RepoLocation {
  /** The project's path inside the repository, with a trailing `/`, or '' at the top level. */
  prefix: string;
  objectFormat: ObjectFormat;
}

/** The facts a save records and a load compares, paths relative to the project root. */
export interface RepoState extends RepoLocation {
  head: string | null;
  branch: string | null;
  entries: StatusEntry[];
  /** Our own files (the checkpoint's) that status listed, untracked or changed; left out of `entries`. */
  listedOwnFiles: string[];
  /**
   * Paths that are not valid UTF-8, as git shows them (`"caf\351.txt"`), left out of `entries`: a
   * checkpoint is text, so drift cannot follow them (snapshots do hold them: see raw-path.ts).
   */
  invalidNames?: string[];
}

/** Finds the repository that contains `root`, or `null` when there is none (or git is not installed). */
export async function locateRepo(root: string): Promise<RepoLocation | null> {
  return (await locateRepoFromFiles(root)) ?? locateRepoWithGit(root);
}

/**
 * What `rev-parse --show-prefix --show-object-format` answers, read from the files for the common case:
 * the nearest `.git` folder above `root`, with no setting that moves the work tree. `undefined` for
 * anything else (a `.git` file, `core.worktree`, a path inside `.git`), which git itself then answers.
 */
async function locateRepoFromFiles(root: string): Promise<RepoLocation | undefined> {
  for (let dir = root; ; dir = path.dirname(dir)) {
    let config: string | null | undefined;
    try {
      config = readFileSync(path.join(dir, '.git', 'config'), 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      config = code === 'ENOENT' || code === 'ENOTDIR' ? null : undefined;
    }
    if (config === undefined) return undefined;
    if (config !== null) {
      const prefix = (pathWithin(dir, root) ?? path.relative(dir, root)).split(path.sep).join('/');
      if (/(^|\/)\.git(\/|$)/i.test(prefix) || /^\s*worktree\s*=/im.test(config)) return undefined;
      if (/^\s*bare\s*=\s*true/im.test(config)) return undefined;
      const sha256 = /^\s*objectformat\s*=\s*sha256/im.test(config);
      return { prefix: prefix === '' ? '' : `${prefix}/`, objectFormat: sha256 ? 'sha256' : 'sha1' };
    }
    // A `.git` file (worktree, submodule) or none here: git knows best, or look further up.
    if (readTextOrNull(path.join(dir, '.git')) !== null) return undefined;
    if (path.dirname(dir) === dir) return undefined;
  }
}

async function locateRepoWithGit(root: string): Promise<RepoLocation | null> {
  try {
    const { stdout } = await runGit(
      ['rev-parse', '--is-inside-work-tree', '--show-prefix', '--show-object-format'],
      {
        cwd: root,
      },
    );
    const [inside, prefix = '', format = 'sha1'] = stdout.split('\n');
    if (inside !== 'true') return null;
    return { prefix, objectFormat: format === 'sha256' ? 'sha256' : 'sha1' };
  } catch (error) {
    // A worktree's or submodule's `.git` file with no git to read it is still a repository, which git
    // cannot read: the callers say so (gitCannotRead) rather than take it for a plain folder.
    if (error instanceof GitNotFoundError) return nearestGitEntry(root);
    // "not a git repository", or the root is inside a .git folder: no repository for us to use.
    if (isCheckpointError(error, 'GIT_FAILED') && /exit 128/.test(error.message)) return null;
    throw error;
  }
}

/** Where the nearest `.git` (a folder or a file) above `root` puts the project, read without git. */
function nearestGitEntry(root: string): RepoLocation | null {
  for (let dir = root; ; dir = path.dirname(dir)) {
    const prefix = (pathWithin(dir, root) ?? path.relative(dir, root)).split(path.sep).join('/');
    if (/(^|\/)\.git(\/|$)/i.test(prefix)) return null;
    try {
      lstatSync(path.join(dir, '.git'));
      return { prefix: prefix === '' ? '' : `${prefix}/`, objectFormat: 'sha1' };
    } catch {
      // none here
    }
    if (path.dirname(dir) === dir) return null;
  }
}

/**
 * One `git status` for branch, HEAD and every uncommitted or untracked file under the project root.
 * The checkpoint's own files are left out: they are ours, not the user's changes; so are the snapshot
 * store's folder and the user's configuration folder when they lie inside the project (`ourFolders`, see
 * store/store-within.ts).
 */
export async function readRepoState(
  root: string,
  location: RepoLocation,
  timeoutMs = GIT_SCAN_TIMEOUT_MS,
  ourFolders: readonly string[] = [],
): Promise<RepoState> {
  return toRepoState(await runGit(STATUS_ARGS, { cwd: root, timeoutMs }), location, ourFolders);
}

/** Where git cannot tell the repository's state: not installed, or it refused (a broken `.git`, unsafe ownership). */
export interface RepoUnreadable {
  /** Why, for people: "git is not installed or not on PATH", or git's own reason. */
  unreadable: string;
}

/**
 * The repository's state, or why git cannot give it (see gitCannotRead): a repository git cannot read is
 * then treated as no repository, and the caller says why (issue 26: git missing from PATH, a bad config line).
 */
export async function readRepoStateOrReason(
  root: string,
  location: RepoLocation,
  timeoutMs = GIT_SCAN_TIMEOUT_MS,
  ourFolders: readonly string[] = [],
): Promise<RepoState | RepoUnreadable> {
  try {
    return await readRepoState(root, location, timeoutMs, ourFolders);
  } catch (error) {
    const reason = gitCannotRead(error);
    if (reason !== null) return { unreadable: reason };
    throw error;
  }
}

/** Whether a reading is git's answer, not the reason there is none. */
export function isReadable(repo: RepoState | RepoUnreadable | null): repo is RepoState {
  return repo !== null && !('unreadable' in repo);
}

/**
 * Why git cannot work in this repository, for people, or `null` for any other failure (a timeout): git is
 * not installed, or it refused with exit 128 (a broken `.git/config`, unsafe ownership), with git's reason.
 */
export function gitCannotRead(error: unknown): string | null {
  // Its message says which: not installed, or not executable.
  if (error instanceof GitNotFoundError) return error.message;
  if (isCheckpointError(error, 'GIT_FAILED') && /\(exit 128\)/.test(error.message)) {
    const reason = error.message.slice(error.message.indexOf('(exit 128)') + '(exit 128)'.length);
    return `git could not read the repository: ${reason.replace(/^:\s*/, '').trim() || 'exit 128'}`;
  }
  return null;
}

function toRepoState(
  status: { stdout: string; bytes?: Buffer },
  location: RepoLocation,
  ourFolders: readonly string[],
): RepoState {
  // Decoded losslessly to tell names that are not valid UTF-8 apart (see raw-path.ts).
  const parsed = parseStatusV2(status.bytes ? textFromBytes(status.bytes) : status.stdout);
  const invalidNames: string[] = [];
  const entries: StatusEntry[] = [];
  const listedOwnFiles: string[] = [];
  for (const entry of parsed.entries) {
    const relative = stripPrefix(entry.path, location.prefix);
    if (relative === null) continue;
    if (ourFolders.some((folder) => relative === folder || relative.startsWith(`${folder}/`))) continue;
    if (hasRawBytes(relative)) {
      // A checkpoint holds text: such a name is followed by no save or drift, only named (see RepoState).
      // Its lossy form names no file: kept as an entry, drift hashed it and flagged it (issue 26).
      const shown = quotePath(entry.path);
      if (!invalidNames.includes(shown)) invalidNames.push(shown);
      continue;
    }
    if (isOwnFile(relative)) listedOwnFiles.push(relative);
    else entries.push({ ...entry, path: relative });
  }
  return {
    ...location,
    head: parsed.head,
    // A branch is text, not a name: decoded as everywhere else (readHeadFast, older checkpoints).
    branch: parsed.branch === null ? null : lossyText(parsed.branch),
    entries,
    listedOwnFiles,
    ...(invalidNames.length > 0 ? { invalidNames } : {}),
  };
}

/** How the saved HEAD relates to the current HEAD: commits since, and whether history was rewritten. */
export async function compareHistory(
  root: string,
  savedHead: string,
  currentHead: string,
): Promise<HistoryComparison> {
  if (savedHead === currentHead) return { kind: 'known', commitsSince: 0, rewritten: false };
  try {
    const { stdout } = await runGit(
      ['rev-list', '--left-right', '--count', `${savedHead}...${currentHead}`, '--'],
      { cwd: root, timeoutMs: GIT_SCAN_TIMEOUT_MS },
    );
    const [onlySaved = '0', onlyCurrent = '0'] = stdout.trim().split(/\s+/);
    return { kind: 'known', commitsSince: Number(onlyCurrent), rewritten: Number(onlySaved) > 0 };
  } catch (error) {
    if (isCheckpointError(error, 'GIT_FAILED') && !isGitTimeout(error)) return { kind: 'missing' };
    throw error;
  }
}

/**
 * Files under the project root that differ between two commits, from one tree-to-tree diff. Names that
 * are not valid UTF-8 are only listed in `invalidNames`, as git shows them (see RepoState).
 */
export async function diffCommits(
  root: string,
  location: RepoLocation,
  from: string,
  to: string,
): Promise<{ changes: Map<string, CommitChange>; invalidNames: string[] }> {
  // Decoded losslessly: a name decoded with U+FFFD names no file, and drift flagged it (issue 26).
  const { stdout } = await runGit(
    [
      'diff',
      '--raw',
      '-z',
      '--no-renames',
      '--no-abbrev',
      '--no-ext-diff',
      '--no-textconv',
      from,
      to,
      '--',
      '.',
    ],
    { cwd: root, timeoutMs: GIT_SCAN_TIMEOUT_MS, exactNames: true },
  );
  const changes = new Map<string, CommitChange>();
  const invalidNames: string[] = [];
  const parts = stdout.split('\0');
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const meta = parts[i] ?? '';
    const file = parts[i + 1] ?? '';
    // ":100644 100644 <before> <after> M"
    const [, , before = '', after = ''] = meta.split(' ');
    const relative = stripPrefix(file, location.prefix);
    if (relative === null || isOwnFile(relative)) continue;
    if (hasRawBytes(relative)) {
      invalidNames.push(quotePath(file));
      continue;
    }
    changes.set(relative, {
      before: /^0+$/.test(before) ? null : before,
      after: /^0+$/.test(after) ? null : after,
    });
  }
  return { changes, invalidNames };
}

/** Whether git ignores the checkpoint file in this project (`git check-ignore` exits 1 when it does not). */
export async function isIgnoredByGit(root: string, relativePath: string): Promise<boolean> {
  const { exitCode } = await runGit(['check-ignore', '-q', '--', relativePath], {
    cwd: root,
    okExitCodes: [0, 1],
  });
  return exitCode === 0;
}

function stripPrefix(repoPath: string, prefix: string): string | null {
  if (prefix === '') return repoPath;
  return repoPath.startsWith(prefix) ? repoPath.slice(prefix.length) : null;
}

/** HEAD and branch in one cheap call (no work-tree scan); `null` outside a repository or before the first commit. */
export async function readHead(root: string): Promise<{ head: string; branch: string | null } | null> {
  try {
    const { stdout } = await runGit(['rev-parse', 'HEAD', '--symbolic-full-name', 'HEAD'], {
      cwd: root,
    });
    const [head = '', ref = ''] = stdout.trim().split('\n');
    if (!/^[0-9a-f]{40,64}$/.test(head)) return null;
    return { head, branch: ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null };
  } catch (error) {
    if (error instanceof GitNotFoundError || isCheckpointError(error, 'GIT_FAILED')) return null;
    throw error;
  }
}

/**
 * Blob oids as git itself would store these files: `git hash-object` applies the path's filters (EOL
 * conversion, LFS and other clean filters), which a plain hash of the bytes does not.
 */
export async function hashWithFilters(root: string, paths: readonly string[]): Promise<Map<string, string>> {
  const oids = new Map<string, string>();
  if (paths.length === 0) return oids;
  const { stdout } = await runGit(['hash-object', '--stdin-paths'], {
    cwd: root,
    timeoutMs: GIT_SCAN_TIMEOUT_MS,
    input: `${paths.join('\n')}\n`,
  });
  const lines = stdout.trim().split('\n');
  paths.forEach((file, index) => {
    const oid = lines[index];
    if (oid) oids.set(file, oid);
  });
  return oids;
}

/**
 * HEAD and branch read from the files of a plain `.git` folder (no process), for the per-prompt snapshot;
 * anything unusual (a worktree's `.git` file, a ref we cannot find) falls back to asking git.
 */
export async function readHeadFast(root: string): Promise<{ head: string; branch: string | null } | null> {
  const gitDir = path.join(root, '.git');
  try {
    const head = readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim();
    if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(head)) return { head, branch: null };
    const match = /^ref: (refs\/heads\/.+)$/.exec(head);
    if (match?.[1]) {
      const ref = match[1];
      const loose = readTextOrNull(path.join(gitDir, ...ref.split('/')));
      const packed = loose === null ? (readTextOrNull(path.join(gitDir, 'packed-refs')) ?? '') : '';
      const oid =
        loose?.trim() ??
        packed
          .split('\n')
          .find((line) => line.endsWith(` ${ref}`))
          ?.split(' ')[0];
      if (oid && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(oid))
        return { head: oid, branch: ref.slice('refs/heads/'.length) };
      return null; // a branch with no commit yet
    }
  } catch {
    // not a plain .git folder: let git answer
  }
  return readHead(root);
}

/** A small file of git's, read in place (a few syscalls, cheaper than a thread-pool round trip); `null` when unreadable. */
function readTextOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
