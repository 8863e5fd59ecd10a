/** Where handoffs live on the remote: outside refs/heads and refs/tags, so no branch appears and no CI runs. */
export const HANDOFF_REFS = 'refs/claude-checkpoint/handoff/';

/**
 * The message of a handoff's commit: a subject line, a blank line, then the metadata as JSON with one
 * field a line. One field a line so that nothing the user wrote (the goal, the branch) shares a line with
 * the ids, oids and times the tool writes: the secret gate reads the message line by line, and took those
 * for a value a sentence names as a secret ("Fix the token refresh", trial of issue 26). Readers parse
 * everything after the subject as JSON, so a message of the earlier one-line form reads the same.
 */
export function handoffMessage(name: string, meta: { checkpoint: string | null }): string {
  return `claude-checkpoint handoff ${name}\n\n${JSON.stringify(meta, null, 2)}\n`;
}

/**
 * A handoff's message for the secret gate, with the line that holds `checkpoint` (the checkpoint file as
 * one JSON string: its ids, oids and times on one line with its goal) emptied: the gate scans that file
 * itself, line by line as it is written. Other lines keep their numbers. The message as it is when no
 * line holds exactly that checkpoint (a message this tool did not write so).
 */
export function messageForScan(message: string, checkpoint: string | null): string {
  if (checkpoint === null) return message;
  const line = `  "checkpoint": ${JSON.stringify(checkpoint)}`;
  return message
    .split('\n')
    .map((text) => (text === line || text === `${line},` ? '  "checkpoint": ""' : text))
    .join('\n');
}

/**
 * Which field of a handoff's metadata a line of its message holds, for a finding the secret gate makes
 * there: the top-level JSON key the line is under (`name`, `branch`, `author`, `goal`, `leftOut`, ...),
 * and for a line of `leftOut` the path it names. Null for the subject line or a line outside the JSON.
 */
export function messageFieldAt(message: string, line: number): { field: string; path?: string } | null {
  const lines = message.split('\n');
  for (let at = line - 1; at >= 2 && at < lines.length; at--) {
    const key = /^ {2}"([^"]+)":/.exec(lines[at] ?? '')?.[1];
    if (key === undefined) continue;
    if (key !== 'leftOut') return { field: key };
    const pathValue = /^\s*"path": (".*?"),?$/.exec(lines[line - 1] ?? '')?.[1];
    const path = pathValue === undefined ? undefined : parseString(pathValue);
    return path === undefined ? { field: key } : { field: key, path };
  }
  return null;
}

function parseString(json: string): string | undefined {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
