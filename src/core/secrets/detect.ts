import { nextMatch } from '../text.js';
import { isExampleToken, type Verdicts, withVerdicts } from './allowlist.js';
import { CONTEXT_RULES, type ContextRule } from './context-rules.js';
import { createKeywordScan, type KeywordScan } from './keyword-scan.js';
import { collectNear } from './near-cues.js';
import { type PatternRule, PROVIDER_RULES } from './provider-rules.js';

/** Where a secret is in a text, and which rule found it. Never the secret itself. */
export interface Finding {
  start: number;
  end: number;
  rule: string;
}

/**
 * A person's additions to the built-in rules (already validated and compiled by the edge that read
 * them): extra patterns, and values that must never be redacted.
 */
export interface DetectorConfig {
  extraRules?: readonly PatternRule[];
  allowValues?: ReadonlySet<string>;
  allowPatterns?: readonly RegExp[];
}

const SECRET_GROUPS = ['secret', 'secret2', 'secret3', 'secret4'] as const;

/**
 * Every secret in `text`, as non-overlapping spans in order. Layers: provider formats (each run only when
 * one of its keywords occurs), then context rules (names, flags, URLs, headers, prose), with the
 * allowlists applied to each candidate value. `verdicts` are those of the document the text belongs to
 * (each value is judged once in it); by default, the text's own.
 */
export function findSecrets(
  text: string,
  config: DetectorConfig = {},
  verdicts: Verdicts = new Map(),
): Finding[] {
  if (text.length === 0) return [];
  return withVerdicts(verdicts, () => findAll(text, config));
}

function findAll(text: string, config: DetectorConfig): Finding[] {
  const { present, found, allowed } = findTokens(text, config, PROVIDER_INDEX);
  for (const rule of rulesFor(present, CONTEXT_INDEX)) {
    if (rule.requires !== undefined && !includesAll(text, rule.requires)) continue;
    if (rule.near) {
      collectNear(text, rule, rule.near, ruleMatches(rule, text), found, allowed);
      continue;
    }
    // A loop, not forEachMatch: a closure per rule and text showed in the benchmark.
    const { pattern } = rule;
    pattern.lastIndex = 0;
    for (let match = nextRuleMatch(rule, text); match; match = nextRuleMatch(rule, text))
      collectContext(rule, match, found, allowed);
    pattern.lastIndex = 0;
  }
  return mergeSpans(withRepeats(text, found));
}

function includesAll(text: string, parts: readonly string[]): boolean {
  for (const part of parts) if (!text.includes(part)) return false;
  return true;
}

/**
 * The next match of a context rule's pattern from its `lastIndex`, as nextMatch finds it (set
 * `lastIndex` to 0 before and after). A pattern that matches the character before what it finds
 * (ContextRule.matchesCharBefore) searches on from the last character of the match: that character may
 * be the one before the next find, as the plain form's lookbehind would see it.
 */
export function nextRuleMatch(rule: ContextRule, text: string): RegExpExecArray | null {
  const { pattern } = rule;
  const match = nextMatch(pattern, text);
  if (match !== null && rule.matchesCharBefore === true && match[0].length > 1) pattern.lastIndex--;
  return match;
}

/** Every match of a context rule's pattern, as nextRuleMatch finds them. */
export function ruleMatches(rule: ContextRule, text: string): RegExpExecArray[] {
  const matches: RegExpExecArray[] = [];
  rule.pattern.lastIndex = 0;
  for (let match = nextRuleMatch(rule, text); match; match = nextRuleMatch(rule, text)) matches.push(match);
  rule.pattern.lastIndex = 0;
  return matches;
}

/**
 * The self-identifying tokens in a file path (a provider's prefix and shape, the user's own patterns),
 * where a name joins them with `_` too (`backup_ghp_…txt`): bare in a path, with no name beside them,
 * the context rules have nothing to go on, and a name written `snake_case` hid them from the provider
 * rules' word boundaries (brief h-left, item 4). Nothing else: an ordinary path is never a secret.
 */
export function findPathSecrets(
  path: string,
  config: DetectorConfig = {},
  verdicts: Verdicts = new Map(),
): Finding[] {
  if (path.length === 0) return [];
  return withVerdicts(verdicts, () => {
    pathIndex ??= indexRules(PROVIDER_RULES.map(inPathSegments));
    return mergeSpans(withRepeats(path, findTokens(path, config, pathIndex).found));
  });
}

/** A provider rule whose word boundaries let `_` stand beside the token, as it joins words in a file's name. */
function inPathSegments(rule: PatternRule): PatternRule {
  const source = rule.pattern.source
    .replaceAll('(?<![A-Za-z0-9_])', '(?<![A-Za-z0-9])')
    .replaceAll('(?![A-Za-z0-9_])', '(?![A-Za-z0-9])');
  return { ...rule, pattern: new RegExp(source, rule.pattern.flags) };
}

/** The provider rules for paths (see inPathSegments), built on the first path. */
/**
 * The self-identifying tokens in `text`: the provider rules of `index` whose keywords it holds, and the
 * user's own patterns; what the keyword scan found (for the context rules) and the allowlist's test.
 */
function findTokens(text: string, config: DetectorConfig, index: RuleIndex<PatternRule>) {
  const lower = lowerCaseInPlace(text);
  scanKeywords ??= createKeywordScan(SCANNED);
  const present = scanKeywords(lower);
  const found: Finding[] = [];
  const { allowValues, allowPatterns } = config;
  const allowed = (value: string) =>
    allowValues?.has(value) === true || (allowPatterns?.some((pattern) => pattern.test(value)) ?? false);
  for (const rule of rulesFor(present, index)) findByPattern(text, lower, rule, found, allowed);
  for (const rule of config.extraRules ?? [])
    if (rule.keywords.some((keyword) => lower.includes(keyword)))
      findByPattern(text, lower, rule, found, allowed);
  return { present, found, allowed };
}

let pathIndex: RuleIndex<PatternRule> | undefined;

/** Shorter found values could be ordinary words elsewhere in the text. */
const MIN_REPEATED_CHARS = 8;

/**
 * A value found once is a secret wherever else it occurs in the same text, with or without the name or
 * format that gave it away there (a token quoted twice, a log that echoes it): issue 26.
 */
function withRepeats(text: string, found: Finding[]): Finding[] {
  const values = new Map<string, string>();
  for (const finding of found) {
    const value = text.slice(finding.start, finding.end);
    if (value.length >= MIN_REPEATED_CHARS && !values.has(value)) values.set(value, finding.rule);
  }
  if (values.size === 0) return found;
  const all = [...found];
  for (const [value, rule] of values)
    for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + 1))
      all.push({ start: at, end: at + value.length, rule });
  return all;
}

/**
 * The text lower-cased, position for position, since windows found in it are cut from the text: a
 * character whose lower case is longer (`İ` becomes two) stays as it is. (Its ASCII letters too were
 * left as they were, and a capitalised keyword beside an `İ` went unseen: `İ DB_PASSWORD=…` kept its
 * password.)
 */
function lowerCaseInPlace(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  return text.replace(/[A-Z]|[^\0-\x7f]/g, (char) => {
    const lowered = char.toLowerCase();
    return lowered.length === 1 ? lowered : char;
  });
}

function findByPattern(
  text: string,
  lower: string,
  rule: PatternRule,
  found: Finding[],
  allowed: (value: string) => boolean,
): void {
  if (!rule.anchor) collectTokens(rule, text, 0, found, allowed);
  else
    for (const [offset, part] of searchWindows(text, lower, rule.anchor))
      collectTokens(rule, part, offset, found, allowed);
}

/** The tokens `rule` finds in `part` (at `offset` in the text), each unless an example or allowed. */
function collectTokens(
  rule: PatternRule,
  part: string,
  offset: number,
  found: Finding[],
  allowed: (value: string) => boolean,
): void {
  const { pattern } = rule;
  pattern.lastIndex = 0;
  for (let match = nextMatch(pattern, part); match; match = nextMatch(pattern, part)) {
    const token = match.groups?.secret ?? match[0];
    if (token.length === 0 || isExampleToken(token) || allowed(token)) continue;
    const start = offset + match.index + (match.groups?.secret ? match[0].indexOf(token) : 0);
    found.push({ start, end: start + token.length, rule: rule.id });
  }
  pattern.lastIndex = 0;
}

/**
 * The windows around each occurrence of an anchored rule's literal (the start of each given). `lower`
 * is the text lower-cased, once per text rather than once per rule.
 */
function searchWindows(
  text: string,
  lower: string,
  { literal, before, after }: NonNullable<PatternRule['anchor']>,
): Array<[number, string]> {
  const windows: Array<[number, string]> = [];
  for (let at = lower.indexOf(literal); at !== -1; at = lower.indexOf(literal, at + 1)) {
    // One character more on each side, so the pattern's own boundary checks see the neighbours.
    const start = Math.max(0, at - before - 1);
    windows.push([start, text.slice(start, Math.min(text.length, at + literal.length + after + 1))]);
  }
  return windows;
}

const KNOWN_KEYWORDS = new Set([...PROVIDER_RULES, ...CONTEXT_RULES].flatMap((rule) => rule.keywords));
// Keywords of one character occur in nearly every text: their rules always run. (Those of two, `q~`,
// `sk`, `pw`, are looked for: a rule that ran on every text for them cost more than the look.)
const ALWAYS = new Set([...KNOWN_KEYWORDS].filter((keyword) => keyword.length === 1));
const SCANNED = [...KNOWN_KEYWORDS].filter((keyword) => !ALWAYS.has(keyword));
/** Built on the first text (hooks load this module cold). */
let scanKeywords: KeywordScan | undefined;

interface RuleIndex<T> {
  rules: readonly T[];
  /** Positions (in `rules`) of the rules with a keyword too common to scan for: they always run. */
  always: readonly number[];
  /** For each scanned keyword (by its place in SCANNED), the positions of the rules it selects. */
  byKeyword: ReadonlyArray<readonly number[]>;
  /** rulesFor's marks, all 0 between its calls. */
  isSelected: Uint8Array;
}

const SCANNED_ID = new Map(SCANNED.map((keyword, id) => [keyword, id]));

function indexRules<T extends { keywords: readonly string[] }>(rules: readonly T[]): RuleIndex<T> {
  const byKeyword: number[][] = SCANNED.map(() => []);
  rules.forEach((rule, at) => {
    for (const keyword of rule.keywords) byKeyword[SCANNED_ID.get(keyword) ?? -1]?.push(at);
  });
  return {
    rules,
    always: rules.flatMap((rule, at) => (rule.keywords.some((keyword) => ALWAYS.has(keyword)) ? [at] : [])),
    byKeyword,
    isSelected: new Uint8Array(rules.length),
  };
}

const PROVIDER_INDEX = indexRules(PROVIDER_RULES);
const CONTEXT_INDEX = indexRules(CONTEXT_RULES);

/**
 * The rules to run on a text in which these scanned keywords (their places in SCANNED) occur, in their
 * table order (marked, then read in order: no sort).
 */
function rulesFor<T>(present: readonly number[], index: RuleIndex<T>): T[] {
  // The index's own marks, cleared as they are read (one array per index, not one per text).
  const { isSelected } = index;
  for (const at of index.always) isSelected[at] = 1;
  for (const keyword of present) for (const at of index.byKeyword[keyword] ?? []) isSelected[at] = 1;
  const selected: T[] = [];
  for (let at = 0; at < isSelected.length; at++)
    if (isSelected[at] === 1) {
      isSelected[at] = 0;
      selected.push(index.rules[at] as T);
    }
  return selected;
}

function collectContext(
  rule: ContextRule,
  match: RegExpMatchArray,
  found: Finding[],
  allowed: (value: string) => boolean,
): void {
  const groups = match.groups ?? {};
  for (const name of SECRET_GROUPS) {
    const value = groups[name];
    if (value === undefined) continue;
    if (value.length === 0 || allowed(value) || !rule.judge(value, groups)) return;
    const start = secretStart(match, name, value);
    found.push({ start, end: start + value.length, rule: rule.id });
    return;
  }
}

/**
 * Where a context rule's (non-empty) secret starts in the text: from the match's indices under the `d`
 * flag, otherwise its last occurrence in the match (the contract of ContextRule.pattern).
 */
export function secretStart(match: RegExpMatchArray, group: string, value: string): number {
  const indices = (match as RegExpMatchArray & { indices?: { groups?: Record<string, [number, number]> } })
    .indices?.groups;
  return indices?.[group]?.[0] ?? (match.index ?? 0) + match[0].lastIndexOf(value);
}

/** Overlapping or touching spans become one; the first rule (by position) names it. */
function mergeSpans(spans: Finding[]): Finding[] {
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Finding[] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

/** A finding with its 1-based line and column (in UTF-16 units, as editors count). */
export interface LocatedFinding extends Finding {
  line: number;
  column: number;
}

export function locateFindings(text: string, findings: readonly Finding[]): LocatedFinding[] {
  const located: LocatedFinding[] = [];
  let line = 1;
  let lineStart = 0;
  let scanned = 0;
  for (const finding of findings) {
    for (; scanned < finding.start; scanned++) {
      if (text.charCodeAt(scanned) === 10) {
        line++;
        lineStart = scanned + 1;
      }
    }
    located.push({ ...finding, line, column: finding.start - lineStart + 1 });
  }
  return located;
}
