import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Whether a spawn of `git` with this environment would find it on PATH, looked up without spawning: a
 * hook host must not be started where git cannot run, nor a relayed hook run there (issue 26). Where the
 * lookup is not ours to mirror (no PATH at all, Windows' PATHEXT rules), it says yes and git's own
 * error stands.
 */
export function isGitOnPath(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): boolean {
  if (platform === 'win32' || env.PATH === undefined) return true;
  for (const dir of env.PATH.split(path.delimiter)) {
    // An empty entry is the current folder to execvp; a relative one depends on the folder git runs in.
    if (!path.isAbsolute(dir)) continue;
    const file = path.join(dir, 'git');
    try {
      if (!statSync(file).isFile()) continue;
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      // not here, or not executable: look further
    }
  }
  return false;
}
