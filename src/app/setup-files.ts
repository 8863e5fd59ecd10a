import { existsSync } from 'node:fs';
import { lstat, mkdir, readFile, realpath, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { CheckpointError } from '../core/errors.js';
import { toProjectPath } from '../core/paths.js';
import { hashHex } from '../git/hash.js';
import { writeFileAtomicSync } from '../store/atomic-write.js';
import { ensureStoreFolders } from '../store/store-folder.js';
import { defaultStoreBase } from '../store/store-location.js';
import type { SetupNote } from './setup-edits.js';

/**
 * The file setup edits, as it is on disk now. `file` is the path the agent reads; `target` is where its
 * bytes are (through a symlink, the file it points at), which is what setup reads and writes, so a link
 * the user keeps (a dotfiles repository) stays a link.
 */
export interface EditTarget {
  file: string;
  target: string;
  /** The text now; `null` when there is no such file yet. */
  text: string | null;
  /** `file` is a symbolic link (to `target`). */
  linked: boolean;
}

/**
 * Finds the file behind `file` and refuses what setup must not write: a file that is read-only (the user
 * made it so: a rename would replace it anyway), something that is not a regular file, a link to nothing,
 * and, with `inside` (a project's setup), anything that resolves outside that folder, through a symlinked
 * folder or file.
 */
export async function openEditTarget(file: string, inside: string | null): Promise<EditTarget> {
  const real = await realpath(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw new CheckpointError('IO_FAILED', `could not read ${file}: ${error.message}`);
  });
  const target = real ?? path.join(await realAncestor(path.dirname(file)), path.basename(file));
  const linked = (await lstat(file).catch(() => null))?.isSymbolicLink() ?? false;
  if (real === null && linked)
    throw new CheckpointError(
      'UNSAFE_PATH',
      `${file} is a symbolic link to a file that does not exist: point it at a file, or remove it, then run setup again`,
    );
  // Security: a project's setup writes inside the project only, never through a link out of it.
  if (inside !== null)
    toProjectPath(
      await realpath(inside),
      target,
      `refusing to write ${file}: setup --project writes inside the project only, and this file (through a symbolic link on its path)`,
    );
  if (real === null) return { file, target, text: null, linked };
  const stats = await stat(target);
  if (!stats.isFile())
    throw new CheckpointError('INVALID_INPUT', `${file} is not a regular file: setup edits files only`);
  // Read-only by the file's own mode (root can write any file, so the mode is what says the user's wish).
  if ((stats.mode & 0o222) === 0)
    throw new CheckpointError(
      'INVALID_INPUT',
      `${file} is read-only: setup does not change files you made read-only. Make it writable (chmod u+w), then run setup again`,
    );
  const text = await readFile(target, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new CheckpointError('IO_FAILED', `could not read ${file}: ${error.message}`);
  });
  return { file, target, text, linked };
}

/** The real path of the nearest folder that exists, with the missing parts below it appended. */
async function realAncestor(dir: string): Promise<string> {
  const real = await realpath(dir).catch(() => null);
  if (real !== null) return real;
  const parent = path.dirname(dir);
  if (parent === dir) return dir;
  return path.join(await realAncestor(parent), path.basename(dir));
}

/** Writes the new text in place of the target's, atomically, keeping its mode (0644 for a new file). */
export async function writeEditTarget(edit: EditTarget, text: string): Promise<void> {
  const mode = (await stat(edit.target).catch(() => null))?.mode ?? 0o644;
  await mkdir(path.dirname(edit.target), { recursive: true });
  writeFileAtomicSync(edit.target, text, { mode: mode & 0o7777 });
}

/**
 * Removes a file that was ours alone (or that setup created and that holds nothing else now), and the
 * folders setup created for it (`.github/hooks`) once empty: a folder that was there before stays, empty
 * or not. A link to such a file goes, never what it points at.
 */
export async function removeEditTarget(edit: EditTarget, folders: readonly string[]): Promise<void> {
  await rm(edit.linked ? edit.file : edit.target, { force: true });
  for (const dir of folders)
    if (
      !(await rmdir(dir).then(
        () => true,
        () => false,
      ))
    )
      break;
}

/**
 * The folders on the way from `base` to `file`, deepest first: what an uninstall removes while empty
 * after a setup whose note predates `folders` (that version removed them so, up to the home or project
 * folder).
 */
export function foldersUpTo(file: string, base: string): string[] {
  const folders: string[] = [];
  for (let dir = path.dirname(file); dir.startsWith(`${base}${path.sep}`); dir = path.dirname(dir))
    folders.push(dir);
  return folders;
}

/** The folders that do not exist yet on the way to `target`, deepest first: those setup creates for it. */
export function missingFolders(target: string): string[] {
  const missing: string[] = [];
  for (let dir = path.dirname(target); !existsSync(dir); dir = path.dirname(dir)) {
    if (path.dirname(dir) === dir) break;
    missing.push(dir);
  }
  return missing;
}

/**
 * What setup made in a file (see `SetupNote`), kept in the store while the file is set up. A note of
 * facts, never a copy of the file: an uninstall works on the file as it is now, so nothing the user
 * wrote in between is lost.
 */
export async function writeSetupNote(
  env: NodeJS.ProcessEnv,
  agent: string,
  file: string,
  note: SetupNote,
): Promise<void> {
  const at = notePath(env, agent, file);
  // Security: into the store's own setup/ folder, never through a link in its place or the note's.
  ensureStoreFolders([path.dirname(path.dirname(at)), path.dirname(at)]);
  writeFileAtomicSync(at, JSON.stringify({ file, ...note }));
}

export async function forgetSetupNote(env: NodeJS.ProcessEnv, agent: string, file: string): Promise<void> {
  await rm(notePath(env, agent, file), { force: true });
}

/** The note of what setup made in `file`; `null` when there is none (or it cannot be read). */
export async function readSetupNote(
  env: NodeJS.ProcessEnv,
  agent: string,
  file: string,
): Promise<SetupNote | null> {
  const text = await readFile(notePath(env, agent, file), 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<Record<keyof SetupNote, unknown>>;
    const strings = (list: unknown) =>
      Array.isArray(list) && list.every((item) => typeof item === 'string') ? (list as string[]) : undefined;
    const containers = Array.isArray(value.containers)
      ? value.containers.filter(
          (at): at is string[] => Array.isArray(at) && at.every((part) => typeof part === 'string'),
        )
      : undefined;
    const folders = strings(value.folders);
    return {
      created: value.created === true,
      ...(containers ? { containers } : {}),
      ...(typeof value.emptyText === 'string' ? { emptyText: value.emptyText } : {}),
      ...(value.addedLineBreak === true ? { addedLineBreak: true } : {}),
      ...(folders ? { folders } : {}),
    };
  } catch {
    return null;
  }
}

// The name an earlier version gave the note, which noted created files only: still read.
function notePath(env: NodeJS.ProcessEnv, agent: string, file: string): string {
  const digest = hashHex('sha256', file).slice(0, 12);
  return path.join(defaultStoreBase(env), 'setup', `${agent}-${digest}.created.json`);
}
