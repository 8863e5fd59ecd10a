import os from 'node:os';
import { absoluteDirFromEnv } from '../core/env-dirs.js';

/** The user's home folder: $HOME when absolute (see absoluteDirFromEnv), else the system's account entry. */
export function homeFolder(env: NodeJS.ProcessEnv): string {
  const home = absoluteDirFromEnv(env, 'HOME');
  if (home) return home;
  try {
    return os.userInfo().homedir;
  } catch {
    // No account entry (some containers): what Node makes of it.
    return os.homedir();
  }
}
