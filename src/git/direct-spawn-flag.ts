// Whether this process runs git on libuv's handles (spawn-direct.ts) rather than node:child_process. Only
// the CLI's processes ask for it, each a fresh `node` whose start it shortens (issue 26); a long-lived
// process (the MCP server, a hook host) and everything else keeps child_process, which it pays for once.
// A flag on the global object: the CLI's loader sets it, and the bundles it then runs read it.

const DIRECT_SPAWN = Symbol.for('claude-checkpoint.direct-spawn');

/** Lets this process run git on libuv's handles. */
export function allowDirectSpawn(): void {
  (globalThis as Record<symbol, unknown>)[DIRECT_SPAWN] = true;
}

export function isDirectSpawnAllowed(): boolean {
  return (globalThis as Record<symbol, unknown>)[DIRECT_SPAWN] === true;
}
