import { appendCommands, PLACEHOLDER_GOAL } from '../core/merge.js';
import { CheckpointStore } from '../store/checkpoint-store.js';
import type { AppDeps } from './deps.js';
import { readCheckpoint } from './load.js';
import { loadRedactionConfig } from './redaction.js';
import { resolveProjectRoot } from './root.js';
import { type SaveOutcome, saveCheckpoint } from './save.js';

export interface CommandRecord {
  command: string;
  exitCode?: number | undefined;
  note?: string | undefined;
}

/**
 * Adds commands to the checkpoint, for hooks that see every shell command. An existing checkpoint is
 * only appended to (cheap: no git); without one, a checkpoint is started with the git facts and a
 * placeholder goal, so the facts exist even when the agent never saved.
 */
export async function recordCommands(
  deps: AppDeps,
  request: { projectRoot?: string | undefined; commands: readonly CommandRecord[] },
): Promise<{ created: boolean; redactions: number }> {
  const { root } = await resolveProjectRoot({
    argument: request.projectRoot,
    env: deps.env,
    cwd: deps.cwd(),
  });
  const store = new CheckpointStore(root, deps.fs);
  const appended = await deps.queue.run(root, () =>
    store.withLock(async () => {
      const loaded = await store.load();
      if (!loaded.found) return null;
      const redaction = await loadRedactionConfig(deps.fs, deps.env, root);
      const result = appendCommands(loaded.checkpoint, request.commands, deps.now(), redaction.config);
      await store.writeLocked(result.serialized);
      return { created: false, redactions: result.redactions };
    }),
  );
  if (appended) return appended;
  const saved = await saveCheckpoint(deps, {
    goal: PLACEHOLDER_GOAL,
    mode: 'merge',
    projectRoot: root,
    recentCommands: request.commands.map((command) => ({
      command: command.command.slice(0, 2000),
      ...(command.exitCode !== undefined ? { exitCode: command.exitCode } : {}),
      ...(command.note !== undefined ? { note: command.note.slice(0, 500) } : {}),
    })),
  });
  return { created: true, redactions: saved.counts.redactions };
}

/**
 * Refreshes what the server can know without the agent (git state, dirty files with oids), keeping
 * the agent's goal, tasks and notes: a merge save that repeats the current goal. Files that changed
 * since the agent's last save stay flagged (see `carryFlags`).
 */
export async function captureFacts(
  deps: AppDeps,
  request: { projectRoot?: string | undefined },
): Promise<SaveOutcome> {
  // An unusable checkpoint (or root) is reported by the save itself; here it only means no goal to keep.
  const loaded = await readCheckpoint(deps, request).catch(() => null);
  const goal = loaded?.found ? loaded.checkpoint.goal.primary : PLACEHOLDER_GOAL;
  return saveCheckpoint(
    deps,
    { goal, mode: 'merge', projectRoot: loaded?.root.root ?? request.projectRoot },
    {},
    { automatic: true },
  );
}
