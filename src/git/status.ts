import type { FileStatus } from '../core/schema.js';

/** One entry of `git status --porcelain=v2 -z`, path relative to the repository's top level. */
export interface StatusEntry {
  path: string;
  status: FileStatus;
  /** The blob oid of the path in HEAD, or `null` when HEAD has no such file. */
  headOid: string | null;
  /** The path's mode in HEAD (`100644`, `120000`, ...), when the record gives one. */
  headMode?: string | null;
  isSubmodule: boolean;
}

export interface ParsedStatus {
  /** `null` before the first commit. */
  head: string | null;
  /** `null` on a detached HEAD. */
  branch: string | null;
  entries: StatusEntry[];
}

/**
 * The one `git status` a load or `status` runs: branch, HEAD and every uncommitted or untracked file
 * under the folder it runs in. `--no-renames`: a staged rename (`git mv`) is its two paths, the old one
 * deleted and the new one added, whatever `status.renames` says (issue 26).
 */
export const STATUS_ARGS: readonly string[] = [
  'status',
  '--porcelain=v2',
  '-z',
  '--branch',
  '--untracked-files=all',
  '--no-renames',
  '--',
  '.',
];

const ZERO_OID = /^0+$/;

/**
 * Parses `git status --porcelain=v2 -z --branch` output. The format is stable across git versions by
 * design ("porcelain"), and -z keeps paths with spaces, quotes and non-ASCII characters verbatim.
 * Callers pass `--no-renames`; a rename or copy record met anyway still yields every path it changed.
 */
export function parseStatusV2(output: string): ParsedStatus {
  const records = output.split('\0');
  let head: string | null = null;
  let branch: string | null = null;
  const entries: StatusEntry[] = [];
  const listed = new Map<string, StatusEntry>();
  const add = (entry: StatusEntry) => {
    const known = listed.get(entry.path);
    if (!known) {
      listed.set(entry.path, entry);
      entries.push(entry);
    } else if (known.status !== entry.status) {
      // One rename's source is another's target (a.js -> b.js, c.js -> a.js): HEAD's file, new content.
      known.status = 'M';
      known.headOid ??= entry.headOid;
    }
  };
  for (let i = 0; i < records.length; i++) {
    const record = records[i] ?? '';
    if (record === '') continue;
    const kind = record[0];
    if (kind === '#') {
      const [, key, value = ''] = record.split(' ', 3);
      if (key === 'branch.oid') head = value === '(initial)' ? null : value;
      if (key === 'branch.head') branch = value === '(detached)' ? null : value;
      continue;
    }
    if (kind === '?') {
      add({ path: record.slice(2), status: '??', headOid: null, isSubmodule: false });
      continue;
    }
    if (kind === '1' || kind === '2' || kind === 'u') {
      // Fixed fields before the path: 8 for "1", 9 for "2" (adds the rename score), 10 for "u".
      const fieldCount = kind === '1' ? 8 : kind === '2' ? 9 : 10;
      const fields = splitFields(record, fieldCount);
      const xy = fields[1] ?? '..';
      const sub = fields[2] ?? 'N...';
      const rawHeadOid = kind === 'u' ? null : (fields[6] ?? null);
      const headOid = rawHeadOid && !ZERO_OID.test(rawHeadOid) ? rawHeadOid : null;
      const isSubmodule = sub.startsWith('S');
      if (kind !== '2') {
        const headMode = kind === '1' && headOid !== null ? (fields[3] ?? null) : null;
        add({
          path: fields[fieldCount] ?? '',
          status: kind === 'u' ? 'M' : statusFromXY(xy),
          headOid,
          ...(headMode === null ? {} : { headMode }),
          isSubmodule,
        });
        continue;
      }
      // A rename or copy: the new path is not in HEAD; the original path (HEAD's oid is its blob) follows
      // as its own record, and is gone after a rename but untouched by a copy.
      const original = records[++i] ?? '';
      add({ path: fields[fieldCount] ?? '', status: statusFromXY(xy), headOid: null, isSubmodule });
      if (xy[0] === 'R' && original !== '') add({ path: original, status: 'D', headOid, isSubmodule });
    }
  }
  return { head, branch, entries };
}

/** Splits off `count` space-separated fields; the rest of the record (the path, spaces included) follows. */
function splitFields(record: string, count: number): string[] {
  const fields: string[] = [];
  let start = 0;
  for (let n = 0; n < count; n++) {
    const space = record.indexOf(' ', start);
    if (space < 0) return fields;
    fields.push(record.slice(start, space));
    start = space + 1;
  }
  fields.push(record.slice(start));
  return fields;
}

/** Collapses git's two-letter index/worktree code into the one status the checkpoint stores. */
export function statusFromXY(xy: string): FileStatus {
  const [x = '.', y = '.'] = xy;
  if (x === 'D' || y === 'D') return 'D';
  if (x === 'R') return 'R';
  if (x === 'A' || x === 'C') return 'A';
  return 'M';
}

/**
 * The folders a `git status` scan could not open, from its warnings on stderr
 * (`warning: could not open directory 'a/b/': Permission denied`): path without its slash, and git's
 * reason (the system's error). git cuts a message at 4 KB, so a path longer than PATH_MAX comes without its
 * end or reason: its `error` is then ''. What is in such folders, git left out without failing.
 */
export function parseUnreadableFolders(stderr: string): Array<{ path: string; error: string }> {
  const found: Array<{ path: string; error: string }> = [];
  const prefix = "warning: could not open directory '";
  for (const line of stderr.split('\n')) {
    if (!line.startsWith(prefix)) continue;
    const rest = line.slice(prefix.length);
    const end = rest.lastIndexOf("': ");
    const path = end === -1 ? rest : rest.slice(0, end);
    found.push({ path: path.replace(/\/$/, ''), error: end === -1 ? '' : rest.slice(end + 3) });
  }
  return found;
}
