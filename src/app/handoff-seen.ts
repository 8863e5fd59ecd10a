import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { remoteUrl } from '../git/handoff-remote.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import { nodeFs } from '../store/fs-seam.js';
import type { SnapshotStore } from '../store/snapshot-store.js';
import { ensurePrivateDirs } from '../store/store-setup.js';

/** Where this machine remembers each handoff ref as it last pushed or pulled it. */
const SEEN_FILE = 'handoffs-seen.json';

/**
 * This machine's record of one handoff on one remote: the commit it last pushed or pulled there, which a
 * push expects to find (else the handoff is someone else's). The remote is known by its URL as git
 * resolves it (`insteadOf` applied), not by its name: a trial's `git remote rename origin upstream` had
 * this machine's own handoff refused as another machine's. After a URL changes (`git remote set-url`, a
 * new `insteadOf`), a push still knows the handoff there by its commit (see `everywhere`). Records that
 * versions before this one keyed by the remote's name are still read, so an upgrade refuses no push.
 */
export async function handoffSeen(store: SnapshotStore, root: string, remote: string, ref: string) {
  // `url:` cannot start a remote's name (no `:` in one), so no key of the older form reads as one of these.
  const key = `url:${await remoteUrl(root, remote)}\n${ref}`;
  const byName = `${remote}\n${ref}`;
  return {
    /** The commit this machine last pushed or pulled there, or null when it never did. */
    async last(): Promise<string | null> {
      const seen = await readSeen(store);
      return seen[key] ?? seen[byName] ?? null;
    },
    /** Every commit this machine remembers for this handoff's name, on any remote (any URL, any name). */
    async everywhere(): Promise<string[]> {
      const seen = await readSeen(store);
      return Object.entries(seen).flatMap(([at, commit]) => (at.endsWith(`\n${ref}`) ? [commit] : []));
    },
    /** Remembers `commit` (null: the handoff is gone), and drops the older record by name. */
    async remember(commit: string | null): Promise<void> {
      const seen = await readSeen(store);
      delete seen[byName];
      if (commit === null) delete seen[key];
      else seen[key] = commit;
      await writeSeen(store, seen);
    },
  };
}

async function readSeen(store: SnapshotStore): Promise<Record<string, string>> {
  try {
    return JSON.parse(await fsp.readFile(path.join(store.storeDir, SEEN_FILE), 'utf8')) as Record<
      string,
      string
    >;
  } catch {
    return {};
  }
}

async function writeSeen(store: SnapshotStore, seen: Record<string, string>): Promise<void> {
  // The store may not exist yet (a drop in a fresh clone): its folders first, owner-only.
  await ensurePrivateDirs([
    path.dirname(path.dirname(store.storeDir)),
    path.dirname(store.storeDir),
    store.storeDir,
  ]);
  writeFileAtomic(nodeFs, path.join(store.storeDir, SEEN_FILE), `${JSON.stringify(seen)}\n`, {
    durable: false,
  });
}
