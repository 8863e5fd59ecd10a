import { isUtf8 } from 'node:buffer';
import path from 'node:path';
import {
  type CompiledCustomConfig,
  type CustomConfigSource,
  compileCustomConfig,
  type PatternGuard,
} from '../core/secrets/custom-config.js';
import { parseJsonFile } from '../core/text.js';
import { notUtf8 } from '../core/utf8-input.js';
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
      sources.push({ origin: file, scope, json: parseJsonFile(text) });
    } catch (error) {
      problems.push(`${file}: not valid JSON (${(error as Error).message}); its patterns are not used`);
    }
  }
  // The checker loads only when a file exists: most projects have none, and every hook runs this.
  const hasPatterns = sources.some(({ json }) => {
    const fields = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {};
    return fields.patterns !== undefined || fields.allowPatterns !== undefined;
  });
  const compiled = compileCustomConfig(sources, hasPatterns ? await createPatternGuard() : undefined);
  return { config: compiled.config, problems: [...problems, ...compiled.problems] };
}

/**
 * What the checker may spend: steps on one pattern (a count, so the verdict is the same on every
 * machine; an unsafe pattern runs out of them within a second or two), and time as a backstop, on one
 * pattern and on all of a load's patterns together.
 */
const CHECK_LIMITS = { steps: 2_000, patternMs: 2_000, totalMs: 3_000 } as const;
/** Verdicts by pattern, so that a long-lived process (the server, a hook host) checks each once. */
const verdicts = new Map<string, string | null>();

async function createPatternGuard(): Promise<PatternGuard> {
  // Both load only here: node:v8 alone costs a hook without a redaction file a few milliseconds.
  const [{ isSafePattern }, { setFlagsFromString }] = await Promise.all([
    import('redos-detector'),
    import('node:v8'),
  ]);
  const compileLinear = (source: string, flags: string) =>
    compileLinearWith(setFlagsFromString, source, flags);
  const deadline = Date.now() + CHECK_LIMITS.totalMs;
  return {
    compileLinear,
    whyUnsafe(source, isLinear) {
      const known = verdicts.get(source);
      if (known !== undefined) return known;
      const timeoutMs = Math.max(Math.min(CHECK_LIMITS.patternMs, deadline - Date.now()), 1);
      let why: string | null;
      let isDecided = true;
      try {
        // Anchored: the checker then counts the ways to match from one place, as the pattern is run.
        const result = isSafePattern(`^(?:${source})`, { maxSteps: CHECK_LIMITS.steps, timeout: timeoutMs });
        if (result.safe) why = null;
        else if (result.error === 'hitMaxScore')
          why = result.score.infinite
            ? 'redos-detector finds no bound on the ways it can try'
            : `redos-detector finds ${result.score.value} ways it can try`;
        // Undecided (out of steps, or of time): kept where the linear-time engine runs it, since then it
        // cannot hang; the checker's steps run out on long alternations of words too, which are harmless.
        else if (result.error === 'hitMaxSteps')
          why = isLinear ? null : `redos-detector could not show it safe within ${CHECK_LIMITS.steps} steps`;
        else {
          isDecided = false;
          why = isLinear ? null : `redos-detector could not show it safe within ${timeoutMs} ms`;
        }
      } catch (error) {
        why = isLinear ? null : `redos-detector could not read it: ${(error as Error).message}`;
      }
      if (isDecided) verdicts.set(source, why);
      return why;
    },
  };
}

/**
 * The pattern compiled for V8's linear-time engine (the `l` flag), whose run time grows with the text
 * alone, however the pattern is written; null where V8 cannot run it so (back-references, look-arounds)
 * or has no such engine. The setting is turned off again at once, so V8's code cache stays valid.
 */
function compileLinearWith(
  setFlagsFromString: (flags: string) => void,
  source: string,
  flags: string,
): RegExp | null {
  try {
    setFlagsFromString('--enable-experimental-regexp-engine');
    return new RegExp(source, `${flags}l`);
  } catch {
    return null;
  } finally {
    setFlagsFromString('--no-enable-experimental-regexp-engine');
  }
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
    const bytes = fs.readFileSync(file) as Buffer;
    // Decoded, a byte that is not UTF-8 becomes U+FFFD: a pattern that no longer matches what it names.
    const bad = isUtf8(bytes) ? null : notUtf8(bytes);
    if (bad !== null) {
      problems.push(`${file}: is not UTF-8 text (${bad}); not read: save it as UTF-8`);
      return null;
    }
    return bytes.toString();
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return null;
    problems.push(`${file}: could not be read (${(error as Error).message})`);
    return null;
  }
}
