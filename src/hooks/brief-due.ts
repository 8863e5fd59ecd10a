import { closeSync, constants, lstatSync, openSync, readdirSync, readSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { AppDeps } from '../app/deps.js';
import { hashHex } from '../git/hash.js';
import {
  ensureStoreFolders,
  projectStoreFolders,
  refuseStoreFolderLink,
  writeStoreFileInPlace,
} from '../store/store-folder.js';
import { defaultStoreBase, projectStoreDir } from '../store/store-location.js';

/**
 * The session a compaction's brief is due to: the agent, and the session id its hook input carries. Every
 * agent that brings the brief back on the next prompt (Copilot CLI, Gemini CLI) names one; an input that
 * names none marks, and takes, the agent's one unnamed mark: the next prompt of any of its sessions.
 */
export interface BriefDueTo {
  agent: string | undefined;
  sessionId: string | undefined;
}

/**
 * A mark no prompt took within a day has expired: its session ended without another prompt (and a resume
 * brings the brief back by itself, at its session start). A day keeps a session left open overnight; past
 * it, the marks of ended sessions go, and an unnamed one never reaches an unrelated session days later.
 */
export const BRIEF_DUE_EXPIRES_MS = 24 * 60 * 60 * 1000;

/** The marks, one file per session, in the project's private store. */
const MARKS_FOLDER = 'briefs-due';

function marksFolder(deps: AppDeps, root: string): string {
  return path.join(projectStoreDir(defaultStoreBase(deps.env), root), MARKS_FOLDER);
}

/** The mark's name: the agent and a hash of the session id (an id is never a path), or `any` without one. */
function markName(to: BriefDueTo): string {
  const agent = to.agent && /^[a-z]+$/.test(to.agent) ? to.agent : 'agent';
  return `${agent}-${to.sessionId ? hashHex('sha256', to.sessionId).slice(0, 32) : 'any'}`;
}

/** A compaction happened: the next prompt of that session brings the brief back. */
export async function markBriefDue(deps: AppDeps, root: string, to: BriefDueTo): Promise<void> {
  const folder = marksFolder(deps, root);
  const storeDir = path.dirname(folder);
  // The store folder exists: the compaction's snapshot or an earlier one made it; if not, nothing is due.
  // Security: nothing is written through a link in the place of a folder down to it, or of the mark.
  try {
    for (const dir of projectStoreFolders(storeDir)) refuseStoreFolderLink(dir);
    if (!lstatSync(storeDir, { throwIfNoEntry: false })?.isDirectory()) return;
    ensureStoreFolders([folder]);
    dropExpiredMarks(deps, folder);
    // The one mark per project of earlier versions, which any next prompt took.
    rmSync(path.join(storeDir, 'brief-due'), { force: true });
    writeStoreFileInPlace(path.join(folder, markName(to)), deps.now().toISOString());
  } catch {
    // a store that is refused: the brief is simply not brought back
  }
}

/** Whether the brief is due to this session, clearing its mark: only its next prompt brings it back. */
export async function takeBriefDue(deps: AppDeps, root: string, to: BriefDueTo): Promise<boolean> {
  const folder = marksFolder(deps, root);
  const mark = path.join(folder, markName(to));
  try {
    for (const dir of projectStoreFolders(path.dirname(folder), MARKS_FOLDER)) refuseStoreFolderLink(dir);
  } catch {
    return false;
  }
  const markedAt = readMark(mark);
  if (markedAt === undefined) return takeEarlierMark(deps, path.dirname(folder));
  // The prompt that removes the mark is the one that takes it (unlinking never follows a link).
  try {
    await rm(mark);
  } catch {
    return false;
  }
  return isFresh(deps, markedAt);
}

/**
 * The one mark per project an earlier version left (a compaction just before the upgrade): taken by the
 * next prompt, as that version did, within the same day. Losing it cost that session its brief (a review).
 */
async function takeEarlierMark(deps: AppDeps, storeDir: string): Promise<boolean> {
  const mark = path.join(storeDir, 'brief-due');
  const markedAt = readMark(mark);
  if (markedAt === undefined) return false;
  try {
    await rm(mark);
  } catch {
    return false;
  }
  return isFresh(deps, markedAt);
}

/** The time a mark was written, `null` for one unreadable or not a plain file, `undefined` for none. */
function readMark(mark: string): string | null | undefined {
  let fd: number;
  try {
    // Security: a link in the mark's place is never read through (O_NOFOLLOW fails with ELOOP).
    fd = openSync(mark, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : null;
  }
  try {
    const buffer = Buffer.alloc(64);
    return buffer.toString('utf8', 0, readSync(fd, buffer, 0, buffer.length, 0));
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

function isFresh(deps: AppDeps, markedAt: string | null): boolean {
  const age = deps.now().getTime() - Date.parse(markedAt ?? '');
  return age < BRIEF_DUE_EXPIRES_MS;
}

/** Marks of sessions that ended without another prompt go when a new one is written. */
function dropExpiredMarks(deps: AppDeps, folder: string): void {
  for (const name of readdirSync(folder)) {
    const mark = path.join(folder, name);
    if (!isFresh(deps, readMark(mark) ?? null)) rmSync(mark, { force: true });
  }
}
