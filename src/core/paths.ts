import path from 'node:path';
import { CheckpointError } from './errors.js';
import { escapeControls } from './quote.js';
import { bytesFromText } from './raw-path.js';

/**
 * Where an absolute path given outside the root (as written) really lies, found at the edge through
 * symbolic links (see realLocationOf in app/given-path.ts): `/tmp/p` given for the project `/private/tmp/p`.
 */
export interface RealLocation {
  /** The path with its deepest existing folder resolved through links, the rest joined on. */
  path: string;
  /** Whether a folder on the way really lies in the project: a symbolic link there leads out of it. */
  isThroughProject: boolean;
}

/** How toProjectPath takes a given path, beyond the root. */
export interface GivenPathOptions {
  /** Where the path, given outside the root as written, really lies (see RealLocation). */
  real?: RealLocation | undefined;
  /** How a path is written in an error: a caller that redacts (a save) passes its own. */
  shown?: ((file: string) => string) | undefined;
  /**
   * The folder a relative path is taken from: the CLI's current folder, as a person types paths (as git
   * takes them). The root when absent: the tools' paths, and a JSON document's, are relative to the root.
   */
  from?: string | undefined;
}

/**
 * Turns a path given by the agent into the project-relative, `/`-separated form stored in the file.
 * Security: anything that resolves outside the root (`../x`, `/etc/passwd`) is refused, so a checkpoint
 * can never point the agent, or a later restore, outside the project. A path outside the root as written
 * is taken where `real` (its real location) lies in the project: the project named through a link to it.
 * Inside the root as written, no link is followed.
 */
export function toProjectPath(
  root: string,
  given: string,
  field: string,
  { real, shown = (file) => `'${escapeControls(file)}'`, from }: GivenPathOptions = {},
): string {
  // File systems refuse both, and Node's own error would name neither the field nor the limit.
  if (given.includes('\0')) {
    throw new CheckpointError('INVALID_INPUT', `${field} must not contain a NUL character`);
  }
  const tooLong = given.split(/[\\/]/).find((name) => bytesFromText(name).length > MAX_NAME_BYTES);
  if (tooLong !== undefined) {
    throw new CheckpointError(
      'INVALID_INPUT',
      `${field}: each name in a path must be at most ${MAX_NAME_BYTES} bytes (got one of ${bytesFromText(tooLong).length})`,
    );
  }
  const absolute = path.resolve(from ?? root, given);
  const written = path.relative(root, absolute);
  const relative = isOutside(written) && real ? path.relative(root, real.path) : written;
  // A relative path taken from another folder than the root: the error says what it was resolved to.
  const taken =
    from === undefined || path.isAbsolute(given) || from === root
      ? ''
      : ` (taken from the current folder ${escapeControls(from)}: ${shown(absolute)})`;
  if (relative === '') {
    throw new CheckpointError(
      'INVALID_INPUT',
      `${field} must name a file inside the project, not the project root itself: got ${shown(given)}${taken}`,
    );
  }
  if (isOutside(relative)) {
    throw new CheckpointError(
      'OUTSIDE_ROOT',
      real?.isThroughProject
        ? `${field} leads out of the project root ${root} through a symbolic link: got ${shown(given)}${taken}, which is really ${shown(real.path)}`
        : `${field} is outside the project root ${root}: got ${shown(given)}${taken}`,
    );
  }
  return relative.split(path.sep).join('/');
}

function isOutside(relative: string): boolean {
  return relative.startsWith(`..${path.sep}`) || relative === '..' || path.isAbsolute(relative);
}

/** Whether a project path lies in git's own folder (the project's or a nested repository's `.git`). */
export function isInGitFolder(relativePath: string): boolean {
  return relativePath.split('/').includes('.git');
}

/** The longest name of a file or folder the common file systems (ext4, APFS, NTFS) take, in bytes. */
const MAX_NAME_BYTES = 255;

/**
 * Whether a path read from a checkpoint file names something inside the project: relative, no `..`
 * step, no NUL. A save never writes another (toProjectPath), but the file may come from a hand edit or a
 * teammate's handoff, and the brief must not send the agent to `/etc/shadow` or `../../.ssh`.
 */
export function isInsideProjectPath(stored: string, platform: NodeJS.Platform = process.platform): boolean {
  if (stored === '' || stored.includes('\0') || stored.startsWith('/')) return false;
  // As a save reads it on this system: `C:\x` and `e:notes.md` are names like any other on Linux and
  // macOS (a save takes them), an absolute path or a step up only on Windows.
  if (platform !== 'win32') return !stored.split('/').includes('..');
  if (stored.startsWith('\\') || /^[A-Za-z]:/.test(stored)) return false;
  return !stored.split(/[\\/]/).includes('..');
}

/**
 * `inner` relative to `outer` ('' for the same folder) where it is `outer` or lies inside it, else
 * `null`; both absolute and resolved (as path.resolve gives them). On POSIX, path.relative's answer told
 * from the strings: its first call compiles Node's function from source in every process (issue 26).
 * Windows, whose names match in any case, keeps path.relative.
 */
export function pathWithin(outer: string, inner: string): string | null {
  if (path.sep !== '/') {
    const relative = path.relative(outer, inner);
    return relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)
      ? null
      : relative;
  }
  if (inner === outer) return '';
  const base = outer.endsWith('/') ? outer : `${outer}/`;
  return inner.startsWith(base) ? inner.slice(base.length) : null;
}

/** The names this tool writes in the project root; never reported as user changes. */
export const CHECKPOINT_FILE = '.claude-checkpoint';

export function isOwnFile(relativePath: string): boolean {
  return relativePath === CHECKPOINT_FILE || relativePath.startsWith(`${CHECKPOINT_FILE}.`);
}

/** What withoutOutsidePaths reads of a checkpoint (structural: this module imports no schema). */
interface CheckpointPaths {
  modifiedFiles: Array<{ path: string }>;
  meta: { flagged?: { paths: string[] } | undefined };
}

/**
 * The checkpoint without the file paths that name nothing inside the project (`/etc/shadow`, `../x`):
 * a save never writes one, but a hand-edited or handed-off file may hold them, and the brief, drift and
 * the next merge must not carry them on. The same object when there are none.
 */
export function withoutOutsidePaths<T extends CheckpointPaths>(checkpoint: T): T {
  const flagged = checkpoint.meta.flagged;
  const filesOutside = checkpoint.modifiedFiles.some((file) => !isInsideProjectPath(file.path));
  const flaggedOutside = flagged?.paths.some((file) => !isInsideProjectPath(file)) ?? false;
  if (!filesOutside && !flaggedOutside) return checkpoint;
  return {
    ...checkpoint,
    modifiedFiles: checkpoint.modifiedFiles.filter((file) => isInsideProjectPath(file.path)),
    meta: {
      ...checkpoint.meta,
      ...(flagged
        ? { flagged: { ...flagged, paths: flagged.paths.filter((file) => isInsideProjectPath(file)) } }
        : {}),
    },
  };
}
