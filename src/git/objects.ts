import path from 'node:path';
import { CheckpointError } from '../core/errors.js';
import { runGit, runGitBuffer } from './run.js';

/**
 * Objects read straight from git's object database (never from the working tree): what a push of a
 * commit sends, and their contents. Run in the project with the private store's objects as an
 * alternate, so git sees exactly what `git push` there sees.
 */

export interface ObjectContext {
  /** The project's root: its refs, shallow boundary and objects. */
  root: string;
  /** The private store's object folder, where the handoff commit and its new objects are. */
  storeObjects: string;
}

export interface PushedObject {
  oid: string;
  /** The path git first reached it by (empty for commits and the root tree). */
  path: string;
}

export interface ObjectContent {
  oid: string;
  type: 'blob' | 'tree' | 'commit' | 'tag';
  content: Buffer;
}

export interface TreeEntry {
  mode: string;
  /** The name's bytes, as git stores them (not necessarily UTF-8). */
  name: Buffer;
  oid: string;
}

const OBJECT_LINE = /^([0-9a-f]{40}(?:[0-9a-f]{24})?)(?: |$)/;
const LONG_TIMEOUT_MS = 10 * 60_000;
/** Object contents read per `cat-file` call, so that a large push is never held in memory at once. */
const BATCH_BYTES = 64 * 1024 * 1024;

const environment = (context: ObjectContext) => ({
  GIT_ALTERNATE_OBJECT_DIRECTORIES: context.storeObjects,
});

/**
 * Copies into the project's own object database what `commit` needs and the project lacks, from the
 * store (read as an alternate): objects only, one pack, and no ref, index or config touched. What
 * `handoff pull --checkout` needs when the handoff's base never reached this clone.
 */
export async function copyCommitIntoProject(context: ObjectContext, commit: string): Promise<void> {
  const { stdout } = await runGit(
    ['for-each-ref', '--format=%(objectname)', 'refs/heads/', 'refs/remotes/'],
    {
      cwd: context.root,
    },
  );
  const have = [...new Set(stdout.split('\n').filter(Boolean))];
  const revisions = `${commit}\n${have.map((oid) => `^${oid}\n`).join('')}`;
  const pack = await runGitBuffer(['pack-objects', '--revs', '--stdout', '-q'], {
    cwd: context.root,
    input: revisions,
    extraEnv: environment(context),
    timeoutMs: LONG_TIMEOUT_MS,
  });
  // Without the alternate: the pack is written into the project's objects, where the checkout reads it.
  await runGit(['index-pack', '--stdin'], {
    cwd: context.root,
    input: pack.stdout,
    timeoutMs: LONG_TIMEOUT_MS,
  });
}

/**
 * Those of `oids` that the project (or the store) holds: what `rev-list` can take as `^<oid>`, and what
 * `git push` itself counts as the remote's (it skips only advertised objects it has).
 */
export async function presentObjects(context: ObjectContext, oids: readonly string[]): Promise<string[]> {
  return [...(await objectSizes(context, [...new Set(oids)])).keys()];
}

/**
 * Every object reachable from `commit` and from none of `exclude`: what `git push` sends when the
 * remote already has `exclude` (commits, then trees and blobs, each once, with the first path it has).
 */
export async function objectsToPush(
  context: ObjectContext,
  commit: string,
  exclude: readonly string[],
): Promise<PushedObject[]> {
  // Through standard input: no command-line limit on the number of tips, and each line is a revision.
  const input = [commit, ...exclude.map((oid) => `^${oid}`)].join('\n');
  const { stdout } = await runGit(['rev-list', '--objects', '--stdin'], {
    cwd: context.root,
    timeoutMs: LONG_TIMEOUT_MS,
    extraEnv: environment(context),
    input: `${input}\n`,
  });
  const objects: PushedObject[] = [];
  for (const line of stdout.slice(0, -1).split('\n')) {
    const oid = OBJECT_LINE.exec(line)?.[1];
    const last = objects.at(-1);
    // A path with a line feed in it goes on over the next line, which starts with no object id.
    if (oid === undefined && last) last.path += `\n${line}`;
    else if (oid !== undefined) objects.push({ oid, path: line.slice(oid.length + 1) });
  }
  return objects;
}

/** Each object's type and size, without its content. */
export async function objectSizes(
  context: ObjectContext,
  oids: readonly string[],
): Promise<Map<string, { type: string; size: number }>> {
  const sizes = new Map<string, { type: string; size: number }>();
  if (oids.length === 0) return sizes;
  const { stdout } = await runGit(['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], {
    cwd: context.root,
    timeoutMs: LONG_TIMEOUT_MS,
    extraEnv: environment(context),
    input: `${oids.join('\n')}\n`,
  });
  for (const line of stdout.split('\n')) {
    const [oid, type, size] = line.split(' ');
    if (oid && type && size && type !== 'missing') sizes.set(oid, { type, size: Number(size) });
  }
  return sizes;
}

/**
 * The contents of objects, in batches of about `BATCH_BYTES` (by the sizes given), each batch handed to
 * `visit` before the next is read.
 */
export async function readObjects(
  context: ObjectContext,
  oids: readonly string[],
  sizes: ReadonlyMap<string, { size: number }>,
  visit: (object: ObjectContent) => void,
): Promise<void> {
  let batch: string[] = [];
  let bytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const { stdout } = await runGitBuffer(['cat-file', '--batch'], {
      cwd: context.root,
      timeoutMs: LONG_TIMEOUT_MS,
      extraEnv: environment(context),
      input: `${batch.join('\n')}\n`,
    });
    for (const object of parseBatch(stdout)) visit(object);
    batch = [];
    bytes = 0;
  };
  for (const oid of oids) {
    batch.push(oid);
    bytes += sizes.get(oid)?.size ?? 0;
    if (bytes >= BATCH_BYTES) await flush();
  }
  await flush();
}

/** `cat-file --batch` output: `<oid> <type> <size>\n<content>\n` per object. */
function parseBatch(output: Buffer): ObjectContent[] {
  const objects: ObjectContent[] = [];
  let at = 0;
  while (at < output.length) {
    const end = output.indexOf(10, at);
    if (end === -1) break;
    const [oid = '', type = '', size = ''] = output.subarray(at, end).toString('latin1').split(' ');
    if (type === 'missing' || !/^\d+$/.test(size))
      throw new CheckpointError(
        'GIT_FAILED',
        `git cat-file could not read object ${oid} (${type || 'no answer'})`,
      );
    const length = Number(size);
    objects.push({
      oid,
      type: type as ObjectContent['type'],
      content: output.subarray(end + 1, end + 1 + length),
    });
    at = end + 1 + length + 1;
  }
  return objects;
}

/** The entries of a tree object: `<mode> <name>\0<raw oid>` each; `oidBytes` is 20, or 32 for SHA-256. */
export function parseTree(content: Buffer, oidBytes: number): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < content.length) {
    const space = content.indexOf(32, at);
    const nul = content.indexOf(0, space + 1);
    if (space === -1 || nul === -1 || nul + 1 + oidBytes > content.length)
      throw new CheckpointError('CORRUPT', 'a tree object is not in git’s format');
    entries.push({
      mode: content.subarray(at, space).toString('latin1'),
      name: content.subarray(space + 1, nul),
      oid: content.subarray(nul + 1, nul + 1 + oidBytes).toString('hex'),
    });
    at = nul + 1 + oidBytes;
  }
  return entries;
}

/**
 * Makes the private store hold, on its own, what it needs of these commits: each commit, and with
 * `content` its tree and blobs (never its parents). A fetch skips whatever the project's repository
 * already holds (the base commit's files, or everything, in a clone made over a plain path), but the
 * store stops borrowing the project's objects after its gc, or never did: without this it cannot read
 * the handoff ("unable to read tree", "bad object"). Only what the store cannot read is copied, as one
 * pack written with the store's own owner-only permissions.
 */
export async function copyIntoStore(
  storeGitDir: string,
  projectObjects: string,
  commits: readonly string[],
  options: { content: boolean },
): Promise<void> {
  if (commits.length === 0) return;
  const store = (args: readonly string[], input: string, withProject: boolean) =>
    runGit(['--git-dir', storeGitDir, ...args], {
      cwd: storeGitDir,
      timeoutMs: LONG_TIMEOUT_MS,
      input,
      ...(withProject ? { extraEnv: { GIT_ALTERNATE_OBJECT_DIRECTORIES: projectObjects } } : {}),
    });
  const wanted = options.content
    ? (await store(['rev-list', '--objects', '--no-walk', '--stdin'], `${commits.join('\n')}\n`, true)).stdout
        .split('\n')
        .map((line) => OBJECT_LINE.exec(line)?.[1])
        .filter((oid): oid is string => oid !== undefined)
    : [...commits];
  const { stdout } = await store(
    ['cat-file', '--batch-check=%(objectname) %(objecttype)'],
    `${wanted.join('\n')}\n`,
    false,
  );
  const missing = stdout
    .split('\n')
    .filter((line) => line.endsWith(' missing'))
    .map((line) => line.slice(0, line.indexOf(' ')));
  if (missing.length === 0) return;
  await store(
    ['pack-objects', '-q', path.join(storeGitDir, 'objects', 'pack', 'pack')],
    `${missing.join('\n')}\n`,
    true,
  );
}
