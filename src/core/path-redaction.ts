// The secret detector's path redaction, where this process holds the detector. A checkpoint lists a
// file whose name holds a token redacted (core/redact.ts, redactPath), with no oid; the drift check tells
// such a file from the changed ones by redacting their names the same way (app/drift.ts). `status`'s
// short bundle leaves the detector out (issue 26): there, no redaction is offered, and such a file is
// shown as changed rather than every changed file that might match it hidden (review of 2026-12-07).

/** Loads the detector's path redaction (the detector is large: loaded only when needed). */
export type PathRedactionLoader = () => Promise<(file: string) => string>;

let loadRedaction: PathRedactionLoader | null = null;

/** Offered by the entry points that hold the detector: the whole CLI, the MCP server, the hooks' main bundle. */
export function offerPathRedaction(load: PathRedactionLoader): void {
  loadRedaction = load;
}

/** The path redaction on offer in this process, loaded, or `null`. */
export async function offeredPathRedaction(): Promise<((file: string) => string) | null> {
  return loadRedaction ? loadRedaction() : null;
}
