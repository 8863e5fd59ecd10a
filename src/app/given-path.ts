import path from 'node:path';
import { pathWithin, type RealLocation } from '../core/paths.js';
import { resolvedThroughLinks } from '../store/store-within.js';

/**
 * The real location of an absolute path given outside `root` as written (see toProjectPath), else
 * undefined: `/tmp/p/a.txt` where `/tmp` links to `/private/tmp` and the root is `/private/tmp/p` (macOS),
 * or the project named through a link to it. A path inside the root as written is never resolved here,
 * so no link inside the project is followed.
 */
export function realLocationOf(root: string, given: string): RealLocation | undefined {
  if (!path.isAbsolute(given) || given.includes('\0')) return undefined;
  const absolute = path.resolve(given);
  if (pathWithin(root, absolute) !== null) return undefined;
  const real = resolvedThroughLinks(absolute);
  if (real === absolute || pathWithin(root, real) !== null) return { path: real, isThroughProject: false };
  // Outside: say so plainly unless a folder on the way is really the project's, a link in it leading out.
  for (let at = path.dirname(absolute); path.dirname(at) !== at; at = path.dirname(at))
    if (pathWithin(root, resolvedThroughLinks(at)) !== null) return { path: real, isThroughProject: true };
  return { path: real, isThroughProject: false };
}
