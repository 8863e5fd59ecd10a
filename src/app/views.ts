import type { LoadOutcome } from './load.js';
import type { SaveOutcome } from './save.js';

/** The structured result of a save, as the MCP tool returns it and the CLI prints with --json. */
export function saveStructured(outcome: SaveOutcome) {
  return {
    path: outcome.path,
    bytes: outcome.bytes,
    mode: outcome.mode,
    counts: outcome.counts,
    warnings: outcome.warnings,
  };
}

/** The structured result of a load that found a checkpoint, the brief included; `full` adds the checkpoint itself. */
export function loadStructured(outcome: Extract<LoadOutcome, { found: true }>, full: boolean) {
  return {
    found: true,
    path: outcome.path,
    fromBackup: outcome.fromBackup,
    updatedAt: outcome.checkpoint.updatedAt,
    drift: outcome.drift,
    warnings: outcome.warnings,
    brief: outcome.brief,
    ...(full ? { checkpoint: outcome.checkpoint } : {}),
  };
}
