import { CheckpointError } from '../core/errors.js';

export const STORE_LIMIT_ENV = {
  maxMb: 'CHECKPOINT_STORE_MAX_MB',
  totalMaxMb: 'CHECKPOINT_STORE_TOTAL_MAX_MB',
} as const;

/** Sized for a laptop: one project's snapshots may take 2 GB, all projects together 10 GB. */
export const STORE_LIMIT_DEFAULTS = { maxMb: 2048, totalMaxMb: 10240 } as const;

export interface StoreLimits {
  /** One project's store, in bytes; `Infinity` when off. */
  maxBytes: number;
  /** Every project's store together, in bytes; `Infinity` when off. */
  totalMaxBytes: number;
}

/** The store's size caps, from the environment or the defaults; `0` turns a cap off. */
export function storeLimits(env: NodeJS.ProcessEnv): StoreLimits {
  const read = (name: string, fallback: number) => {
    const raw = env[name]?.trim();
    if (!raw) return fallback * 1024 * 1024;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0) {
      throw new CheckpointError(
        'INVALID_INPUT',
        `${name} must be a number of megabytes, 0 or more (0 turns the cap off): got '${raw}'`,
      );
    }
    return value === 0 ? Number.POSITIVE_INFINITY : Math.floor(value * 1024 * 1024);
  };
  return {
    maxBytes: read(STORE_LIMIT_ENV.maxMb, STORE_LIMIT_DEFAULTS.maxMb),
    totalMaxBytes: read(STORE_LIMIT_ENV.totalMaxMb, STORE_LIMIT_DEFAULTS.totalMaxMb),
  };
}
