import { realpathSync } from 'node:fs';
import path from 'node:path';
import { pathWithin } from '../core/paths.js';

/**
 * The store's base folder as a path inside the project (POSIX, no trailing slash), or `null` when it lies
 * elsewhere (the usual case). A store under the project (XDG_STATE_HOME or HOME inside it, a storeDir
 * setting there) is left out of every scan of the project, snapshot, restore, handoff and drift alike
 * (safety audit of 2026-12-07, items 1 and 8): snapshotted, a restore wrote its old objects over the
 * live ones and deleted the rest. Both paths are resolved through links, so that either may be named
 * through one.
 */
export function storeFolderWithin(root: string, base: string): string | null {
  const relative = pathWithin(resolvedThroughLinks(root), resolvedThroughLinks(base));
  return relative === null || relative === '' ? null : relative.split(path.sep).join('/');
}

/**
 * Whether the project is the store's base folder or lies inside it: its snapshots would hold the store
 * itself, and a restore would write over it. Both paths resolved through links.
 */
export function isProjectInStore(root: string, base: string): boolean {
  return pathWithin(resolvedThroughLinks(base), resolvedThroughLinks(root)) !== null;
}

/**
 * Our folders inside the project, as storeFolderWithin gives each: the store's base folder and the user's
 * configuration folder (settings and redaction patterns: HOME or XDG_CONFIG_HOME inside the project).
 * Neither is the user's work: snapshotted, a restore rolled the user's settings back, and a handoff
 * pushed them to the remote (brief h-left, item 2).
 */
export function ourFoldersWithin(root: string, folders: readonly string[]): string[] {
  const within = folders.map((folder) => storeFolderWithin(root, folder));
  return [...new Set(within.filter((folder): folder is string => folder !== null))];
}

/** Whether a project path (POSIX) is one of our folders within the project (see ourFoldersWithin) or under one. */
export function isOurPath(file: string, within: readonly string[]): boolean {
  return within.some((folder) => file === folder || file.startsWith(`${folder}/`));
}

/** The real path of `file`, or of its nearest folder that exists with the rest joined on. */
export function resolvedThroughLinks(file: string): string {
  const rest: string[] = [];
  for (let at = path.resolve(file); ; at = path.dirname(at)) {
    try {
      return path.join(realpathSync.native(at), ...rest.reverse());
    } catch {
      if (path.dirname(at) === at) return path.resolve(file);
      rest.push(path.basename(at));
    }
  }
}
