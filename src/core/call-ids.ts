// Tool-call ids (issue 26): the same hook delivered twice (two scopes set up, an agent that retries) records
// its command once. Kept apart from merge.ts, which redacts: the short path's journal merge uses these
// without loading the secret detector.
import type { RecentCommand } from './schema.js';

/** A tool call's id as agents write them (`toolu_01…`, `call_…`, OpenCode's `…`): printable, no spaces. */
export function isCallId(value: string): boolean {
  return /^[\x21-\x7e]{1,200}$/.test(value);
}

/**
 * `commands` without those the list holds already, or that come twice among them: the same tool call
 * (its id), the same command and the same outcome. The command and the outcome are compared too, so an
 * agent whose provider reuses call ids (some number them per message) never loses a command.
 */
export function withoutRepeatedCalls(
  listed: readonly RecentCommand[],
  commands: readonly RecentCommand[],
): RecentCommand[] {
  const key = (entry: RecentCommand) =>
    entry.callId === undefined
      ? undefined
      : JSON.stringify([entry.callId, entry.command, entry.exitCode ?? null]);
  const seen = new Set(listed.map(key).filter((value) => value !== undefined));
  const kept: RecentCommand[] = [];
  for (const command of commands) {
    const id = key(command);
    if (id !== undefined && seen.has(id)) continue;
    if (id !== undefined) seen.add(id);
    kept.push(command);
  }
  return kept;
}
