import { nodeBinding } from '../../src/git/node-binding.js';
import { isTestedSpawn } from '../../src/git/spawn-direct.js';

/**
 * Whether the CLI runs git on libuv's handles on this machine (src/git/spawn-direct.ts): Linux or macOS,
 * on a Node it was tested on. Elsewhere it runs git through child_process, and the tests say so.
 */
export const DIRECT_SPAWN_HERE =
  process.platform !== 'win32' &&
  isTestedSpawn(process.versions.node, nodeBinding<Record<string, unknown>>('process_wrap'));
