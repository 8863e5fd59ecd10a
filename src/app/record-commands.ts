import { appendCommands, PLACEHOLDER_GOAL } from '../core/merge.js';
import { CheckpointStore } from '../store/checkpoint-store.js';
import type { AppDeps } from './deps.js';
import { loadRedactionConfig } from './redaction.js';
import { resolveProjectRoot } from './root.js';

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
  // Only a first command in a project pays for loading the full save (git, hashing, merge).
  const { saveCheckpoint } = await import('./save.js');
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
