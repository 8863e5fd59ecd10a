import path from 'node:path';
import { nearestName } from './near-name.js';
import { escapeControls } from './quote.js';
import { SNAPSHOT_DEFAULTS } from './snapshot.js';
import { charLength, cutChars, previewJson } from './text.js';

// Every setting, once: its key in the settings file, its environment variable, its type and limits, its
// default, whether a project may set it, and the line the docs and `doctor` show. Adding a setting is one
// entry here; read it with settingsOf(deps) (app/settings.ts). No zod: the hooks' loader reads settings
// before it loads anything heavy.

/** What is wrong with a value, as the end of "<name> must be ...: got ...". */
interface Invalid {
  invalid: string;
  /**
   * The value as the file must write it, when what was written is of the wrong JSON type but plain in
   * intent (`"200"` for 200, `".env"` for `[".env"]`): "...; write it as [".env"]" (bad-input trial).
   */
  fix?: string;
}

interface Kind<T> {
  /** The limit, as people read it: "a whole number from 1 to 10000". */
  readonly limit: string;
  fromJson(value: unknown): T | Invalid;
  fromEnv(text: string): T | Invalid;
  show(value: T): string;
}

const isInvalid = (value: unknown): value is Invalid =>
  typeof value === 'object' && value !== null && 'invalid' in value;

function numberKind(min: number, max: number, whole: boolean, unit: string): Kind<number> {
  const limit = `${whole ? 'a whole number' : 'a number'} from ${min} to ${max}${unit ? ` (${unit})` : ''}`;
  const check = (value: number): number | Invalid =>
    Number.isFinite(value) && value >= min && value <= max && (!whole || Number.isInteger(value))
      ? value
      : { invalid: limit };
  const isNumberText = (text: string) => /^[+]?\d*\.?\d+$/.test(text);
  return {
    limit,
    fromJson: (value) => {
      if (typeof value === 'number') return check(value);
      // A number in quotes: JSON's string, not its number.
      const text = typeof value === 'string' ? value.trim() : '';
      return isNumberText(text) && !isInvalid(check(Number(text)))
        ? { invalid: `${limit}, a JSON number without quotes`, fix: String(Number(text)) }
        : { invalid: limit };
    },
    fromEnv: (text) => (isNumberText(text) ? check(Number(text)) : { invalid: limit }),
    show: (value) => `${value}${unit ? ` ${unit}` : ''}`,
  };
}

const ON = ['1', 'true', 'on', 'yes'];
const OFF = ['0', 'false', 'off', 'no'];

function flagKind(): Kind<boolean> {
  // Every word the environment takes (newcomer trial: on/off and yes/no went unsaid).
  const limit = `true or false (in the environment: ${ON.join(', ')}; or ${OFF.join(', ')})`;
  return {
    limit,
    fromJson: (value) => {
      if (typeof value === 'boolean') return value;
      // The environment's words (and 1/0) in the file: JSON's true and false are written bare.
      const word = typeof value === 'string' ? value.trim().toLowerCase() : String(value);
      const meant = ON.includes(word) ? 'true' : OFF.includes(word) ? 'false' : undefined;
      return meant
        ? { invalid: "true or false, JSON's own words without quotes", fix: meant }
        : { invalid: limit };
    },
    fromEnv: (text) => {
      const word = text.toLowerCase();
      if (ON.includes(word)) return true;
      return OFF.includes(word) ? false : { invalid: limit };
    },
    show: (value) => (value ? 'on' : 'off'),
  };
}

function choiceKind<const T extends string>(values: readonly T[]): Kind<T> {
  const limit = `one of ${values.join(', ')}`;
  const check = (value: unknown): T | Invalid =>
    values.includes(value as T) ? (value as T) : { invalid: limit };
  return { limit, fromJson: check, fromEnv: check, show: (value) => value };
}

/** Security: a folder the tool writes into must not depend on the folder a hook happens to start in. */
function folderKind(): Kind<string> {
  const limit = 'an absolute path';
  const check = (value: unknown): string | Invalid =>
    typeof value === 'string' && value.trim() !== '' && path.isAbsolute(value.trim())
      ? path.normalize(value.trim())
      : { invalid: limit };
  return { limit, fromJson: check, fromEnv: check, show: (value) => value };
}

export const GLOB_MAX_ITEMS = 50;
export const GLOB_MAX_CHARS = 200;

/**
 * Patterns as in .gitignore, relative to the project: `*`, `?`, `[...]` and `**`; one without a slash
 * matches at any depth. Refused: negation (`!`), `..`, and control characters.
 */
/** The stars a pattern may hold besides whole `**` folders (see globProblem). */
const GLOB_MAX_STARS = 3;

function globsKind(): Kind<readonly string[]> {
  const rules = `at most ${GLOB_MAX_CHARS} characters and ${GLOB_MAX_STARS} "*" each besides "**" folders; no "!", no ".."`;
  const limit = `up to ${GLOB_MAX_ITEMS} patterns such as ".env*" (${rules})`;
  // In the file the patterns are a JSON array (bad-input trial: ".env" alone was not said to be wrong so).
  const array = `an array of patterns such as [".env*"] (up to ${GLOB_MAX_ITEMS}; ${rules})`;
  const check = (items: readonly unknown[], expected: string): readonly string[] | Invalid => {
    if (items.length > GLOB_MAX_ITEMS) return { invalid: expected };
    const globs: string[] = [];
    for (const item of items) {
      if (typeof item !== 'string') return { invalid: expected };
      const glob = item.trim();
      if (glob === '') continue;
      const problem = globProblem(glob);
      if (problem) return { invalid: `${expected}; '${cutChars(glob, 60)}' ${problem}` };
      if (!globs.includes(glob)) globs.push(glob);
    }
    return globs;
  };
  return {
    limit,
    fromJson: (value) => {
      if (Array.isArray(value)) return check(value, array);
      if (typeof value !== 'string') return { invalid: array };
      // Written as the environment takes it (comma-separated): the array to write instead, whole and only
      // when it holds valid patterns (a review: a fix cut to 60 characters named a wider folder, and one
      // for "" suggested [".env*"], adding files where none were meant).
      const globs = value
        .split(',')
        .map((glob) => glob.trim())
        .filter((glob) => glob !== '');
      const fixed = check(globs, array);
      return Array.isArray(fixed) ? { invalid: array, fix: JSON.stringify(fixed) } : { invalid: array };
    },
    fromEnv: (text) => check(text.split(','), limit),
    show: (value) => (value.length === 0 ? 'none' : value.join(', ')),
  };
}

function globProblem(glob: string): string | null {
  if (charLength(glob) > GLOB_MAX_CHARS) return `is longer than ${GLOB_MAX_CHARS} characters`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(glob)) return 'holds a control character';
  if (glob.startsWith('!')) return 'is a negation, which has no meaning here';
  if (glob.split('/').some((part) => part === '..')) return 'leaves the project (..)';
  if (glob.replace(/^\/+/, '').replace(/\/+$/, '') === '') return 'names no file';
  // Issue 26: git matches the pattern (a pathspec) by backtracking, and each more star multiplies its
  // time by a name's length: four took 1.4 s on a 250-character name, five over 20 s, per snapshot.
  const stars = (
    glob
      .split('/')
      .filter((part) => part !== '**')
      .join('/')
      .match(/\*/g) ?? []
  ).length;
  if (stars > GLOB_MAX_STARS) return `has ${stars} "*", which can keep git matching names for minutes`;
  return null;
}

/** Whether, and how, a project's own settings file may set it (see resolveSettings). */
export type ProjectRule =
  /** The project may not set it: any value would change what the user chose for their own machine. */
  | 'user-only'
  /** A list the project may add to, never take from: it can only protect more. */
  | 'adds';

export interface SettingSpec<T> {
  /** Its environment variable, which overrides the settings file. */
  env: string;
  kind: Kind<T>;
  /** `null`: worked out where it is used (a folder under $XDG_STATE_HOME, each event's own budget). */
  default: T | null;
  project: ProjectRule;
  /** One line for the docs and `doctor`. */
  doc: string;
}

function setting<T>(spec: SettingSpec<T>): SettingSpec<T> {
  return spec;
}

const MB = 1024 * 1024;

/** The registry. Keys are the settings file's keys. */
export const SETTINGS = {
  snapshotMaxCount: setting({
    env: 'CHECKPOINT_SNAPSHOT_MAX_COUNT',
    kind: numberKind(1, 100_000, true, ''),
    default: SNAPSHOT_DEFAULTS.maxCount,
    project: 'user-only',
    doc: 'Snapshots kept per project; older ones are removed (the newest always stays).',
  }),
  snapshotMaxAgeDays: setting({
    env: 'CHECKPOINT_SNAPSHOT_MAX_AGE_DAYS',
    kind: numberKind(0, 36_500, false, 'days'),
    default: SNAPSHOT_DEFAULTS.maxAgeDays,
    project: 'user-only',
    doc: 'Snapshots older than this are removed (the newest always stays).',
  }),
  snapshotMaxFileMb: setting({
    env: 'CHECKPOINT_SNAPSHOT_MAX_FILE_MB',
    kind: numberKind(0, 100_000, false, 'MB'),
    default: SNAPSHOT_DEFAULTS.maxFileBytes / MB,
    project: 'user-only',
    doc: 'Files larger than this are left out of snapshots, and listed.',
  }),
  snapshotIncludeIgnored: setting<readonly string[]>({
    env: 'CHECKPOINT_SNAPSHOT_INCLUDE_IGNORED',
    kind: globsKind(),
    default: [],
    project: 'adds',
    doc: 'Git-ignored files to snapshot anyway (comma-separated in the environment), such as .env*; never in a handoff.',
  }),
  keepAsideMaxMb: setting({
    env: 'CHECKPOINT_KEEP_ASIDE_MAX_MB',
    kind: numberKind(0, 100_000, false, 'MB'),
    default: SNAPSHOT_DEFAULTS.keepAsideMaxBytes / MB,
    project: 'user-only',
    doc: 'What one restore may copy into the store of files no snapshot holds before it refuses to change them.',
  }),
  storeMaxMb: setting({
    env: 'CHECKPOINT_STORE_MAX_MB',
    kind: numberKind(0, 10_000_000, false, 'MB'),
    default: 2048,
    project: 'user-only',
    doc: 'One project’s snapshots may take this much disk; past it, gc removes the oldest (0: no cap).',
  }),
  storeTotalMaxMb: setting({
    env: 'CHECKPOINT_STORE_TOTAL_MAX_MB',
    kind: numberKind(0, 10_000_000, false, 'MB'),
    default: 10240,
    project: 'user-only',
    doc: 'Every project’s snapshots together may take this much disk; past it, gc removes the oldest (0: no cap).',
  }),
  storeDir: setting<string>({
    env: 'CHECKPOINT_STORE_DIR',
    kind: folderKind(),
    default: null,
    project: 'user-only',
    doc: 'Where snapshots and the hooks’ state live (default: $XDG_STATE_HOME/claude-checkpoint).',
  }),
  detachAfterHours: setting({
    env: 'CHECKPOINT_DETACH_AFTER_HOURS',
    kind: numberKind(0, 87_600, false, 'hours'),
    default: 24,
    project: 'user-only',
    doc: 'After this long, a store copies in the objects it borrows from the project’s repository.',
  }),
  fromTranscript: setting({
    env: 'CHECKPOINT_FROM_TRANSCRIPT',
    kind: flagKind(),
    default: true,
    project: 'user-only',
    doc: 'Fill the checkpoint’s gaps from the agent’s session transcript.',
  }),
  hookStartup: setting({
    env: 'CHECKPOINT_HOOK_STARTUP',
    kind: choiceKind(['notice', 'brief', 'off'] as const),
    default: 'notice',
    project: 'user-only',
    doc: 'What a new session is told at startup when a checkpoint exists.',
  }),
  hookTimeoutMs: setting({
    env: 'CHECKPOINT_HOOK_TIMEOUT_MS',
    kind: numberKind(1, 600_000, true, 'ms'),
    default: null,
    project: 'user-only',
    doc: 'How long any hook may take before it gives up (default: each event’s own budget, 5 to 25 s).',
  }),
  hookRelay: setting({
    env: 'CHECKPOINT_HOOK_RELAY',
    kind: flagKind(),
    default: true,
    project: 'user-only',
    doc: 'Hooks hand their events to the project’s running MCP server or hook host.',
  }),
  hookHost: setting({
    env: 'CHECKPOINT_HOOK_HOST',
    kind: flagKind(),
    default: true,
    project: 'user-only',
    doc: 'Where no MCP server runs, the first hook starts a hook host that runs the next ones warm.',
  }),
  hookHostIdleSeconds: setting({
    env: 'CHECKPOINT_HOOK_HOST_IDLE_SECONDS',
    kind: numberKind(1, 604_800, false, 's'),
    default: 20 * 60,
    project: 'user-only',
    doc: 'A hook host ends after this long without a hook.',
  }),
  hookCodeCache: setting({
    env: 'CHECKPOINT_HOOK_CODE_CACHE',
    kind: flagKind(),
    default: true,
    project: 'user-only',
    doc: 'Hooks and the CLI start from V8’s code cache in the store (turn off only to rule it out when debugging).',
  }),
} as const;

export type SettingName = keyof typeof SETTINGS;
type ValueOf<S> = S extends SettingSpec<infer T> ? T : never;
/** Every setting's effective value; `null` where the default is worked out where it is used. */
export type SettingValues = {
  -readonly [K in SettingName]: (typeof SETTINGS)[K]['default'] extends null
    ? ValueOf<(typeof SETTINGS)[K]> | null
    : ValueOf<(typeof SETTINGS)[K]>;
};

export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

/** Where an effective value comes from; a list the project added to names both. */
export type SettingOrigin = 'default' | 'settings file' | 'environment' | 'project';

export interface SettingProblem {
  /**
   * `error`: the user's own value is wrong: a command stops on it, a hook uses the value below it
   * (the settings file's, or the default). `warning`: something left unused (a project's value, a key
   * nobody knows).
   */
  severity: 'error' | 'warning';
  /** The setting, when the problem is about one. */
  name?: SettingName;
  /** Set when the wrong value is the environment variable's, not a settings file's. */
  source?: 'environment';
  message: string;
}

/** A settings file as read: its JSON, or why it could not be read. */
export type SettingsLayer = { path: string; json: unknown } | { path: string; unreadable: string };

export interface ResolvedSettings {
  values: SettingValues;
  origins: Record<SettingName, SettingOrigin[]>;
  problems: SettingProblem[];
}

/**
 * The effective settings: each one's default, then the user's settings file, then its environment
 * variable; a value that is wrong is a problem and the one below it stays. Then the project's own file,
 * which may only add to what `adds` allows: what it says about a `user-only` setting is left unused.
 */
export function resolveSettings(input: {
  env: Readonly<Record<string, string | undefined>>;
  user?: SettingsLayer | null;
  project?: SettingsLayer | null;
}): ResolvedSettings {
  const problems: SettingProblem[] = [];
  const user = readLayer(input.user, 'error', problems);
  const project = readLayer(input.project, 'warning', problems);
  const values = {} as Record<SettingName, unknown>;
  const origins = {} as Record<SettingName, SettingOrigin[]>;
  for (const name of SETTING_NAMES) {
    const spec = SETTINGS[name] as SettingSpec<unknown>;
    let value: unknown = spec.default;
    let origin: SettingOrigin = 'default';
    let fileProblem: SettingProblem | undefined;
    if (user && name in user.json) {
      const read = fromFile(spec, user.json[name]);
      if (isInvalid(read)) {
        fileProblem = invalid('error', name, `${user.path}: ${name}`, read, user.json[name]);
        problems.push(fileProblem);
      } else if (read !== undefined) [value, origin] = [read, 'settings file'];
    }
    const text = input.env[spec.env]?.trim();
    if (text) {
      const read = spec.kind.fromEnv(text);
      if (isInvalid(read))
        problems.push({ ...invalid('error', name, spec.env, read, text), source: 'environment' });
      else {
        [value, origin] = [read, 'environment'];
        // Overridden, the file's wrong value decides nothing: worth fixing, not worth stopping for.
        if (fileProblem) fileProblem.severity = 'warning';
      }
    }
    origins[name] = [origin];
    if (project && name in project.json) {
      const raw = project.json[name];
      const read = fromFile(spec, raw);
      if (spec.project === 'user-only') {
        problems.push({
          severity: 'warning',
          name,
          message: `${project.path}: ${name} is not used: a project may not change it (only your own settings file and ${spec.env} can)`,
        });
      } else if (isInvalid(read)) {
        problems.push(invalid('warning', name, `${project.path}: ${name}`, read, raw));
      } else if (Array.isArray(read) && read.length > 0) {
        const own = (value ?? []) as readonly string[];
        const added = read.filter((item) => !own.includes(item));
        if (added.length > 0) {
          value = [...own, ...added];
          origins[name] = origin === 'default' ? ['project'] : [origin, 'project'];
        }
      }
    }
    values[name] = value;
  }
  return { values: values as SettingValues, origins, problems };
}

function fromFile(spec: SettingSpec<unknown>, raw: unknown): unknown {
  // null in the file is the same as leaving the key out.
  return raw === null ? undefined : spec.kind.fromJson(raw);
}

function readLayer(
  layer: SettingsLayer | null | undefined,
  severity: SettingProblem['severity'],
  problems: SettingProblem[],
): { path: string; json: Record<string, unknown> } | null {
  if (!layer) return null;
  if ('unreadable' in layer) {
    problems.push({ severity, message: `${layer.path}: ${layer.unreadable}; none of its settings are used` });
    return null;
  }
  const json = layer.json;
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    problems.push({
      severity,
      message: `${layer.path}: must hold a JSON object such as {"snapshotMaxCount": 200}; none of its settings are used`,
    });
    return null;
  }
  for (const key of Object.keys(json)) {
    if (key === '$schema' || key in SETTINGS) continue;
    const near = nearestName(key, SETTING_NAMES);
    problems.push({
      severity: 'warning',
      message: `${layer.path}: unknown setting '${escapeControls(key)}' is not used${near ? ` (did you mean '${near}'?)` : `; the settings are ${SETTING_NAMES.join(', ')}`}`,
    });
  }
  return { path: layer.path, json: json as Record<string, unknown> };
}

function invalid(
  severity: SettingProblem['severity'],
  name: SettingName,
  where: string,
  read: Invalid,
  raw: unknown,
): SettingProblem {
  // The user's own text, printed by every command: never a raw control character to the terminal.
  // A number JSON cannot write back (1e400 reads as Infinity) is shown as read, not as JSON's `null`.
  const got = escapeControls(
    typeof raw === 'string'
      ? `'${cutChars(raw, 80)}'`
      : typeof raw === 'number' && !Number.isFinite(raw)
        ? `${raw} (a number too large)`
        : previewJson(raw, 80),
  );
  const fix = read.fix === undefined ? '' : `; write it as ${escapeControls(read.fix)}`;
  const unused = severity === 'warning' ? '; it is not used' : '';
  return { severity, name, message: `${where} must be ${read.invalid}: got ${got}${fix}${unused}` };
}

/** A value as `doctor` shows it. */
export function showSetting(name: SettingName, value: unknown): string {
  if (value === null) return 'default';
  return (SETTINGS[name].kind as Kind<unknown>).show(value);
}

/** The problems that stop a command: the user's own values that are wrong. */
export function settingErrors(problems: readonly SettingProblem[]): SettingProblem[] {
  return problems.filter((problem) => problem.severity === 'error');
}
