import { isPlainlyValid, migrateCheckpoint, parseCheckpointJson } from './checkpoint-plain.js';
import { isInsideProjectPath } from './paths.js';
import type { Checkpoint } from './schema.js';

/**
 * JSON text to a current-version checkpoint when it passes the plain check, else `null` (the zod schema
 * decides). Loads no zod: the schema's module is imported for its type only.
 */
export function parseCheckpointPlainly(text: string): Checkpoint | null {
  const migrated = migrateCheckpoint(parseCheckpointJson(text));
  return isPlainlyValid(migrated) ? withoutOutsidePaths(migrated as Checkpoint) : null;
}

/**
 * The checkpoint without the file paths that name nothing inside the project (`/etc/shadow`, `../x`):
 * a save never writes one, but a hand-edited or handed-off file may hold them, and the brief, drift and
 * the next merge must not carry them on. The same object when there are none.
 */
export function withoutOutsidePaths(checkpoint: Checkpoint): Checkpoint {
  const flagged = checkpoint.meta.flagged;
  const filesOutside = checkpoint.modifiedFiles.some((file) => !isInsideProjectPath(file.path));
  const flaggedOutside = flagged?.paths.some((file) => !isInsideProjectPath(file)) ?? false;
  if (!filesOutside && !flaggedOutside) return checkpoint;
  return {
    ...checkpoint,
    modifiedFiles: checkpoint.modifiedFiles.filter((file) => isInsideProjectPath(file.path)),
    meta: {
      ...checkpoint.meta,
      ...(flagged ? { flagged: { ...flagged, paths: flagged.paths.filter(isInsideProjectPath) } } : {}),
    },
  };
}
