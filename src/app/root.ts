import { lstatSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CheckpointError } from '../core/errors.js';
import { type Surface, WORDS } from '../core/surface.js';
import { homeFolder } from '../store/home-folder.js';

export const ROOT_ENV = 'CHECKPOINT_PROJECT_ROOT';

/** Which rule chose the root, for diagnostics ("why did it write there?"). */
export type RootSource = 'argument' | 'environment' | 'client-roots' | 'working-directory';

export interface ResolvedRoot {
  root: string;
  source: RootSource;
}

export interface RootCandidates {
  argument?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** The client's MCP roots as URIs, asked for only when no earlier rule applies. */
  clientRoots?: () => Promise<readonly string[]>;
  /** Read only when no earlier rule applies: a named root works from a deleted current folder. */
  cwd: () => string;
  /** Names the argument in errors: `projectRoot` for the tools, `--root` for the CLI. */
  surface?: Surface | undefined;
  /** Names the argument in errors instead, when it came from elsewhere (a hook's input). */
  argumentLabel?: string | undefined;
}

/**
 * Picks the project root: the `projectRoot` argument, then CHECKPOINT_PROJECT_ROOT, then the client's
 * first `file://` root, then the working directory. The result is absolute, exists, is a folder, and has
 * its symlinks resolved.
 */
export async function resolveProjectRoot(candidates: RootCandidates): Promise<ResolvedRoot> {
  const surface = candidates.surface ?? 'mcp';
  const rootWord = WORDS[surface].projectRoot;
  if (candidates.argument !== undefined) {
    return {
      root: await checkRoot(
        candidates.argument,
        candidates.argumentLabel ?? rootWord,
        candidates.argumentLabel === undefined
          ? `give ${rootWord} the project's folder instead`
          : "name the project's folder with --root",
      ),
      source: 'argument',
    };
  }
  const fromEnv = candidates.env?.[ROOT_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== '') {
    return {
      root: await checkRoot(fromEnv, ROOT_ENV, `set ${ROOT_ENV} to the project's folder`),
      source: 'environment',
    };
  }
  if (candidates.clientRoots) {
    const uris = await candidates.clientRoots();
    const first = uris.find((uri) => uri.startsWith('file://'));
    if (first) {
      let local: string;
      try {
        local = fileURLToPath(first);
      } catch (error) {
        throw new CheckpointError('INVALID_ROOT', `the client's root ${first} is not a usable file URI`, {
          cause: error,
        });
      }
      return {
        root: await checkRoot(local, 'the MCP client root', `pass ${rootWord} with the project's folder`),
        source: 'client-roots',
      };
    }
  }
  const fromCwd =
    surface === 'cli'
      ? `run this in the project's folder, or pass ${rootWord}`
      : `pass ${rootWord} with the project's folder`;
  return {
    root: await checkRoot(candidates.cwd(), 'the working directory', fromCwd),
    source: 'working-directory',
  };
}

/** `advice`: what to do instead when the folder is a git repository's own, for where it came from. */
async function checkRoot(given: string, label: string, advice: string): Promise<string> {
  if (given.includes('\0')) {
    throw new CheckpointError('INVALID_ROOT', `${label} must not contain NUL characters`);
  }
  if (!path.isAbsolute(given)) {
    throw new CheckpointError('INVALID_ROOT', `${label} must be an absolute path: got '${given}'`);
  }
  let resolved: string;
  try {
    resolved = realpathSync.native(given);
  } catch (error) {
    throw new CheckpointError('INVALID_ROOT', `${label} does not exist: ${given}`, { cause: error });
  }
  const stats = statSync(resolved);
  if (!stats.isDirectory()) {
    throw new CheckpointError('INVALID_ROOT', `${label} must be a directory: ${given}`);
  }
  const gitDir = enclosingGitDir(resolved);
  if (gitDir !== null) {
    throw new CheckpointError(
      'INVALID_ROOT',
      `${label} ${given} ${gitDir === resolved ? 'is' : `is inside ${gitDir},`} a git repository's own folder (a .git folder or a bare repository), not a working tree: ${advice}`,
    );
  }
  return resolved;
}

/**
 * The git directory `folder` is or lies in (a `.git` folder, a bare repository), or `null`. A project
 * root there would have snapshots and restores treat git's own files (refs, config, objects) as the
 * project's, and a restore roll them back. A few lstat calls per level: cheap on every call.
 */
export function enclosingGitDir(folder: string): string | null {
  for (let dir = folder; ; ) {
    if (path.basename(dir) === '.git' || looksLikeGitDir(dir)) return dir;
    // A working tree comes first: a `.git` (a folder, or a worktree's file) marks one, even one kept
    // inside a bare repository (`git clone --bare … proj.git && git -C proj.git worktree add main`).
    if (entryKind(dir, '.git') !== undefined) return null;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function entryKind(dir: string, name: string) {
  try {
    return lstatSync(path.join(dir, name), { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** git's own layout: HEAD, objects/ and refs/ side by side (a working tree has a `.git` instead). */
function looksLikeGitDir(dir: string): boolean {
  const kind = (name: string) => entryKind(dir, name);
  return (
    kind('HEAD')?.isFile() === true &&
    kind('objects')?.isDirectory() === true &&
    kind('refs')?.isDirectory() === true
  );
}

/**
 * A client with no idea of a project (Claude Desktop starts servers in `/`) would otherwise have us
 * snapshot the whole disk or home folder, or write a checkpoint at the top of the disk: refuse, and say
 * how to name the project. `home`: the home folder is refused too (for snapshots: a checkpoint, a small
 * file, may live there).
 */
export function refuseNonProjectRoot(
  resolved: ResolvedRoot,
  env: NodeJS.ProcessEnv,
  surface: Surface,
  {
    home: refuseHome,
    action,
    argumentLabel,
    isHook = false,
  }: { home: boolean; action: string; argumentLabel?: string | undefined; isHook?: boolean | undefined },
): void {
  const root = resolved.root;
  // An empty or relative HOME names no folder (see absoluteDirFromEnv): the account's home is the one.
  const home = homeFolder(env);
  const isHome = refuseHome && home !== '' && path.resolve(home) === root;
  // The file system's root is its own folder: path.dirname, which Node's loader has compiled already.
  if (path.dirname(root) === root || isHome) {
    const argument = argumentLabel ?? WORDS[surface].projectRoot;
    // A hook's root is the folder the agent runs in (its input's cwd), or CHECKPOINT_PROJECT_ROOT: what its
    // user can change, never the tools' projectRoot (trial 4, item 9).
    const fromAgent = `start the agent in a project's folder (its hooks take the folder it runs in)`;
    // Issue 26: "pass --root" to someone who did is no advice; say what to change where the root came from.
    const fix: Record<RootSource, string> = isHook
      ? {
          argument:
            argument === '--root'
              ? `Give --root a project's folder instead.`
              : `${fromAgent.charAt(0).toUpperCase()}${fromAgent.slice(1)}, or set ${ROOT_ENV} to one.`,
          environment: `Set ${ROOT_ENV} to a project's folder.`,
          'client-roots': `Set ${ROOT_ENV} to a project's folder.`,
          'working-directory': `Set ${ROOT_ENV} to a project's folder, or ${fromAgent}.`,
        }
      : {
          argument: `Give ${argument} a project's folder instead.`,
          environment: `Set ${ROOT_ENV} to a project's folder, or pass ${argument}.`,
          'client-roots': `The MCP client's root names it: pass ${argument} with a project's folder.`,
          'working-directory': `Pass ${argument} with a project's folder, or set ${ROOT_ENV}.`,
        };
    throw new CheckpointError(
      'INVALID_ROOT',
      `refusing to ${action} ${root}: it is the ${isHome ? 'home folder' : 'file-system root'}, not a project. ${fix[resolved.source]}`,
    );
  }
}
