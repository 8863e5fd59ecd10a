import { CheckpointError } from '../core/errors.js';
import type { Surface } from '../core/surface.js';
import { nodeFs, type StoreFs } from '../store/fs-seam.js';
import { KeyedQueue } from '../store/lock.js';

/** Everything a use case needs from the outside world, so tests can pin time, ids and faults. */
export interface AppDeps {
  now: () => Date;
  newId: () => string;
  fs: StoreFs;
  env: NodeJS.ProcessEnv;
  cwd: () => string;
  /** Serializes calls per project within this process. */
  queue: KeyedQueue;
  /** Whose words messages use (see core/surface.ts): the CLI sets its own; the MCP tools' and hooks' are the default. */
  surface: Surface;
  /** The `--root` the CLI was given (absolute): every command its messages print carries it over. */
  commandRoot?: string | undefined;
  /** How errors name a project root given as an argument, when not the surface's word: a hook names where its root came from. */
  rootArgument?: string | undefined;
  /**
   * Set by hooks: a root that is no project is answered with what a hook's user can change (the folder
   * the agent runs in, CHECKPOINT_PROJECT_ROOT), never with the tools' projectRoot.
   */
  isHook?: boolean | undefined;
  /** Set by hooks; see SettingsDeps in store/settings-file.ts. */
  settingsProblem?: ((message: string) => void) | undefined;
  /** Set by the CLI's commands; see SettingsDeps in store/settings-file.ts. */
  settingsWarning?: ((message: string) => void) | undefined;
}

export function defaultDeps(overrides: Partial<AppDeps> = {}): AppDeps {
  return {
    now: () => new Date(),
    // The global Web Crypto loads on first use: most hooks never make an id.
    newId: () => globalThis.crypto.randomUUID(),
    fs: nodeFs,
    env: process.env,
    cwd: currentFolder,
    queue: new KeyedQueue(),
    surface: 'mcp',
    ...overrides,
  };
}

/** The working directory; one deleted or moved away under the process gets an error that says so. */
function currentFolder(): string {
  try {
    return process.cwd();
  } catch (error) {
    throw new CheckpointError(
      'INVALID_ROOT',
      'the current folder no longer exists (deleted or moved): run from the project folder, or name the project root',
      { cause: error },
    );
  }
}
