import { randomBytes } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { CheckpointError } from '../core/errors.js';
import { CHECKPOINT_FILE } from '../core/paths.js';
import { formatSnapshotId, type RestorePlan } from '../core/snapshot.js';
import {
  checkHandoffName,
  chooseRemote,
  deleteRemoteRef,
  fetchIntoStore,
  HANDOFF_REFS,
  handoffRef,
  listRemoteHandoffs,
  pushFromStore,
} from '../git/handoff-remote.js';
import { readHeadFast } from '../git/repo.js';
import { runGit } from '../git/run.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import type { SnapshotStore } from '../store/snapshot-store.js';
import type { AppDeps } from './deps.js';
import { openStore, restoreSnapshot, takeSnapshot } from './rewind.js';
import type { RootContext } from './save.js';
import { type ScanReport, scanTexts } from './scan.js';

/** What a handoff commit carries besides its tree, as JSON after the first line of its message. */
interface HandoffMeta {
  handoff: 1;
  name: string;
  branch: string | null;
  base: string;
  createdAt: string;
  author: string;
  goal: string | null;
  /** The `.claude-checkpoint` file as it was, or null when there was none. */
  checkpoint: string | null;
}

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
}

export type PushOutcome =
  | { pushed: false; secrets: ScanReport['findings'] }
  | {
      pushed: true;
      remote: string;
      ref: string;
      commit: string;
      base: string;
      branch: string | null;
      files: HandoffFiles;
      skipped: { large: Array<{ path: string; bytes: number }>; nested: string[] };
    };

/** Where this machine remembers each handoff ref as it last pushed or pulled it. */
const SEEN_FILE = 'handoffs-seen.json';

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
  const { store, root } = await openStore(deps, request.projectRoot, context);
  const head = await readHeadFast(root.root);
  if (!head)
    throw new CheckpointError('INVALID_INPUT', 'a handoff needs a git repository with at least one commit');
  const name = checkHandoffName(request.name ?? head.branch ?? nameRequired());
  const remote = await chooseRemote(root.root, request.remote, head.branch);
  const objects = await objectDirs(store);

  const snapshot = (
    await takeSnapshot(deps, { projectRoot: root.root, trigger: 'handoff', label: `handoff ${name}` })
  ).snapshot;
  const baseTree = (
    await store.git(['rev-parse', `${head.head}^{tree}`], withProject(objects))
  ).stdout.trim();
  const changes = await store.git(
    ['diff-tree', '-r', '-z', '--no-renames', '--name-status', baseTree, snapshot.tree],
    withProject(objects),
  );
  const files = filesOf(changes.stdout);
  const checkpoint = await fsp.readFile(path.join(root.root, CHECKPOINT_FILE), 'utf8').catch(() => null);

  if (!request.allowSecrets) {
    const inputs = [
      ...(checkpoint === null ? [] : [{ name: CHECKPOINT_FILE, text: checkpoint }]),
      ...(await changedTexts(root.root, [...files.added, ...files.modified])),
    ];
    const report = await scanTexts(deps, inputs, root.root);
    if (report.findings.length > 0) return { pushed: false, secrets: report.findings };
  }

  const author = (await runGit(['var', 'GIT_AUTHOR_IDENT'], { cwd: root.root, okExitCodes: [0, 128] })).stdout
    .replace(/\s+\d+\s+[+-]\d{4}\s*$/, '')
    .trim();
  const meta: HandoffMeta = {
    handoff: 1,
    name,
    branch: head.branch,
    base: head.head,
    createdAt: deps.now().toISOString(),
    author: author || 'unknown',
    goal: goalOf(checkpoint),
    checkpoint,
  };
  const commit = (
    await store.git(['commit-tree', '--no-gpg-sign', snapshot.tree, '-p', head.head, '-F', '-'], {
      input: `claude-checkpoint handoff ${name}\n\n${JSON.stringify(meta)}\n`,
      extraEnv: { GIT_ALTERNATE_OBJECT_DIRECTORIES: objects.project },
    })
  ).stdout.trim();

  const ref = handoffRef(name);
  const seen = await readSeen(store);
  const key = `${remote}\n${ref}`;
  await pushFromStore(
    root.root,
    remote,
    commit,
    ref,
    request.force ? 'force' : { expected: seen[key] ?? null },
    objects.store,
  );
  seen[key] = commit;
  await writeSeen(store, seen);
  return {
    pushed: true,
    remote,
    ref,
    commit,
    base: head.head,
    branch: head.branch,
    files,
    skipped: snapshot.skipped,
  };
}

export interface PullRequest {
  projectRoot?: string | undefined;
  remote?: string | undefined;
  name?: string | undefined;
  dryRun: boolean;
  /** When HEAD is not the base: check out the base (its branch when that points there), on a clean tree only. */
  checkout?: boolean;
}

export interface PullOutcome {
  ref: string;
  commit: string;
  base: string;
  branch: string | null;
  author: string;
  goal: string | null;
  /** Whether the project's HEAD is the handoff's base commit (nothing is applied otherwise). */
  baseMatches: boolean;
  applied: boolean;
  changed: RestorePlan;
  /** The snapshot taken before applying: restore it to undo the pull. */
  undo: string | null;
}

/**
 * Fetches a handoff into the private store and (unless a dry run) makes the working tree equal to it,
 * after a safety snapshot, then writes its checkpoint. Nothing changes when HEAD is not its base.
 */
export async function pullHandoff(
  deps: AppDeps,
  request: PullRequest,
  context: RootContext = {},
): Promise<PullOutcome> {
  const { store, root } = await openStore(deps, request.projectRoot, context);
  const head = await readHeadFast(root.root);
  if (!head)
    throw new CheckpointError('INVALID_INPUT', 'a handoff needs a git repository with at least one commit');
  const name = checkHandoffName(request.name ?? head.branch ?? nameRequired());
  const remote = await chooseRemote(root.root, request.remote, head.branch);
  const ref = handoffRef(name);
  const found = await listRemoteHandoffs(root.root, remote, name);
  const commit = found.get(ref);
  if (!commit) throw new CheckpointError('INVALID_INPUT', `name: no handoff '${name}' on remote '${remote}'`);
  const objects = await objectDirs(store);
  await store.withLock(() => store.init());
  await fetchIntoStore(root.root, remote, [ref], objects);
  const { meta, tree } = await readHandoffCommit(store, commit);

  // Recorded as a snapshot of the store, so that the restore (plan, safety snapshot, journal) is the usual one.
  const snapshot = await store.withLock(async () => {
    const record = await store.record(
      {
        id: formatSnapshotId(deps.now(), randomBytes(3).toString('hex')),
        createdAt: deps.now().toISOString(),
        trigger: 'handoff',
        label: `handoff ${name} from ${meta.author}`,
        git: { branch: meta.branch, head: meta.base },
        changes: { added: 0, modified: 0, deleted: 0 },
        skipped: { large: [], nested: [] },
      },
      tree,
    );
    // record() moves the store's HEAD to the new commit; the next capture compares with the latest again.
    const latest = await store.latest();
    if (latest) await store.git(['update-ref', 'refs/heads/master', latest.commit]);
    return record;
  });

  const baseMatches =
    head.head === meta.base ||
    (request.checkout === true && !request.dryRun && (await checkOutBase(root.root, meta)));
  const summary = {
    ref,
    commit,
    base: meta.base,
    branch: meta.branch,
    author: meta.author,
    goal: meta.goal,
    baseMatches,
  };
  const plan = await restoreSnapshot(deps, { projectRoot: root.root, snapshotId: snapshot.id, dryRun: true });
  if (request.dryRun || !baseMatches) return { ...summary, applied: false, changed: plan.plan, undo: null };

  const done = await restoreSnapshot(deps, {
    projectRoot: root.root,
    snapshotId: snapshot.id,
    dryRun: false,
  });
  if (meta.checkpoint !== null) {
    await writeFileAtomic(fsp, path.join(root.root, CHECKPOINT_FILE), meta.checkpoint, {
      durable: true,
    });
  }
  const seen = await readSeen(store);
  seen[`${remote}\n${ref}`] = commit;
  await writeSeen(store, seen);
  return { ...summary, applied: true, changed: done.plan, undo: done.undoSnapshotId };
}

export interface HandoffListing {
  name: string;
  ref: string;
  commit: string;
  branch: string | null;
  base: string;
  createdAt: string;
  author: string;
  goal: string | null;
}

/** The handoffs on the remote, newest first, read from their commits (fetched into the store). */
export async function listHandoffs(
  deps: AppDeps,
  request: { projectRoot?: string | undefined; remote?: string | undefined },
): Promise<{ remote: string; handoffs: HandoffListing[] }> {
  const { store, root } = await openStore(deps, request.projectRoot, {});
  const head = await readHeadFast(root.root);
  const remote = await chooseRemote(root.root, request.remote, head?.branch ?? null);
  const refs = await listRemoteHandoffs(root.root, remote);
  await store.withLock(() => store.init());
  await fetchIntoStore(root.root, remote, [...refs.keys()], await objectDirs(store));
  const handoffs: HandoffListing[] = [];
  for (const [ref, commit] of refs) {
    const { meta } = await readHandoffCommit(store, commit).catch(() => ({ meta: null }));
    if (!meta) continue;
    handoffs.push({
      name: ref.slice(HANDOFF_REFS.length),
      ref,
      commit,
      branch: meta.branch,
      base: meta.base,
      createdAt: meta.createdAt,
      author: meta.author,
      goal: meta.goal,
    });
  }
  handoffs.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  return { remote, handoffs };
}

/** Deletes one handoff from the remote. */
export async function dropHandoff(
  deps: AppDeps,
  request: { projectRoot?: string | undefined; remote?: string | undefined; name: string },
): Promise<{ remote: string; ref: string; dropped: boolean }> {
  const { store, root } = await openStore(deps, request.projectRoot, {});
  const name = checkHandoffName(request.name);
  const head = await readHeadFast(root.root);
  const remote = await chooseRemote(root.root, request.remote, head?.branch ?? null);
  const ref = handoffRef(name);
  if (!(await listRemoteHandoffs(root.root, remote, name)).has(ref)) return { remote, ref, dropped: false };
  await deleteRemoteRef(root.root, remote, ref);
  const seen = await readSeen(store);
  delete seen[`${remote}\n${ref}`];
  await writeSeen(store, seen);
  return { remote, ref, dropped: true };
}

/**
 * Switches the project to the handoff's base commit: its branch when that branch points there, else a
 * detached HEAD. Only on a clean tree, and only with what the repository already has (never a fetch).
 */
async function checkOutBase(root: string, meta: HandoffMeta): Promise<true> {
  const dirty = (
    await runGit(['status', '--porcelain', '--untracked-files=no'], { cwd: root })
  ).stdout.trim();
  if (dirty)
    throw new CheckpointError(
      'INVALID_INPUT',
      'checkout: the working tree has uncommitted changes; commit or stash them first (nothing was changed)',
    );
  const known = await runGit(['cat-file', '-e', `${meta.base}^{commit}`], {
    cwd: root,
    okExitCodes: [0, 1, 128],
  });
  if (known.exitCode !== 0)
    throw new CheckpointError(
      'INVALID_INPUT',
      `checkout: commit ${meta.base} is not in this repository yet; run git fetch, then pull again (nothing was changed)`,
    );
  const tip = meta.branch
    ? (
        await runGit(['rev-parse', '--verify', '-q', `refs/heads/${meta.branch}`], {
          cwd: root,
          okExitCodes: [0, 1],
        })
      ).stdout.trim()
    : '';
  const target = meta.branch && tip === meta.base ? [meta.branch] : ['--detach', meta.base];
  await runGit(['checkout', '--quiet', ...target], { cwd: root, timeoutMs: 5 * 60_000 });
  return true;
}

function nameRequired(): never {
  throw new CheckpointError(
    'INVALID_INPUT',
    'name: HEAD is detached, so there is no branch to name the handoff after: pass --name',
  );
}

async function readHandoffCommit(
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
  if (!tree || meta.handoff !== 1 || typeof meta.base !== 'string')
    throw new CheckpointError('CORRUPT', `commit ${commit} is not a handoff this tool wrote`);
  return { meta, tree };
}

async function objectDirs(store: SnapshotStore): Promise<{ store: string; project: string }> {
  const common = (
    await runGit(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: store.root })
  ).stdout.trim();
  return { store: path.join(store.gitDir, 'objects'), project: path.join(common, 'objects') };
}

function withProject(objects: { project: string }) {
  return { extraEnv: { GIT_ALTERNATE_OBJECT_DIRECTORIES: objects.project } };
}

function filesOf(nameStatus: string): HandoffFiles {
  const files: HandoffFiles = { added: [], modified: [], deleted: [] };
  const parts = nameStatus.split('\0');
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const status = parts[i] ?? '';
    const file = parts[i + 1] ?? '';
    if (status === 'A') files.added.push(file);
    else if (status === 'D') files.deleted.push(file);
    else files.modified.push(file);
  }
  return files;
}

/** Text files among the changed paths, for the secret scan (symlinks and unreadable files left out). */
async function changedTexts(
  root: string,
  files: readonly string[],
): Promise<Array<{ name: string; text: string }>> {
  const texts: Array<{ name: string; text: string }> = [];
  for (const file of files) {
    const full = path.join(root, file);
    const stats = await fsp.lstat(full).catch(() => null);
    if (!stats?.isFile()) continue;
    texts.push({ name: file, text: await fsp.readFile(full, 'utf8') });
  }
  return texts;
}

function goalOf(checkpoint: string | null): string | null {
  if (!checkpoint) return null;
  try {
    const primary = (JSON.parse(checkpoint) as { goal?: { primary?: unknown } }).goal?.primary;
    return typeof primary === 'string' ? (primary.split('\n')[0] ?? null) : null;
  } catch {
    return null;
  }
}

async function readSeen(store: SnapshotStore): Promise<Record<string, string>> {
  try {
    return JSON.parse(await fsp.readFile(path.join(store.storeDir, SEEN_FILE), 'utf8')) as Record<
      string,
      string
    >;
  } catch {
    return {};
  }
}

async function writeSeen(store: SnapshotStore, seen: Record<string, string>): Promise<void> {
  await writeFileAtomic(fsp, path.join(store.storeDir, SEEN_FILE), `${JSON.stringify(seen)}\n`, {
    durable: false,
  });
}
