import * as fsp from 'node:fs/promises';
import path from 'node:path';
import type { CheckpointFiles } from './checkpoint-store.js';
import type { AsideContent, KeptLeaf } from './restore-guard.js';
import type { StoreGit } from './store-git.js';
import { uniqueSuffix } from './temp-name.js';

/** The first line of an aside commit's message: only a parent that says so is read as one. */
const ASIDE_MARK = 'claude-checkpoint aside';

/**
 * Copies paths no snapshot holds into the store, before a restore changes them, as one commit: its tree
 * holds the files (modes and symlinks as git keeps them), its message the paths the restore will create,
 * the empty folders it removes or writes into (git holds no folders: undo makes them again) and, when it
 * changes ignore rules, the paths that were there unheld (so that undo never deletes them), and the
 * checkpoint it replaces (a pull's): its text (null: there was none), which older versions read, and the
 * checkpoint file and its backup byte for byte, a damaged one too, which undo puts back as they were.
 * The safety snapshot names it as its parent, so it lives (and is collected) with that snapshot.
 */
export async function keepAside(
  git: StoreGit,
  gitDir: string,
  keep: readonly KeptLeaf[],
  created: readonly string[],
  unheld: readonly string[],
  folders: readonly string[] = [],
  checkpoint?: { text: string | null; files: CheckpointFiles },
): Promise<string> {
  // A private index of our own for these paths: `update-index` reads them as they are, ignored or not.
  const index = path.join(gitDir, `aside-index-${uniqueSuffix()}`);
  const env = { GIT_INDEX_FILE: index };
  try {
    if (keep.length > 0) {
      await git(['update-index', '--add', '-z', '--stdin'], {
        input: `${keep.map((leaf) => leaf.path).join('\0')}\0`,
        extraEnv: env,
      });
    }
    const tree = (await git(['write-tree'], { extraEnv: env })).stdout.trim();
    const message = `${ASIDE_MARK}\n\n${JSON.stringify({
      created,
      ...(unheld.length > 0 ? { unheld } : {}),
      ...(folders.length > 0 ? { folders } : {}),
      ...(checkpoint === undefined
        ? {}
        : { checkpoint: checkpoint.text, checkpointFiles: encodeFiles(checkpoint.files) }),
    })}\n`;
    return (await git(['commit-tree', tree, '-F', '-'], { input: message })).stdout.trim();
  } finally {
    await fsp.rm(index, { force: true });
  }
}

/** What a snapshot's commit kept aside, or `null` when it has no aside parent. */
export async function readAside(git: StoreGit, commit: string): Promise<AsideContent | null> {
  const parent = /^parent ([0-9a-f]{40,64})$/m.exec((await git(['cat-file', 'commit', commit])).stdout)?.[1];
  if (!parent) return null;
  const body = (await git(['cat-file', 'commit', parent])).stdout;
  const tree = /^tree ([0-9a-f]{40,64})$/m.exec(body)?.[1];
  const message = body.slice(body.indexOf('\n\n') + 2);
  if (!tree || !message.startsWith(`${ASIDE_MARK}\n`)) return null;
  let created: string[] = [];
  let unheld: string[] = [];
  let folders: string[] = [];
  let checkpoint: string | null | undefined;
  let checkpointFiles: CheckpointFiles | undefined;
  const strings = (value: unknown) =>
    Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  try {
    const parsed = JSON.parse(message.slice(ASIDE_MARK.length)) as {
      created?: unknown;
      unheld?: unknown;
      folders?: unknown;
      checkpoint?: unknown;
      checkpointFiles?: unknown;
    };
    created = strings(parsed.created);
    unheld = strings(parsed.unheld);
    folders = strings(parsed.folders);
    // null: the restore wrote one where there was none (older snapshots never say so: left as it is).
    if (typeof parsed.checkpoint === 'string' || parsed.checkpoint === null) checkpoint = parsed.checkpoint;
    checkpointFiles = decodeFiles(parsed.checkpointFiles);
  } catch {
    // No list of created paths: only what was kept aside comes back.
  }
  const listing = (await git(['ls-tree', '-r', '-z', '--full-tree', tree])).stdout;
  const entries: Array<{ path: string; mode: string; oid: string }> = [];
  for (const record of listing.split('\0')) {
    const match = /^(\d{6}) blob ([0-9a-f]{40,64})\t(.+)$/s.exec(record);
    if (match) entries.push({ mode: match[1] as string, oid: match[2] as string, path: match[3] as string });
  }
  return {
    entries,
    created,
    unheld,
    folders,
    ...(checkpoint === undefined ? {} : { checkpoint }),
    ...(checkpointFiles === undefined ? {} : { checkpointFiles }),
  };
}

/** The checkpoint files as the aside message holds them: base64, since a damaged file may not be text. */
function encodeFiles(files: CheckpointFiles): { main: string | null; prev: string | null } {
  return { main: files.main?.toString('base64') ?? null, prev: files.prev?.toString('base64') ?? null };
}

function decodeFiles(value: unknown): CheckpointFiles | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { main, prev } = value as { main?: unknown; prev?: unknown };
  const decode = (field: unknown) =>
    typeof field === 'string' ? Buffer.from(field, 'base64') : field === null ? null : undefined;
  const files = { main: decode(main), prev: decode(prev) };
  return files.main === undefined || files.prev === undefined
    ? undefined
    : { main: files.main, prev: files.prev };
}
