import { mkdirSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import type { SnapshotMeta, SnapshotRecord } from '../core/snapshot.js';
import { isPlainSnapshotMeta } from '../core/snapshot-meta-check.js';
import { compareAscii } from '../core/text.js';
import type { ObjectFormat } from '../git/oid.js';
import { readStoredZlib } from '../git/zlib-stored.js';
import { writeFileAtomicSync } from './atomic-write.js';
import { errorCode, readTextOrNull } from './fs-seam.js';
import { repositoryObjectFormat, writeLooseObject } from './loose-object.js';
import type { StoreGit } from './store-git.js';

/** Where the store keeps one ref per snapshot. */
export const SNAPSHOT_REFS = 'refs/snapshots/';

const IDENTITY = 'claude-checkpoint <claude-checkpoint@localhost>';

/**
 * Records a captured tree as a snapshot: a commit whose message is its metadata, and its ref. The commit
 * is the one `git commit-tree` would write (our identity, the snapshot's time; no parent, or the commit of
 * what a restore kept aside, see keep-aside.ts), written as a
 * loose object and refs as files, git's stable on-disk formats, in this private repository: two git
 * processes fewer on every prompt.
 */
export async function recordSnapshot(
  gitDir: string,
  meta: SnapshotMeta,
  tree: string,
  knownFormat?: ObjectFormat,
  parent?: string,
): Promise<SnapshotRecord> {
  const date = `${Math.floor(new Date(meta.createdAt).getTime() / 1000)} +0000`;
  const parentLine = parent ? `parent ${parent}\n` : '';
  const body = `tree ${tree}\n${parentLine}author ${IDENTITY} ${date}\ncommitter ${IDENTITY} ${date}\n\n${JSON.stringify(meta)}\n`;
  const format = knownFormat ?? (await repositoryObjectFormat(gitDir));
  const commit = await writeLooseObject(gitDir, 'commit', Buffer.from(body, 'utf8'), format);
  // The snapshot's ref, and HEAD (master) at the latest snapshot so the next status compares with it.
  // A loose ref takes precedence over a packed one of the same name.
  await writeLooseRef(gitDir, `${SNAPSHOT_REFS}${meta.id}`, commit);
  await writeLooseRef(gitDir, 'refs/heads/master', commit);
  return { ...meta, tree, commit };
}

async function writeLooseRef(gitDir: string, ref: string, oid: string): Promise<void> {
  const file = path.join(gitDir, ...ref.split('/'));
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileAtomicSync(file, `${oid}\n`);
}

const SNAPSHOT_ID = /^\d{8}-\d{6}-[0-9a-f]{6}$/;

/** What `read` returns, or `fallback` when it throws (a folder or file not there yet). */
function readOr<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}
const PACKED_SNAPSHOT_REF = /^[0-9a-f]+ refs\/snapshots\/(\d{8}-\d{6}-[0-9a-f]{6})$/gm;

/**
 * The ids of all snapshots, from the ref files and packed-refs, without starting git. Ids begin with
 * their UTC creation time, which is all that retention needs. Read synchronously: one folder and one
 * file, which `list` and `status` read with nothing else to do meanwhile (and without `fs/promises`).
 */
export async function snapshotIds(gitDir: string): Promise<Array<{ id: string; createdAt: string }>> {
  const ids = new Set<string>(
    readOr(() => readdirSync(path.join(gitDir, 'refs', 'snapshots')), [] as string[]).filter((id) =>
      SNAPSHOT_ID.test(id),
    ),
  );
  const packed = readTextOrNull(path.join(gitDir, 'packed-refs')) ?? '';
  // One pass over the file (a long history's is 10,000 lines), not a split per line.
  for (const match of packed.matchAll(PACKED_SNAPSHOT_REF)) ids.add(match[1] as string);
  return [...ids].map(snapshotIdEntry);
}

/** A snapshot id with the second it names, as snapshotIds lists it. */
export function snapshotIdEntry(id: string): { id: string; createdAt: string } {
  return {
    id,
    createdAt: `${id.slice(0, 4)}-${id.slice(4, 6)}-${id.slice(6, 8)}T${id.slice(9, 11)}:${id.slice(11, 13)}:${id.slice(13, 15)}.000Z`,
  };
}

/**
 * The ids of the `count` newest snapshots, from their names alone (they begin with their UTC second),
 * plus every other one of the oldest one's second: the exact order within a second is in the commits,
 * which the caller reads for just these. A long history then costs a listing what it shows.
 */
export function newestIds(ids: ReadonlyArray<{ id: string }>, count: number): string[] {
  const sorted = ids.map((entry) => entry.id).sort((a, b) => compareAscii(b, a));
  if (sorted.length <= count) return sorted;
  const boundary = second(sorted[count - 1] as string);
  let end = count;
  while (end < sorted.length && second(sorted[end] as string) === boundary) end++;
  return sorted.slice(0, end);
}

/** The second a snapshot id names (its first 15 characters: `YYYYMMDD-HHMMSS`). */
export const second = (id: string): string => id.slice(0, 15);

/** Whether `a` lists before `b`, newest first (see sortNewestFirst). */
export function isNewer(a: { id: string; createdAt: string }, b: { id: string; createdAt: string }): boolean {
  return (compareAscii(a.createdAt, b.createdAt) || compareAscii(a.id, b.id)) > 0;
}

/** Up to this many snapshots are read from the store's files; for more, one git process is quicker. */
const MAX_FILE_READS = 64;

/**
 * Every snapshot, newest first; only those of `ids` when given (each read costs a commit's read). A few
 * are read from the store's files (see readFromFiles), without starting git.
 */
export async function listSnapshotRecords(
  git: StoreGit,
  gitDir: string,
  ids?: readonly string[],
): Promise<SnapshotRecord[]> {
  if (ids?.length === 0) return [];
  const fromFiles = ids && ids.length <= MAX_FILE_READS ? await readFromFiles(gitDir, ids) : null;
  if (fromFiles) return sortNewestFirst(fromFiles);
  // Unsorted: sortNewestFirst orders them (git's sort by date would only be undone).
  const { stdout } = await git([
    'for-each-ref',
    '--format=%(objectname) %(tree)%00%(contents)%00',
    ...(ids ? ids.map((id) => `${SNAPSHOT_REFS}${id}`) : [SNAPSHOT_REFS]),
  ]);
  const records: SnapshotRecord[] = [];
  // Walked by offsets, each record parsed as it is found: a long history's listing allocates a record
  // per snapshot and little else, and waits on nothing (the schema is only loaded for what needs it).
  let start = 0;
  while (start < stdout.length) {
    const headEnd = stdout.indexOf('\0', start);
    const bodyEnd = headEnd < 0 ? -1 : stdout.indexOf('\0\n', headEnd + 1);
    if (bodyEnd < 0) break;
    const space = stdout.indexOf(' ', start);
    const commit = stdout.slice(start, space).trim();
    const tree = stdout.slice(space + 1, headEnd);
    const body = stdout.slice(headEnd + 1, bodyEnd);
    start = bodyEnd + 2;
    if (space < 0 || space > headEnd || !commit || !tree) continue;
    const record = parsePlainRecord(commit, tree, body) ?? (await parseRecord(commit, tree, body));
    if (record) records.push(record);
  }
  return sortNewestFirst(records);
}

/** A record whose metadata this code wrote (see isPlainSnapshotMeta); `undefined` for the schema to judge. */
function parsePlainRecord(commit: string, tree: string, message: string): SnapshotRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (!isPlainSnapshotMeta(value)) return undefined;
  // Just parsed, so ours to complete: no copy of each of 10,000 records.
  const record = value as SnapshotRecord;
  record.tree = tree;
  record.commit = commit;
  return record;
}

/**
 * The snapshots' records as git keeps them on disk: a ref is a file holding its commit's oid, and a
 * commit written since the last gc is a loose object (zlib, stored blocks when we wrote it: `commit
 * <size>\0`, the headers, a blank line,
 * the message). `null` when any is not (gc packs refs and objects): git reads those.
 */
async function readFromFiles(gitDir: string, ids: readonly string[]): Promise<SnapshotRecord[] | null> {
  const records: SnapshotRecord[] = [];
  for (const id of ids) {
    const commit = readTextOrNull(path.join(gitDir, ...SNAPSHOT_REFS.split('/'), id))?.trim() ?? '';
    if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(commit)) return null;
    let object: Buffer;
    try {
      const file = readFileSync(path.join(gitDir, 'objects', commit.slice(0, 2), commit.slice(2)));
      // Ours are stored uncompressed (see writeLooseObject); one written otherwise is inflated.
      object = readStoredZlib(file) ?? inflateSync(file);
    } catch {
      return null;
    }
    const nul = object.indexOf(0);
    if (object.subarray(0, nul).toString('latin1') !== `commit ${object.length - nul - 1}`) return null;
    const text = object.subarray(nul + 1).toString('utf8');
    const headersEnd = text.indexOf('\n\n');
    const tree = /^tree ([0-9a-f]+)\n/.exec(text)?.[1];
    if (headersEnd < 0 || !tree) return null;
    const record = await parseRecord(commit, tree, text.slice(headersEnd + 2));
    if (record) records.push(record);
  }
  return records;
}

/** A snapshot's record from its commit, tree and message (its metadata); `null` when it is not one of ours. */
async function parseRecord(commit: string, tree: string, message: string): Promise<SnapshotRecord | null> {
  try {
    const value: unknown = JSON.parse(message);
    // zod loads only for metadata the plain check leaves to it: what this code writes passes.
    const meta = isPlainSnapshotMeta(value)
      ? value
      : (await import('../core/snapshot-schema.js')).snapshotMetaSchema.parse(value);
    return { ...meta, tree, commit };
  } catch {
    // Not one of ours, or damaged: listing the rest is more useful than failing.
    return null;
  }
}

function sortNewestFirst(records: SnapshotRecord[]): SnapshotRecord[] {
  return records.sort((a, b) => compareAscii(b.createdAt, a.createdAt) || compareAscii(b.id, a.id));
}

/**
 * Deletes snapshots' refs. A ref that is only a loose file (every snapshot since the last gc, which is
 * what retention removes on most prompts) is deleted as git deletes it, by removing the file; refs gc
 * has packed are left to `git update-ref`, which rewrites packed-refs.
 */
export async function removeSnapshots(gitDir: string, git: StoreGit, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const packed = readTextOrNull(path.join(gitDir, 'packed-refs')) ?? '';
  const packedRefs = new Set(packed.split('\n').map((line) => line.split(' ')[1]));
  const viaGit: string[] = [];
  for (const id of ids) {
    const ref = `${SNAPSHOT_REFS}${id}`;
    if (packedRefs.has(ref)) viaGit.push(ref);
    else {
      for (const file of [path.join(gitDir, ...ref.split('/')), path.join(gitDir, 'logs', ...ref.split('/'))])
        removeFileIfThere(file);
    }
  }
  if (viaGit.length === 0) return;
  await git(['update-ref', '--stdin'], { input: viaGit.map((ref) => `delete ${ref}\n`).join('') });
}

/**
 * Removes a plain file that may not be there. An unlink, where rmSync's first call loaded Node's rimraf
 * (half a millisecond of every snapshot that expires one); any failure but its absence is thrown, as
 * rmSync's `force` throws it.
 */
function removeFileIfThere(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
}
