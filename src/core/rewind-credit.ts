/**
 * Who changed the files between two snapshots, from the snapshots alone: a session's turn runs from its
 * prompt's snapshot to the snapshot taken when the turn ends; what changed while no turn ran was done
 * outside any agent session (by a person, an editor, a script).
 */

/** The trigger of the snapshot taken when an agent's turn ends (Claude Code's Stop hook, or its equivalent). */
export const TURN_END_TRIGGER = 'turn-end';

/** The trigger of a restore's safety snapshot: restoring it undoes that restore. */
export const PRE_RESTORE_TRIGGER = 'pre-restore';

/**
 * Snapshots that show a turn runs until its end: a prompt, and a command the agent is about to run. A
 * compaction can also be asked for between turns (`/compact`), so it credits only the stretch after it.
 */
const OPENS_TURN = new Set(['prompt', 'pre-command']);

export interface CreditedSnapshot {
  trigger: string;
  sessionId?: string | undefined;
}

/**
 * For each snapshot (oldest first), the sessions whose turn ran in the stretch from it to the next one
 * (the last one's: to the working tree now), sorted; none: the stretch was outside any agent session.
 * A snapshot that names a session credits its stretch to that session whatever its trigger (a prompt, a
 * command about to run, a compaction, a rewind's safety snapshot, whose restore goes back to that
 * session's prompt); only a prompt and a command show that a turn runs on after it. Two sessions whose turns
 * overlap are both credited with what changed while both ran. A session with no turn-end snapshot (an
 * agent whose end-of-turn hook is not wired, snapshots taken before there were any) is credited only
 * with the stretches its own snapshots open: nothing says where its turns ended.
 */
export function creditStretches(oldestFirst: readonly CreditedSnapshot[]): string[][] {
  const marksTurnEnds = new Set(
    oldestFirst.flatMap((snapshot) =>
      snapshot.trigger === TURN_END_TRIGGER && snapshot.sessionId ? [snapshot.sessionId] : [],
    ),
  );
  const running = new Set<string>();
  return oldestFirst.map((snapshot) => {
    const session = snapshot.sessionId;
    if (session && snapshot.trigger === TURN_END_TRIGGER) running.delete(session);
    if (session && OPENS_TURN.has(snapshot.trigger) && marksTurnEnds.has(session)) running.add(session);
    const credited = new Set(running);
    if (session && snapshot.trigger !== TURN_END_TRIGGER) credited.add(session);
    return [...credited].sort();
  });
}
