// The secret detector's path redaction, where this process holds the detector. A checkpoint lists a
// file whose name holds a token redacted (core/redact.ts, redactPath), with no oid; the drift check tells
// such a file from the changed ones by redacting their names the same way (app/drift.ts). `status`'s
// short bundle leaves the detector out (issue 26): there, no redaction is offered, and such a file is
// shown as changed rather than every changed file that might match it hidden (review of 2026-12-07).

let redactListedPath: ((file: string) => string) | null = null;

/** Offered by the entry points that hold the detector: the whole CLI, the MCP server, the hooks' main bundle. */
export function offerPathRedaction(redact: (file: string) => string): void {
  redactListedPath = redact;
}

/** The path redaction on offer in this process, or `null`. */
export function offeredPathRedaction(): ((file: string) => string) | null {
  return redactListedPath;
}
