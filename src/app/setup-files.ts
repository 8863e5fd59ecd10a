import { lstat, mkdir, readFile, realpath, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CheckpointError } from '../core/errors.js';
import { toProjectPath } from '../core/paths.js';
import { hashHex } from '../git/hash.js';
import { writeFileAtomicSync } from '../store/atomic-write.js';
import { defaultStoreBase } from '../store/store-location.js';

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
 * Removes a file that was ours alone (or that setup created and that holds nothing else now), and its
 * folder if that file was all it held. A link to such a file goes, never what it points at.
 */
export async function removeEditTarget(edit: EditTarget, base: string): Promise<void> {
  await rm(edit.linked ? edit.file : edit.target, { force: true });
  // The folders setup made for it (`.github/hooks`), while empty, up to the home or project folder.
  for (let dir = path.dirname(edit.file); dir.startsWith(`${base}${path.sep}`); dir = path.dirname(dir))
    if (
      !(await rmdir(dir).then(
        () => true,
        () => false,
      ))
    )
      break;
}

/**
 * Which files setup created (no file was there before): only those are removed once nothing but our
 * entries was in them. A note of the fact, never a copy of the file: an uninstall works on the file as
 * it is now, so nothing the user wrote in between is lost.
 */
export async function noteCreated(env: NodeJS.ProcessEnv, agent: string, file: string): Promise<void> {
  const note = createdNotePath(env, agent, file);
  await mkdir(path.dirname(note), { recursive: true, mode: 0o700 });
  await writeFile(note, JSON.stringify({ file, created: true }), { mode: 0o600 });
}

export async function forgetCreated(env: NodeJS.ProcessEnv, agent: string, file: string): Promise<void> {
  await rm(createdNotePath(env, agent, file), { force: true });
}

export async function wasCreated(env: NodeJS.ProcessEnv, agent: string, file: string): Promise<boolean> {
  return readFile(createdNotePath(env, agent, file), 'utf8').then(
    () => true,
    () => false,
  );
}

function createdNotePath(env: NodeJS.ProcessEnv, agent: string, file: string): string {
  const digest = hashHex('sha256', file).slice(0, 12);
  return path.join(defaultStoreBase(env), 'setup', `${agent}-${digest}.created.json`);
}
