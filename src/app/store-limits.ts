import type { SettingValues } from '../core/settings.js';

export interface StoreLimits {
  /** One project's store, in bytes; `Infinity` when off. */
  maxBytes: number;
  /** Every project's store together, in bytes; `Infinity` when off. */
  totalMaxBytes: number;
}

/**
 * The store's size caps (settings `storeMaxMb`, `storeTotalMaxMb`: sized for a laptop, 2 GB a project and
 * 10 GB in all), in bytes; `0` turns a cap off.
 */
export function storeLimits(settings: Pick<SettingValues, 'storeMaxMb' | 'storeTotalMaxMb'>): StoreLimits {
  const bytes = (megabytes: number) =>
    megabytes === 0 ? Number.POSITIVE_INFINITY : Math.floor(megabytes * 1024 * 1024);
  return { maxBytes: bytes(settings.storeMaxMb), totalMaxBytes: bytes(settings.storeTotalMaxMb) };
}
