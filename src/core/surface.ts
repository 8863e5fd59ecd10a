/**
 * Who reads a message: a person at the CLI, or a model through the MCP tools (and the hooks, whose
 * output reaches the model). Each is told its own words, the CLI's commands and flags or the tools'
 * names and parameters, never the other's (issue 26).
 */
export type Surface = 'cli' | 'mcp';

/** The same pointers, in each surface's words. */
export interface SurfaceWords {
  /** How to save a checkpoint. */
  saveCheckpoint: string;
  /** How to take a snapshot. */
  takeSnapshot: string;
  /** How to apply a restore that was only planned. */
  applyRestore: string;
  /** The argument that names the project root. */
  projectRoot: string;
  /** Where to see the snapshots. */
  listSnapshots: string;
  /** How to bring files back from snapshot `id`. */
  restore: (id: string) => string;
  /** How to read the whole checkpoint, when the brief shows part of it. */
  loadFull: string;
  /** How to apply a restore of snapshot `id` at once: the undo of a pull. */
  restoreNow: (id: string) => string;
  /** How to pull a handoff made on another commit: check that commit out first. */
  pullCheckout: string;
  /** How to push a handoff past the secret scan. */
  allowSecrets: string;
  /** The argument that names a snapshot's trigger. */
  trigger: string;
  /** The `index`th path of a restore. */
  restorePath: (index: number) => string;
}

export const WORDS: Readonly<Record<Surface, SurfaceWords>> = {
  cli: {
    saveCheckpoint: '`claude-checkpoint save`',
    takeSnapshot: '`claude-checkpoint snapshot`',
    applyRestore: 'Run the same command with --yes (or answer y on a terminal) to apply it.',
    projectRoot: '--root',
    listSnapshots: '`claude-checkpoint list`',
    restore: (id) => `\`claude-checkpoint restore ${id}\``,
    loadFull: '`claude-checkpoint load --format full`',
    restoreNow: (id) => `claude-checkpoint restore ${id} --yes`,
    pullCheckout: 'pull with --checkout',
    allowSecrets: 'pass --allow-secrets',
    trigger: '--trigger',
    restorePath: () => 'path',
  },
  mcp: {
    saveCheckpoint: 'save_session_checkpoint',
    takeSnapshot: 'snapshot_files',
    applyRestore: 'Run restore_snapshot again with dryRun: false to apply it.',
    projectRoot: 'projectRoot',
    listSnapshots: 'list_snapshots',
    restore: () => 'restore_snapshot',
    loadFull: 'load with format "full"',
    restoreNow: (id) => `restore_snapshot ${id} (dryRun: false)`,
    // The tools never check out a commit nor push past the scan: those choices stay with a person
    // (see mcp/handoff-tools.ts).
    pullCheckout: 'a person can pull with `claude-checkpoint handoff pull --checkout`',
    allowSecrets: 'a person can push with `claude-checkpoint handoff push --allow-secrets`',
    trigger: 'trigger',
    restorePath: (index) => `paths[${index}]`,
  },
};
