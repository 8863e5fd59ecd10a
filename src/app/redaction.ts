import path from 'node:path';
import {
  type CompiledCustomConfig,
  type CustomConfigSource,
  compileCustomConfig,
} from '../core/secrets/custom-config.js';
import { errorCode, type StoreFs } from '../store/fs-seam.js';
import { userConfigDir } from '../store/settings-file.js';

/** The project's own patterns, committed with it (and not matched by the `.claude-checkpoint*` ignore rule). */
export const PROJECT_REDACTION_FILE = path.join('.claude', 'checkpoint-redaction.json');

/** Where the user's own redaction settings live: $CHECKPOINT_CONFIG_DIR, else the XDG config folder. */
export function userRedactionFile(env: NodeJS.ProcessEnv): string {
  return path.join(userConfigDir(env), 'redaction.json');
}

/**
 * Reads the user's and the project's redaction settings (both optional) and compiles them. Problems
 * (unreadable JSON, bad patterns) come back as messages: the built-in rules always stay on.
 */
export async function loadRedactionConfig(
  fs: StoreFs,
  env: NodeJS.ProcessEnv,
  projectRoot?: string,
): Promise<CompiledCustomConfig> {
  const problems: string[] = [];
  const sources: CustomConfigSource[] = [];
  const files: Array<[string, 'user' | 'project']> = [[userRedactionFile(env), 'user']];
  if (projectRoot) files.push([path.join(projectRoot, PROJECT_REDACTION_FILE), 'project']);
  for (const [file, scope] of files) {
    const text = await readConfig(fs, file, scope, problems);
    if (text === null) continue;
    try {
      sources.push({ origin: file, scope, json: JSON.parse(text) });
    } catch (error) {
      problems.push(`${file}: not valid JSON (${(error as Error).message}); its patterns are not used`);
    }
  }
  const compiled = compileCustomConfig(sources);
  return { config: compiled.config, problems: [...problems, ...compiled.problems] };
}

async function readConfig(
  fs: StoreFs,
  file: string,
  scope: 'user' | 'project',
  problems: string[],
): Promise<string | null> {
  try {
    // Security: a project's file is read only as a plain file inside the project, never through a link.
    if (scope === 'project' && fs.lstatSync(file).isSymbolicLink()) {
      problems.push(`${file}: is a symbolic link; not read`);
      return null;
    }
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return null;
    problems.push(`${file}: could not be read (${(error as Error).message})`);
    return null;
  }
}
