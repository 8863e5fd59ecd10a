import { randomUUID } from 'node:crypto';
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
}

export function defaultDeps(overrides: Partial<AppDeps> = {}): AppDeps {
  return {
    now: () => new Date(),
    newId: randomUUID,
    fs: nodeFs,
    env: process.env,
    cwd: () => process.cwd(),
    queue: new KeyedQueue(),
    ...overrides,
  };
}
