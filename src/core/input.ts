import { z } from 'zod';
import { TASK_STATUSES } from './checkpoint-plain.js';
import { LIMITS } from './limits.js';
import { nearestName } from './near-name.js';
import { charLength } from './text.js';

// Every message names the limit and what was received; the SDK and our own formatter prefix the field path.
// Every tool's schema uses these, so that no limit error leaves out what was given (issue 26).

/** A string's length limit, in characters (code points, as zod and JSON Schema count): "must be at most 200 characters (got 201)". */
export function atMostChars(maxChars: number) {
  return {
    error: (issue: { input: unknown }) =>
      `must be at most ${maxChars} characters (got ${charLength(String(issue.input))})`,
  };
}

/** An array's length limit: "must have at most 100 items (got 101)". */
export function atMostItems(maxItems: number) {
  return {
    error: (issue: { input: unknown }) =>
      `must have at most ${maxItems} items (got ${(issue.input as unknown[]).length})`,
  };
}

/** A number's bounds: "must be at most 1000 (got 1001)". */
export function atMost(max: number) {
  return { error: (issue: { input: unknown }) => `must be at most ${max} (got ${String(issue.input)})` };
}

export function atLeast(min: number) {
  return { error: (issue: { input: unknown }) => `must be at least ${min} (got ${String(issue.input)})` };
}

/** Half of a surrogate pair standing alone (in `u` mode a whole pair is one code point, never matched). */
const LONE_SURROGATE = /\p{Surrogate}/u;

/** Whether `value` holds no lone surrogate (see wholeCharacters). */
export function isWholeText(value: string): boolean {
  return !LONE_SURROGATE.test(value);
}

/**
 * "must be whole Unicode characters: a lone surrogate \ud800 at character 3". JSON carries one as an escape,
 * but it is no character: printed as U+FFFD, and readers of the file in other languages refuse it.
 */
export function wholeCharacters() {
  return {
    error: (issue: { input: unknown }) => {
      const value = String(issue.input);
      const at = value.search(LONE_SURROGATE);
      const unit = value.charCodeAt(at).toString(16);
      return `must be whole Unicode characters: a lone surrogate \\u${unit} at character ${charLength(value.slice(0, at)) + 1}`;
    },
  };
}

/**
 * A text field. `isPath`: a file name, whose bytes that are not UTF-8 travel as lone surrogates
 * (core/raw-path.ts), so those are kept; any other text must be whole characters.
 */
function text(maxChars: number, options: { required?: boolean; isPath?: boolean } = {}) {
  const string = z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .max(maxChars, atMostChars(maxChars));
  const base = options.isPath ? string : string.refine(isWholeText, wholeCharacters());
  return options.required ? base.refine((value) => value.trim().length > 0, 'must not be empty') : base;
}

function list<T extends z.ZodType>(item: T, maxItems: number) {
  return z.array(item, { error: 'must be an array' }).max(maxItems, atMostItems(maxItems));
}

const INT32 = 2 ** 31;

/**
 * Names models and people send for a field we call otherwise. An unknown field is an error, never a silent
 * drop (issue 26: `files`/`commands` were dropped and the notes lost); these make the error say what to use.
 */
const FIELD_HINTS: Readonly<Record<string, readonly string[]>> = {
  files: ['modifiedFiles'],
  filesTouched: ['modifiedFiles'],
  modified_files: ['modifiedFiles'],
  commands: ['recentCommands'],
  recent_commands: ['recentCommands'],
  next: ['nextSteps'],
  next_steps: ['nextSteps'],
  nextStep: ['nextSteps'],
  todos: ['tasks'],
  objective: ['goal'],
  status: ['summary'],
  notes: ['note', 'summary'],
  project_root: ['projectRoot'],
  name: ['description'],
  title: ['description'],
  task: ['tasks', 'description'],
  content: ['description'],
  file: ['path'],
  cmd: ['command'],
  exit_code: ['exitCode'],
  exitStatus: ['exitCode'],
};

/** The field `key` was likely meant as, among those this object accepts: a known alias, else a near name. */
function intendedField(key: string, known: readonly string[]): string | undefined {
  // Own names only: `constructor` or `toString` would otherwise find Object's own functions.
  const hintsFor = (name: string) => (Object.hasOwn(FIELD_HINTS, name) ? FIELD_HINTS[name] : undefined);
  const hints = hintsFor(key) ?? hintsFor(key.toLowerCase()) ?? [];
  return hints.find((hint) => known.includes(hint)) ?? nearestName(key, known);
}

/**
 * The name a tool call's `__proto__` field travels under through the MCP SDK, whose parsing of the request
 * drops that key (zod strips it from records): mcp/proto-field.ts renames it before, and the unknown-field
 * error below names it back, so it is refused like any other unknown field (issue 26).
 */
export const PROTO_FIELD_STAND_IN = '\u0000__proto__';

/** A z.object that rejects unknown keys, naming each one, the fields it accepts, and the likely intended one. */
export function strictObject<T extends z.ZodRawShape>(shape: T) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => {
      // zod's own words ("Invalid input: expected object, received null") name no field the object takes.
      if (issue.code === 'invalid_type') return `must be an object with the fields ${known.join(', ')}`;
      if (issue.code !== 'unrecognized_keys') return undefined;
      return issue.keys
        .map((received) => {
          const key = received === PROTO_FIELD_STAND_IN ? '__proto__' : received;
          const hint = intendedField(key, known);
          const suggestion = hint ? `; did you mean "${hint}"?` : '';
          return `unknown field "${key}"${suggestion} (accepted: ${known.join(', ')})`;
        })
        .join('; ');
    },
  });
}

export const taskInput = strictObject({
  description: text(LIMITS.taskDescriptionChars, { required: true }),
  status: z.enum(TASK_STATUSES, { error: `must be one of ${TASK_STATUSES.join(', ')}` }),
});

export const modifiedFileInput = strictObject({
  path: text(LIMITS.pathChars, { required: true, isPath: true }).describe(
    'Relative to the project root, or absolute inside it',
  ),
  note: text(LIMITS.noteChars).optional(),
});

export const recentCommandInput = strictObject({
  command: text(LIMITS.commandChars, { required: true }),
  exitCode: z
    .number({ error: 'must be a number' })
    .int({ error: 'must be an integer' })
    .min(-INT32, atLeast(-INT32))
    .max(INT32 - 1, atMost(INT32 - 1))
    .optional(),
  note: text(LIMITS.commandNoteChars).optional(),
});

const projectRootInput = text(LIMITS.projectRootChars, { isPath: true })
  .optional()
  .describe(
    'Absolute path of the project; overrides CHECKPOINT_PROJECT_ROOT, MCP roots and the working directory',
  );

export const saveInputSchema = strictObject({
  goal: text(LIMITS.goalChars, { required: true }).describe('The main objective of the session'),
  tasks: list(taskInput, LIMITS.tasks).optional().describe('Tasks with their status'),
  // An empty summary erased the saved one on a merge (bad-input trial): leave it out to keep it instead.
  summary: text(LIMITS.summaryChars, { required: true })
    .optional()
    .describe('Where things stand: what works, what is broken, what you were in the middle of'),
  // An empty step or decision is a slip (the brief showed "1. " and a bare "- "), refused as tasks' are.
  nextSteps: list(text(LIMITS.nextStepChars, { required: true }), LIMITS.nextSteps)
    .optional()
    .describe('Ordered next actions for whoever resumes'),
  decisions: list(text(LIMITS.decisionChars, { required: true }), LIMITS.decisions)
    .optional()
    .describe('Key decisions, constraints and dead ends to avoid'),
  modifiedFiles: list(modifiedFileInput, LIMITS.modifiedFiles)
    .optional()
    .describe(
      'Files to annotate, or committed files to include. Uncommitted git changes are detected automatically.',
    ),
  recentCommands: list(recentCommandInput, LIMITS.recentCommands)
    .optional()
    .describe('Meaningful commands, oldest first. Secrets are redacted.'),
  mode: z
    .enum(['replace', 'merge'], { error: 'must be "replace" or "merge"' })
    .optional()
    .describe('replace (default) writes a fresh checkpoint; merge updates the existing one'),
  projectRoot: projectRootInput,
});

export const loadInputSchema = strictObject({
  format: z
    .enum(['brief', 'full'], { error: 'must be "brief" or "full"' })
    .optional()
    .describe('brief (default): markdown resume brief; full: the whole checkpoint JSON plus drift'),
  projectRoot: projectRootInput,
});

export type SaveInput = z.infer<typeof saveInputSchema>;
export type LoadInput = z.infer<typeof loadInputSchema>;
export type TaskInput = z.infer<typeof taskInput>;
export type ModifiedFileInput = z.infer<typeof modifiedFileInput>;
export type RecentCommandInput = z.infer<typeof recentCommandInput>;

/** Names a field of the input in messages, by its path (`['nextSteps', 0]`); see formatIssues. */
export type FieldNamer = (path: readonly PropertyKey[]) => string;

/**
 * One line per problem, `field.path: message`, the same shape the MCP SDK uses. `nameField` names the
 * fields otherwise: the CLI names the flags they came from.
 */
export function formatIssues(
  error: z.ZodError,
  nameField: FieldNamer = (path) => path.map(String).join('.'),
): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length > 0 ? nameField(issue.path) : '';
      return where ? `${where}: ${issue.message}` : issue.message;
    })
    .join('; ');
}
