import { charLength, cutChars } from '../text.js';
import type { DetectorConfig } from './detect.js';
import type { PatternRule } from './provider-rules.js';

/**
 * A person's own redaction settings, as read from JSON: extra patterns (a team's internal token format)
 * and values that must never be redacted. Only the user's own file may weaken redaction (allow, allow
 * patterns); a project's file, which arrives with a clone, may only add patterns.
 */
export interface CustomConfigSource {
  /** Shown in messages: the file it came from. */
  origin: string;
  scope: 'user' | 'project';
  json: unknown;
}

export const CUSTOM_LIMITS = { patterns: 200, patternChars: 1000, allow: 1000, keywordChars: 100 } as const;

/** The compiled settings, and every problem found, each naming the file, the field and what to fix. */
export interface CompiledCustomConfig {
  config: DetectorConfig;
  problems: string[];
}

/**
 * What keeps a person's pattern from hanging every save and hook (issue 26: `(a+)+$` on 34 characters
 * blocked a hook for minutes, past its budget and SIGTERM). The edge supplies it: the checker is a
 * library, and the linear-time engine a V8 setting.
 */
export interface PatternGuard {
  /** Why the pattern can backtrack catastrophically, or null when it cannot. */
  whyUnsafe(source: string, isLinear: boolean): string | null;
  /** The pattern compiled for a linear-time engine, or null where none can run it. */
  compileLinear?(source: string, flags: string): RegExp | null;
}

export function compileCustomConfig(
  sources: readonly CustomConfigSource[],
  guard?: PatternGuard,
): CompiledCustomConfig {
  const extraRules: PatternRule[] = [];
  const allowValues = new Set<string>();
  const allowPatterns: RegExp[] = [];
  const problems: string[] = [];

  for (const source of sources) {
    const at = (field: string) => `${source.origin}: ${field}`;
    if (typeof source.json !== 'object' || source.json === null || Array.isArray(source.json)) {
      problems.push(
        `${source.origin}: must be a JSON object with "patterns" (and, in your user file, "allow")`,
      );
      continue;
    }
    const json = source.json as Record<string, unknown>;
    for (const key of Object.keys(json)) {
      if (!['patterns', 'allow', 'allowPatterns'].includes(key))
        problems.push(at(`unknown field "${key}" ignored`));
    }
    const patterns = json.patterns ?? [];
    if (!Array.isArray(patterns)) problems.push(at('"patterns" must be an array'));
    else {
      if (patterns.length > CUSTOM_LIMITS.patterns)
        problems.push(
          at(`"patterns" has ${patterns.length} entries; only the first ${CUSTOM_LIMITS.patterns} are used`),
        );
      patterns.slice(0, CUSTOM_LIMITS.patterns).forEach((entry, index) => {
        const compiled = compilePattern(entry, at(`patterns[${index}]`), problems, guard);
        if (compiled) extraRules.push(compiled);
      });
    }
    const weakening = ['allow', 'allowPatterns'].filter((key) => key in json);
    if (source.scope === 'project' && weakening.length > 0) {
      // Security: a cloned repository must not switch off redaction or the gate before a push.
      problems.push(
        at(`"${weakening.join('" and "')}" ignored: only your user config may exempt values from redaction`),
      );
      continue;
    }
    const allow = json.allow ?? [];
    if (!Array.isArray(allow) || allow.some((value) => typeof value !== 'string'))
      problems.push(at('"allow" must be an array of strings'));
    else for (const value of allow.slice(0, CUSTOM_LIMITS.allow)) if (value !== '') allowValues.add(value);
    const allowed = json.allowPatterns ?? [];
    if (!Array.isArray(allowed)) problems.push(at('"allowPatterns" must be an array of strings'));
    else
      allowed.slice(0, CUSTOM_LIMITS.allow).forEach((source, index) => {
        const regex = compileRegex(source, at(`allowPatterns[${index}]`), problems, '', guard);
        if (regex) allowPatterns.push(regex);
      });
  }
  return { config: { extraRules, allowValues, allowPatterns }, problems };
}

function compilePattern(
  entry: unknown,
  where: string,
  problems: string[],
  guard: PatternGuard | undefined,
): PatternRule | null {
  if (typeof entry === 'string') entry = { regex: entry };
  if (typeof entry !== 'object' || entry === null) {
    problems.push(`${where} must be a string or { "id", "regex", "keywords" }`);
    return null;
  }
  const { id, regex, keywords } = entry as Record<string, unknown>;
  const named =
    typeof id === 'string' && id.trim() !== '' ? `${where} (${JSON.stringify(id.trim())})` : where;
  const pattern = compileRegex(regex, `${named}.regex`, problems, 'g', guard);
  if (!pattern) return null;
  if (
    keywords !== undefined &&
    (!Array.isArray(keywords) || keywords.some((k) => typeof k !== 'string' || k === ''))
  ) {
    problems.push(`${where}.keywords must be an array of non-empty strings`);
    return null;
  }
  const words = (keywords as string[] | undefined)?.map((k) =>
    cutChars(k.toLowerCase(), CUSTOM_LIMITS.keywordChars),
  );
  return {
    id:
      typeof id === 'string' && id.trim() !== ''
        ? `custom:${id.trim()}`
        : `custom:${where.split(': ').pop()}`,
    // Without keywords the pattern runs on every text.
    keywords: words && words.length > 0 ? words : [''],
    pattern,
  };
}

function compileRegex(
  source: unknown,
  where: string,
  problems: string[],
  flags: string,
  guard: PatternGuard | undefined,
): RegExp | null {
  if (typeof source !== 'string' || source === '') {
    problems.push(`${where} must be a non-empty string`);
    return null;
  }
  const chars = charLength(source);
  if (chars > CUSTOM_LIMITS.patternChars) {
    problems.push(`${where} is ${chars} characters; the limit is ${CUSTOM_LIMITS.patternChars}`);
    return null;
  }
  let regex: RegExp;
  try {
    regex = new RegExp(source, flags);
  } catch (error) {
    problems.push(`${where} is not a valid regular expression: ${(error as Error).message}`);
    return null;
  }
  if (regex.test('')) {
    problems.push(`${where} matches the empty string, which would redact nothing useful; it is ignored`);
    return null;
  }
  regex.lastIndex = 0;
  if (!guard) return regex;
  const linear = guard.compileLinear?.(source, flags) ?? null;
  // Where V8's linear-time engine runs the pattern, its time grows with the text alone however it is
  // written: kept there, even when the checker finds it could backtrack (the usual PEM block pattern,
  // `-----BEGIN [A-Z ]+-----[\s\S]*?-----END …`, is one). Only a pattern that engine cannot run
  // (back-references, look-arounds) is judged by the checker.
  if (linear !== null) return linear;
  const why = guard.whyUnsafe(source, false);
  if (why !== null) {
    problems.push(
      `${where} can backtrack catastrophically (${why}), which would hold up every save and hook; it is ignored: write it without a repetition inside a repetition (\`(a+)+\`) or next to one that matches the same text (\`\\s*\\s*\`)`,
    );
    return null;
  }
  return linear ?? regex;
}
