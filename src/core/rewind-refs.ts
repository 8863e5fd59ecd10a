import { CheckpointError } from './errors.js';
import { countedAs } from './self-link.js';
import type { ChangeCounts, SnapshotRecord } from './snapshot.js';

/**
 * How far back `latest~N` goes (as git writes "N before"; `latest` is 0), or undefined when `ref` is not of
 * that form. Any number of digits is read: a cap on them called `latest~1000000` no reference at all
 * (bad-input trial); past the safe integers it is Infinity, still farther back than any list.
 */
export function latestBack(ref: string): number | undefined {
  if (ref === 'latest') return 0;
  const digits = /^latest~(\d+)$/.exec(ref)?.[1];
  if (digits === undefined) return undefined;
  const back = Number(digits);
  return Number.isSafeInteger(back) ? back : Number.POSITIVE_INFINITY;
}

/**
 * Finds one item of a newest-first list by `latest`, `latest~N` (N items before the newest), its full
 * id or a unique id prefix. `noun` names the items in errors ("snapshot", "prompt"); `listHint` says
 * where to see them.
 */
export function resolveRef<T extends { id: string }>(
  items: readonly T[],
  ref: string,
  noun: string,
  listHint: string,
): T {
  const given = ref.trim();
  // An empty prefix would match every id: say the reference is empty, not that it is ambiguous.
  if (given === '')
    throw new CheckpointError(
      'INVALID_INPUT',
      `the ${noun} reference is empty: give an id, a unique id prefix, latest or latest~N`,
    );
  if (items.length === 0) throw new CheckpointError('INVALID_INPUT', `there are no ${noun}s to choose from`);
  const back = latestBack(given);
  if (back !== undefined) {
    const item = items[back];
    if (item) return item;
    // The digits as given (without leading zeros): a number past 2^53 is not printed rounded.
    const shown = given.slice('latest~'.length).replace(/^0+(?=\d)/, '') || '0';
    throw new CheckpointError(
      'INVALID_INPUT',
      `'${given}' goes back ${shown} ${noun}(s), but there are only ${items.length}: the oldest is latest~${items.length - 1}`,
    );
  }
  if (given.startsWith('latest'))
    throw new CheckpointError('INVALID_INPUT', `'${given}' is not a reference: use latest or latest~N`);
  const matches = items.filter((item) => item.id.startsWith(given));
  if (matches.length === 1) return matches[0] as T;
  if (matches.length === 0)
    throw new CheckpointError(
      'INVALID_INPUT',
      `no ${noun} '${given}'${whyMissing(items, given, noun)}: ${listHint}`,
    );
  throw new CheckpointError(
    'INVALID_INPUT',
    `${noun} id '${given}' is ambiguous (${matches.length} match): give more of it`,
  );
}

/** An id's time: ids begin with when they were taken, in UTC (`20261130-140102-a1b2c3`). */
const ID_TIME = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})(?:-[0-9a-f]{0,6})?$/;

/**
 * Why an id of the store's own form matches nothing: after weeks of use, the usual reason is that
 * retention removed it, which a bare "no snapshot" left the user to guess (daily-use trial).
 */
function whyMissing(newestFirst: readonly { id: string }[], given: string, noun: string): string {
  const time = ID_TIME.exec(given);
  const oldest = newestFirst.at(-1)?.id;
  if (!time || oldest === undefined) return '';
  const [, year, month, day, hour, minute, second] = time;
  const when = `${year}-${month}-${day} ${hour}:${minute}:${second} UTC`;
  // A mistyped id (second 60, month 13) names no moment: say so, not "taken" at an impossible time.
  const ms = Date.UTC(
    Number(year),
    Number(month) - 1,
    Number(day),
    Number(hour),
    Number(minute),
    Number(second),
  );
  if (new Date(ms).toISOString().slice(0, 19) !== `${year}-${month}-${day}T${hour}:${minute}:${second}`)
    return ` (its id would say it was taken ${when}, which is no time: ids begin with the UTC time they were taken, YYYYMMDD-HHMMSS)`;
  const limits = 'the count, age and size limits: snapshotMaxCount, snapshotMaxAgeDays, storeMaxMb';
  if (given < oldest)
    return ` (taken ${when}, by its id): it is older than the oldest ${noun} kept, ${oldest}, so retention or gc removed it (${limits})`;
  return ` (taken ${when}, by its id): none of that time is kept; retention or gc may have removed it (${limits}), or it is another project's`;
}

/** One prompt a rewind can go back to: the snapshot taken just before the prompt was sent. */
export interface RewindEntry {
  /** The snapshot's id, which also names the entry. */
  id: string;
  prompt: string;
  sessionId: string;
  agent: string | null;
  createdAt: string;
  /** What changed after this prompt, so what restoring its code would undo. */
  changes: ChangeCounts;
}

/** The prompts' snapshots (of one session, or every one), newest first as the store lists them. */
export function promptSnapshots(
  snapshots: readonly SnapshotRecord[],
  sessionId?: string,
): Array<SnapshotRecord & { sessionId: string }> {
  return snapshots.filter(
    (snapshot): snapshot is SnapshotRecord & { sessionId: string } =>
      snapshot.trigger === 'prompt' &&
      snapshot.sessionId !== undefined &&
      (sessionId === undefined || snapshot.sessionId === sessionId),
  );
}

/**
 * Which session "the current one" is: the one the agent names (it runs us with its session id in the
 * environment), else the one whose prompt came last in this project.
 */
export function currentSessionId(
  snapshots: readonly SnapshotRecord[],
  named: string | undefined,
): string | null {
  if (named?.trim()) return named.trim();
  return promptSnapshots(snapshots)[0]?.sessionId ?? null;
}

/**
 * The session `given` names among those of the project's snapshots: its full id, or a unique prefix of
 * one, as git takes a short hash (lists show a session's first 8 characters). `field` names where it
 * was given; `listHint` says where to see the sessions.
 */
export function resolveSessionId(
  snapshots: readonly SnapshotRecord[],
  given: string,
  field: string,
  listHint: string,
): string {
  const ids = [...new Set(snapshots.flatMap((snapshot) => (snapshot.sessionId ? [snapshot.sessionId] : [])))];
  if (ids.includes(given)) return given;
  const matches = ids.filter((id) => id.startsWith(given));
  if (matches.length === 1) return matches[0] as string;
  if (matches.length === 0)
    throw new CheckpointError('INVALID_INPUT', `${field}: no session '${given}'; ${listHint}`);
  throw new CheckpointError(
    'INVALID_INPUT',
    `${field} '${given}' is ambiguous: ${matches.length} sessions start with it (${matches.sort().join(', ')}); give more of it`,
  );
}

/** `+added ~modified -deleted`, as `list` writes a snapshot's counts. */
export function formatChangeCounts(changes: ChangeCounts): string {
  return `+${changes.added} ~${changes.modified} -${changes.deleted}`;
}

export function hasChanges(changes: ChangeCounts): boolean {
  return changes.added + changes.modified + changes.deleted > 0;
}

/** One file's side of a tree diff, as `git diff-tree --raw` gives it (mode `000000`: absent). */
export interface ChainChange {
  path: string;
  beforeMode: string;
  afterMode: string;
  beforeOid: string;
  afterOid: string;
}

/**
 * How a file's state in an old tree compares with its state now: added, deleted, modified, or not
 * counted. `selfLinks`: the states (`<mode> <oid>`) that are links to themselves at this path.
 */
function classify(at: string, now: string, selfLinks?: ReadonlySet<string>): keyof ChangeCounts | null {
  if (at === now) return null;
  // A nested repository's folder is not counted, whichever side it is on.
  if (at.startsWith('160000 ') || now.startsWith('160000 ')) return null;
  const side = (state: string) => ({
    mode: state.slice(0, state.indexOf(' ')),
    isLinkToItself: selfLinks?.has(state) ?? false,
  });
  return countedAs(side(at), side(now));
}

/**
 * What changed after each tree of a chain, newest first, up to the tree now: the files each tree's own
 * diff against now adds, modifies and deletes (nested repositories' folders not counted), counted from
 * the diffs between neighbours alone, so a long history costs the sum of its small steps rather than a
 * whole diff per tree (issue 28). `steps[0]` is the diff from the newest tree to now, `steps[k]` the
 * diff from tree k to tree k-1. `leftOutNow`: paths the tree now leaves out although they are on disk
 * (over the size cap): one a tree holds is modified since, never deleted (a rewind overwrites it).
 */
export function countChangesAlongChain(
  steps: ReadonlyArray<ReadonlyArray<ChainChange>>,
  selfLinks: ReadonlySet<string> = new Set(),
  leftOutNow: ReadonlySet<string> = new Set(),
): ChangeCounts[] {
  // Per file touched so far: its state now, and its state in the tree the walk has reached.
  const now = new Map<string, string>();
  const at = new Map<string, string>();
  const counts: ChangeCounts = { added: 0, modified: 0, deleted: 0 };
  const result: ChangeCounts[] = [];
  for (const step of steps) {
    for (const change of step) {
      const after = `${change.afterMode} ${change.afterOid}`;
      const before = `${change.beforeMode} ${change.beforeOid}`;
      let current = now.get(change.path);
      // Untouched by every later step: as it is now in the newer tree too.
      if (current === undefined) {
        current = after;
        now.set(change.path, after);
        at.set(change.path, after);
      }
      const links = linksAt(selfLinks, change.path);
      const onDisk = leftOutNow.has(change.path);
      const kind = (state: string, now: string) => {
        const found = classify(state, now, links);
        return found === 'deleted' && onDisk ? 'modified' : found;
      };
      const was = kind(at.get(change.path) as string, current);
      if (was) counts[was]--;
      at.set(change.path, before);
      const is = kind(before, current);
      if (is) counts[is]++;
    }
    result.push({ ...counts });
  }
  return result;
}

/** Of `selfLinks` (`<oid> <path>`, see store's linksToThemselves), the states at `file`, as `<mode> <oid>`. */
function linksAt(selfLinks: ReadonlySet<string>, file: string): ReadonlySet<string> | undefined {
  if (selfLinks.size === 0) return undefined;
  const states = new Set<string>();
  for (const key of selfLinks) {
    const space = key.indexOf(' ');
    if (key.slice(space + 1) === file) states.add(`120000 ${key.slice(0, space)}`);
  }
  return states;
}
