import { statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { SnapshotRecord, SnapshotSettings } from '../core/snapshot.js';
import { compareAscii } from '../core/text.js';
import { readSettings } from '../store/settings-file.js';
import { SnapshotStore } from '../store/snapshot-store.js';
import { defaultStoreBase } from '../store/store-location.js';
import {
  estimatedBytes,
  listProjectStores,
  readUsage,
  type StoreUsage,
  writeUsage,
} from '../store/store-usage.js';
import { type StoreLimits, storeLimits } from './store-limits.js';

/**
 * The store's size caps, enforced by retention oldest first: one project's store (CHECKPOINT_STORE_MAX_MB)
 * and all projects' stores together (CHECKPOINT_STORE_TOTAL_MAX_MB). A store past its cap is trimmed to
 * TRIM_TO of it, so that the snapshots right after do not trim again at once.
 */
export const TRIM_TO = 0.9;

/**
 * When what the size cap never deletes is itself over the cap, the store keeps beyond it the newest
 * snapshots that fit in this share of the cap, and the next trim is due only when twice that was added:
 * trimming to that floor on every snapshot kept one snapshot to go back to and ran a full gc after each
 * prompt (daily-use trial).
 */
export const OVER_FLOOR_SHARE = (1 - TRIM_TO) / 2;

/** The size past which a store is due for a trim: its cap, or above the floor its last trim found. */
export function capDueBytes(usage: Pick<StoreUsage, 'floorBytes'>, maxBytes: number): number {
  if (usage.floorBytes === undefined) return maxBytes;
  return Math.max(maxBytes, usage.floorBytes + Math.floor(maxBytes * OVER_FLOOR_SHARE * 2));
}

/**
 * What is never deleted to make room: the newest snapshot (there is always something to go back to),
 * the undo of the latest restore (its `pre-restore` snapshot), and the undo an interrupted restore names.
 */
export function protectedIds(
  newestFirst: readonly SnapshotRecord[],
  journalUndo: string | null,
): Set<string> {
  const kept = new Set<string>();
  const newest = newestFirst[0];
  if (newest) kept.add(newest.id);
  const lastUndo = newestFirst.find((snapshot) => snapshot.trigger === 'pre-restore');
  if (lastUndo) kept.add(lastUndo.id);
  if (journalUndo) kept.add(journalUndo);
  return kept;
}

/** A snapshot size retention may delete, with what deleting it (and every older one) frees. */
export interface TrimCandidate {
  id: string;
  createdAt: string;
  bytes: number;
}

/**
 * The snapshots of one store that size retention may delete, oldest first, each with the bytes it adds
 * to the store beyond the protected ones and every newer one. Call it holding the store's lock.
 */
export async function trimCandidates(store: SnapshotStore): Promise<TrimCandidate[]> {
  const snapshots = await store.list();
  const kept = protectedIds(snapshots, await store.pendingUndo());
  const order = [
    ...snapshots.filter((snapshot) => kept.has(snapshot.id)),
    ...snapshots.filter((snapshot) => !kept.has(snapshot.id)),
  ];
  const bytes = await store.footprints(order);
  return snapshots
    .filter((snapshot) => !kept.has(snapshot.id))
    .reverse()
    .map((snapshot) => ({
      id: snapshot.id,
      createdAt: snapshot.createdAt,
      bytes: bytes.get(snapshot.id) ?? 0,
    }));
}

/** Oldest first, as many as needed to bring `totalBytes` down to `targetBytes`. */
export function selectForSize<T extends { createdAt: string; id: string; bytes: number }>(
  oldestFirst: readonly T[],
  totalBytes: number,
  targetBytes: number,
): T[] {
  const chosen: T[] = [];
  let total = totalBytes;
  const sorted = [...oldestFirst].sort(
    (a, b) => compareAscii(a.createdAt, b.createdAt) || compareAscii(a.id, b.id),
  );
  for (const candidate of sorted) {
    if (total <= targetBytes) break;
    chosen.push(candidate);
    total -= candidate.bytes;
  }
  return chosen;
}

/**
 * Deletes snapshots, then the content only they held, and records the size measured after. Call it
 * holding the store's lock.
 */
async function removeAndCollect(
  store: SnapshotStore,
  ids: readonly string[],
  now: Date,
): Promise<{ afterBytes: number }> {
  await store.remove(ids);
  const { afterBytes } = await store.gc();
  writeUsage(store.storeDir, {
    measuredBytes: afterBytes,
    measuredAt: now.toISOString(),
    addedBytes: 0,
    unpackedSnapshots: 0,
  });
  return { afterBytes };
}

/**
 * Brings one project's store under its cap, given its size just measured by gc; returns how many
 * snapshots that deleted, the size after, and whether the store is still over its cap with every
 * snapshot the size cap may delete deleted (`isOverCap`, recorded as `floorBytes`). Holding the store's lock.
 */
export async function trimProjectToCap(
  store: SnapshotStore,
  maxBytes: number,
  measuredBytes: number,
  now: Date,
): Promise<{ trimmed: number; afterBytes: number; isOverCap: boolean }> {
  let trimmed = 0;
  let size = measuredBytes;
  // Whether what is left is all the cap may take: no candidate left, or what none of them holds is over it.
  let isAtFloor = false;
  // Twice at most: the second pass catches what the first one's estimate of a repack missed.
  for (let pass = 0; pass < 2 && size > maxBytes; pass++) {
    const candidates = await trimCandidates(store);
    // What would be left with every candidate gone: over the cap, the newest that fit a margin stay.
    const floorBytes = size - candidates.reduce((sum, candidate) => sum + candidate.bytes, 0);
    const isFloorOver = floorBytes > maxBytes * TRIM_TO;
    // The margin above that part never takes the target over the cap, unless that part itself is over it
    // (review B: between 90% and 100% of the cap, gc stopped over it and said to raise it).
    const margin = floorBytes + Math.floor(maxBytes * OVER_FLOOR_SHARE);
    const target = !isFloorOver
      ? Math.floor(maxBytes * TRIM_TO)
      : floorBytes > maxBytes
        ? margin
        : Math.min(maxBytes, margin);
    const chosen = selectForSize(candidates, size, target);
    isAtFloor = floorBytes > maxBytes || chosen.length === candidates.length;
    if (chosen.length === 0) break;
    ({ afterBytes: size } = await removeAndCollect(
      store,
      chosen.map((candidate) => candidate.id),
      now,
    ));
    trimmed += chosen.length;
  }
  const isOverCap = size > maxBytes && isAtFloor;
  // What is left is what the cap never deletes (and the margin above it): say so where `doctor` and the
  // next snapshot's "is a trim due" read it (daily-use trial).
  const usage = readUsage(store.storeDir);
  if (isOverCap && usage) writeUsage(store.storeDir, { ...usage, floorBytes: size });
  return { trimmed, afterBytes: size, isOverCap };
}

/** One project's store in the whole-store accounting. */
export interface ProjectUsage {
  storeDir: string;
  root: string | null;
  /** Measured by the last gc plus an upper bound of what was added since; `null` when never measured. */
  bytes: number | null;
  /** Whether the project's folder still exists (`null`: the store does not say which folder it is). */
  rootExists: boolean | null;
}

/**
 * Every project's store and its size from the cached figures: no walk. One stat per project, synchronous
 * (`status` shows this, and otherwise never loads `fs/promises`).
 */
export async function wholeStoreUsage(
  base: string,
): Promise<{ projects: ProjectUsage[]; totalBytes: number }> {
  const projects = listProjectStores(base).map((entry) => ({
    storeDir: entry.storeDir,
    root: entry.root,
    bytes: entry.usage ? estimatedBytes(entry.usage) : null,
    rootExists: entry.root === null ? null : isFolder(entry.root),
  }));
  return { projects, totalBytes: projects.reduce((sum, project) => sum + (project.bytes ?? 0), 0) };
}

function isFolder(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** Whether the stores together are over the whole-store cap, from the cached figures (cheap: no walk). */
export function totalOverCap(base: string, limits: StoreLimits): boolean {
  if (limits.totalMaxBytes === Number.POSITIVE_INFINITY) return false;
  let total = 0;
  for (const entry of listProjectStores(base)) total += entry.usage ? estimatedBytes(entry.usage) : 0;
  return total > limits.totalMaxBytes;
}

/**
 * Brings all projects' stores together under the whole-store cap: first each store's figure is made
 * exact (measured), then the oldest snapshots of all projects go first, whichever project they belong
 * to, each project keeping what protectedIds keeps. One store's lock at a time.
 */
export async function trimWholeStore(
  base: string,
  limits: StoreLimits,
  settings: SnapshotSettings,
  now: Date,
): Promise<Array<{ root: string; trimmed: number }>> {
  if (!totalOverCap(base, limits)) return [];
  const stores = listProjectStores(base)
    .filter((entry) => entry.root !== null)
    .map((entry) => new SnapshotStore(entry.root as string, entry.storeDir, settings));
  // Estimates are upper bounds: measure before deleting anything for them.
  let total = 0;
  const candidates: Array<TrimCandidate & { store: SnapshotStore }> = [];
  for (const store of stores) {
    if (!(await store.exists())) continue;
    await store.withLock(async () => {
      const usage = readUsage(store.storeDir);
      let bytes = usage?.measuredBytes ?? 0;
      if (!usage || usage.addedBytes > 0) {
        bytes = await store.sizeBytes();
        // Measured, not packed: the snapshots since the last pack still count.
        writeUsage(store.storeDir, {
          measuredBytes: bytes,
          measuredAt: now.toISOString(),
          addedBytes: 0,
          unpackedSnapshots: usage?.unpackedSnapshots ?? 0,
        });
      }
      total += bytes;
      for (const candidate of await trimCandidates(store)) candidates.push({ ...candidate, store });
    });
  }
  // What no store lists (a store whose set-up never finished) still counts.
  for (const entry of listProjectStores(base))
    if (entry.root === null) total += entry.usage?.measuredBytes ?? 0;
  if (total <= limits.totalMaxBytes) return [];
  const chosen = selectForSize(candidates, total, Math.floor(limits.totalMaxBytes * TRIM_TO));
  const outcome: Array<{ root: string; trimmed: number }> = [];
  for (const store of stores) {
    const ids = chosen.filter((candidate) => candidate.store === store).map((candidate) => candidate.id);
    if (ids.length === 0) continue;
    await store.withLock(() => removeAndCollect(store, ids, now));
    outcome.push({ root: store.root, trimmed: ids.length });
  }
  return outcome;
}

/**
 * Deletes the store of a project whose folder no longer exists. No lock: nothing can snapshot a folder
 * that is not there, and the lock would go with the store anyway.
 */
export async function removeOrphanStore(storeDir: string): Promise<void> {
  // Security: only a folder directly under the store's projects folder.
  if (path.basename(path.dirname(storeDir)) !== 'projects') return;
  await rm(storeDir, { recursive: true, force: true });
}

export interface WholeStoreReport {
  base: string;
  totalBytes: number;
  projects: number;
  /** Stores of projects whose folder no longer exists: `gc --all` deletes them. */
  orphans: Array<{ root: string; bytes: number | null }>;
  /** `null` when the cap is off. */
  maxBytes: number | null;
  totalMaxBytes: number | null;
}

/**
 * Disk use of the whole store, from each store's cached figure (measured by its last gc, plus an upper
 * bound of what was added since): no walk, so `status` stays quick on stores of any size. A wrong cap
 * setting shows as the value below it (`doctor` names it).
 */
export async function storeDiskUse(env: NodeJS.ProcessEnv): Promise<WholeStoreReport> {
  const base = defaultStoreBase(env);
  const { projects, totalBytes } = await wholeStoreUsage(base);
  const limits = storeLimits(readSettings(env).values);
  const finite = (bytes: number) => (Number.isFinite(bytes) ? bytes : null);
  return {
    base,
    totalBytes,
    projects: projects.length,
    orphans: projects
      .filter((project) => project.rootExists === false)
      .map((project) => ({ root: project.root as string, bytes: project.bytes })),
    maxBytes: finite(limits.maxBytes),
    totalMaxBytes: finite(limits.totalMaxBytes),
  };
}
