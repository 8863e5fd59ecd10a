import { isPlainlyValid, migrateCheckpoint, parseCheckpointJson } from './checkpoint-plain.js';
import { withoutOutsidePaths } from './paths.js';
import type { Checkpoint } from './schema.js';

/**
 * JSON text to a current-version checkpoint when it passes the plain check, else `null` (the zod schema
 * decides). Loads no zod: the schema's module is imported for its type only.
 */
export function parseCheckpointPlainly(text: string): Checkpoint | null {
  const migrated = migrateCheckpoint(parseCheckpointJson(text));
  return isPlainlyValid(migrated) ? withoutOutsidePaths(migrated as Checkpoint) : null;
}
