import { PLACEHOLDER_GOAL } from '../core/merge.js';
import type { TranscriptRecord } from '../core/transcript.js';
import type { AppDeps } from './deps.js';
import { readCheckpoint } from './read-checkpoint.js';
import { type SaveOutcome, saveCheckpoint } from './save.js';

/**
 * Refreshes what the server can know without the agent (git state, dirty files with oids), keeping
 * the agent's goal, tasks and notes: a merge save that repeats the current goal. Files that changed
 * since the agent's last save stay flagged (see `carryFlags`). With a `transcript`, what the agent left
 * empty is filled from it, and the `files` its edit tools wrote (relative to the root) are recorded.
 */
export async function captureFacts(
  deps: AppDeps,
  request: {
    projectRoot?: string | undefined;
    transcript?: TranscriptRecord | undefined;
    files?: readonly string[] | undefined;
    /** Those of `files` the agent wrote since the transcript's last read: not flagged as changed by others. */
    agentWrote?: readonly string[] | undefined;
  },
): Promise<SaveOutcome> {
  // An unusable checkpoint (or root) is reported by the save itself; here it only means no goal to keep.
  const loaded = await readCheckpoint(deps, request).catch(() => null);
  const goal = loaded?.found ? loaded.checkpoint.goal.primary : PLACEHOLDER_GOAL;
  return saveCheckpoint(
    deps,
    {
      goal,
      mode: 'merge',
      projectRoot: loaded?.root.root ?? request.projectRoot,
      ...(request.files?.length ? { modifiedFiles: request.files.map((file) => ({ path: file })) } : {}),
    },
    {},
    { automatic: true, transcript: request.transcript, agentWrote: request.agentWrote },
  );
}
