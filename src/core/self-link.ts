// A symbolic link that points to itself (`rm x && ln -s x x`) holds nothing: reading it fails (ELOOP).
// A file replaced by one is gone, though git calls the change a typechange (`T x`) and `git status` says
// no file was deleted. Counts and diffs say what the user lost (helper task "held", 2026-12-07). Pure.
import path from 'node:path';
import type { ChangeCounts } from './snapshot.js';

const LINK_MODE = '120000';
const ABSENT_MODE = '000000';

/**
 * Whether a link at `file` (project-relative, `/`-separated) with target `target` resolves to itself.
 * Read from the text alone, so only where the text says so for sure: a `..` after a name the target
 * walks into (`y/../x`) goes up from wherever `y` leads, which may be a link elsewhere; an absolute
 * target is never taken for one. Either is then a link like any other.
 */
export function isLinkToItself(file: string, target: string): boolean {
  if (target === '' || target.startsWith('/')) return false;
  const segments = target.split('/');
  const firstName = segments.findIndex((segment) => segment !== '..' && segment !== '.' && segment !== '');
  if (firstName >= 0 && segments.slice(firstName).includes('..')) return false;
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
  return resolved.replace(/\/+$/, '') === file;
}

/** One side of a change: its mode and oid, and whether it is a link to itself. */
export interface ChangeSide {
  mode: string;
  isLinkToItself: boolean;
}

/**
 * How a change between two present sides counts: a link to itself on one side, a file or link that
 * holds something on the other, is that file's deletion (or, the other way round, its coming back).
 */
export function countedAs(before: ChangeSide, after: ChangeSide): keyof ChangeCounts {
  if (before.mode === ABSENT_MODE) return 'added';
  if (after.mode === ABSENT_MODE) return 'deleted';
  if (after.isLinkToItself && !before.isLinkToItself) return 'deleted';
  if (before.isLinkToItself && !after.isLinkToItself) return 'added';
  return 'modified';
}

/** Whether a change has a link on one side only, so one side may be a link to itself worth reading. */
export function isLinkTypeChange(change: { beforeMode: string; afterMode: string }): boolean {
  return (
    change.beforeMode !== change.afterMode &&
    change.beforeMode !== ABSENT_MODE &&
    change.afterMode !== ABSENT_MODE &&
    (change.beforeMode === LINK_MODE || change.afterMode === LINK_MODE)
  );
}
