import path from 'node:path';
import { CheckpointError } from './errors.js';

/**
 * Turns a path given by the agent into the project-relative, `/`-separated form stored in the file.
 * Security: anything that resolves outside the root (`../x`, `/etc/passwd`) is refused, so a checkpoint
 * can never point the agent, or a later restore, outside the project.
 */
export function toProjectPath(root: string, given: string, field: string): string {
  const absolute = path.resolve(root, given);
  const relative = path.relative(root, absolute);
  if (relative === '') {
    throw new CheckpointError(
      'INVALID_INPUT',
      `${field} must name a file inside the project, not the project root itself: got '${given}'`,
    );
  }
  if (relative.startsWith(`..${path.sep}`) || relative === '..' || path.isAbsolute(relative)) {
    throw new CheckpointError('OUTSIDE_ROOT', `${field} is outside the project root ${root}: got '${given}'`);
  }
  return relative.split(path.sep).join('/');
}

/** The names this tool writes in the project root; never reported as user changes. */
export const CHECKPOINT_FILE = '.claude-checkpoint';

export function isOwnFile(relativePath: string): boolean {
  return relativePath === CHECKPOINT_FILE || relativePath.startsWith(`${CHECKPOINT_FILE}.`);
}
