import * as z from 'zod/mini';
import { CheckpointError } from './errors.js';

/** The schema version this code writes. Older versions are migrated on read; newer ones are refused. */
export const CHECKPOINT_VERSION = 1;

export const TASK_STATUSES = ['pending', 'in_progress', 'done', 'blocked'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** git porcelain codes, as stored in `modifiedFiles[].status`. */
export const FILE_STATUSES = ['M', 'A', 'D', 'R', '??'] as const;
export type FileStatus = (typeof FILE_STATUSES)[number];

const OID_PATTERN = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const isTime = (value: string) => !Number.isNaN(Date.parse(value));

// zod/mini: every hook reads the checkpoint, and the mini build costs a fraction of the full one to load.
// The schemas are built on first use: a valid file (the usual case) passes the plain check below first.
function buildSchemas() {
  const isoTime = z.string().check(z.refine(isTime, 'must be an ISO 8601 time'));
  const oid = z.string().check(z.regex(OID_PATTERN, 'must be a 40- or 64-digit hex object id'));

  const taskSchema = z.looseObject({
    description: z.string(),
    status: z.enum(TASK_STATUSES),
  });

  const modifiedFileSchema = z.looseObject({
    path: z.string().check(z.minLength(1)),
    status: z.enum(FILE_STATUSES),
    source: z.enum(['git', 'agent']),
    note: z.optional(z.string()),
    hash: z.optional(oid),
  });

  const recentCommandSchema = z.looseObject({
    command: z.string(),
    exitCode: z.optional(z.int()),
    note: z.optional(z.string()),
    at: z.optional(isoTime),
  });

  const gitSchema = z.looseObject({
    branch: z.nullable(z.string()),
    head: oid,
    dirty: z.boolean(),
  });

  /**
   * The `.claude-checkpoint` file, version 1. Objects are loose: fields added by a newer minor writer
   * survive a read-modify-write by this one.
   */
  const checkpointSchema = z.looseObject({
    version: z.literal(CHECKPOINT_VERSION),
    id: z.string().check(z.minLength(1)),
    createdAt: isoTime,
    updatedAt: isoTime,
    generator: z.looseObject({ name: z.string(), version: z.string() }),
    project: z.looseObject({ name: z.string() }),
    git: z.nullable(gitSchema),
    goal: z.looseObject({ primary: z.string(), tasks: z.array(taskSchema) }),
    summary: z.optional(z.string()),
    nextSteps: z.array(z.string()),
    decisions: z.array(z.string()),
    modifiedFiles: z.array(modifiedFileSchema),
    recentCommands: z.array(recentCommandSchema),
    meta: z.looseObject({
      redactions: z.int().check(z.minimum(0)),
      truncated: z.boolean(),
      /**
       * Files that changed after the agent's own last save and were seen by an automatic refresh (a hook),
       * which records their new content: they stay flagged until the agent saves again. Ours, not the spec's.
       */
      flagged: z.optional(z.looseObject({ since: isoTime, paths: z.array(z.string()) })),
      /**
       * The fields filled from the agent's session transcript rather than saved by the agent, each with
       * the id of the session it came from. Ours, not the spec's: an older reader ignores it.
       */
      derived: z.optional(
        z.looseObject({
          goal: z.optional(z.string()),
          tasks: z.optional(z.string()),
          summary: z.optional(z.string()),
        }),
      ),
    }),
  });
  return { checkpointSchema, taskSchema, modifiedFileSchema, recentCommandSchema, gitSchema };
}

type Schemas = ReturnType<typeof buildSchemas>;
let schemas: Schemas | undefined;
/** The zod schemas, built once, when first needed. */
export function checkpointSchemas(): Schemas {
  schemas ??= buildSchemas();
  return schemas;
}

export type Checkpoint = z.infer<Schemas['checkpointSchema']>;
export type Task = z.infer<Schemas['taskSchema']>;
export type ModifiedFile = z.infer<Schemas['modifiedFileSchema']>;
export type RecentCommand = z.infer<Schemas['recentCommandSchema']>;
export type GitInfo = z.infer<Schemas['gitSchema']>;
export type FlaggedFiles = NonNullable<Checkpoint['meta']['flagged']>;
export type DerivedFields = NonNullable<Checkpoint['meta']['derived']>;

/**
 * The schema above as plain checks, for the usual case: a valid file. It accepts only what the schema
 * accepts, never more (a test holds the two to that on generated and mutated files), and returns the
 * value as it is; anything it does not accept goes through zod, which decides and says what is wrong.
 * On a full 64 KB file zod's general machinery costs a hook (a fresh process, cold code) more than
 * everything else it does.
 */
export function isPlainlyValid(value: unknown): value is Checkpoint {
  if (!isRecord(value)) return false;
  const { generator, project, git, goal, meta } = value;
  return (
    value.version === CHECKPOINT_VERSION &&
    isNonEmptyString(value.id) &&
    isTimeString(value.createdAt) &&
    isTimeString(value.updatedAt) &&
    isRecord(generator) &&
    typeof generator.name === 'string' &&
    typeof generator.version === 'string' &&
    isRecord(project) &&
    typeof project.name === 'string' &&
    (git === null ||
      (isRecord(git) &&
        (git.branch === null || typeof git.branch === 'string') &&
        isOid(git.head) &&
        typeof git.dirty === 'boolean')) &&
    isRecord(goal) &&
    typeof goal.primary === 'string' &&
    everyItem(goal.tasks, isPlainTask) &&
    optional(value.summary, isString) &&
    everyItem(value.nextSteps, isString) &&
    everyItem(value.decisions, isString) &&
    everyItem(value.modifiedFiles, isPlainModifiedFile) &&
    everyItem(value.recentCommands, isPlainRecentCommand) &&
    isRecord(meta) &&
    Number.isSafeInteger(meta.redactions) &&
    (meta.redactions as number) >= 0 &&
    typeof meta.truncated === 'boolean' &&
    optional(
      meta.flagged,
      (flagged) => isRecord(flagged) && isTimeString(flagged.since) && everyItem(flagged.paths, isString),
    ) &&
    optional(
      meta.derived,
      (derived) =>
        isRecord(derived) &&
        optional(derived.goal, isString) &&
        optional(derived.tasks, isString) &&
        optional(derived.summary, isString),
    )
  );
}

function isPlainTask(task: unknown): boolean {
  return (
    isRecord(task) &&
    typeof task.description === 'string' &&
    (TASK_STATUSES as readonly unknown[]).includes(task.status)
  );
}

function isPlainModifiedFile(file: unknown): boolean {
  return (
    isRecord(file) &&
    isNonEmptyString(file.path) &&
    (FILE_STATUSES as readonly unknown[]).includes(file.status) &&
    (file.source === 'git' || file.source === 'agent') &&
    optional(file.note, isString) &&
    optional(file.hash, isOid)
  );
}

function isPlainRecentCommand(command: unknown): boolean {
  return (
    isRecord(command) &&
    typeof command.command === 'string' &&
    optional(command.exitCode, Number.isSafeInteger) &&
    optional(command.note, isString) &&
    optional(command.at, isTimeString)
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
const isString = (value: unknown): value is string => typeof value === 'string';
const isNonEmptyString = (value: unknown) => typeof value === 'string' && value.length > 0;
const isTimeString = (value: unknown) => typeof value === 'string' && isTime(value);
const isOid = (value: unknown) => typeof value === 'string' && OID_PATTERN.test(value);
const optional = (value: unknown, check: (value: unknown) => boolean) => value === undefined || check(value);
/** Every index, holes included (`every` skips holes; zod does not). */
function everyItem(value: unknown, check: (item: unknown) => boolean): boolean {
  if (!Array.isArray(value)) return false;
  for (let index = 0; index < value.length; index++) if (!check(value[index])) return false;
  return true;
}

/** A step that turns a file of version `from` into version `from + 1`. */
export type Migration = (raw: Record<string, unknown>) => Record<string, unknown>;

/**
 * Migrations keyed by the version they upgrade from. Version 1 is the first published format, so the
 * table is empty today; a format change adds `1: (raw) => ...` here and bumps CHECKPOINT_VERSION.
 */
export const MIGRATIONS: Readonly<Record<number, Migration>> = {};

/** Brings a parsed JSON value up to the current version, or explains why it cannot. */
export function migrateCheckpoint(
  raw: unknown,
  migrations: Readonly<Record<number, Migration>> = MIGRATIONS,
  targetVersion: number = CHECKPOINT_VERSION,
): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new CheckpointError('CORRUPT', 'checkpoint is not a JSON object');
  }
  let current = raw as Record<string, unknown>;
  const version = current.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new CheckpointError(
      'CORRUPT',
      `checkpoint has no valid "version" field (got ${JSON.stringify(version)})`,
    );
  }
  if (version > targetVersion) {
    throw new CheckpointError(
      'UNSUPPORTED_VERSION',
      `checkpoint uses schema version ${version}, but this claude-checkpoint-mcp reads up to version ${targetVersion}: upgrade claude-checkpoint-mcp`,
    );
  }
  for (let from = version; from < targetVersion; from++) {
    const step = migrations[from];
    if (!step) {
      throw new CheckpointError('UNSUPPORTED_VERSION', `no migration from checkpoint schema version ${from}`);
    }
    current = { ...step(current), version: from + 1 };
  }
  return current;
}

/** Parses file text into a current-version checkpoint. Throws CORRUPT or UNSUPPORTED_VERSION. */
export function parseCheckpoint(text: string): Checkpoint {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new CheckpointError('CORRUPT', `checkpoint is not valid JSON (${(error as Error).message})`, {
      cause: error,
    });
  }
  const migrated = migrateCheckpoint(raw);
  if (isPlainlyValid(migrated)) return migrated;
  const result = checkpointSchemas().checkpointSchema.safeParse(migrated);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'checkpoint';
    throw new CheckpointError(
      'CORRUPT',
      `checkpoint field ${where} is invalid: ${issue ? describeIssue(issue) : 'unknown problem'}`,
    );
  }
  return result.data;
}

/** zod/mini carries no message catalogue: say what was expected from the issue's own fields. */
function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'too_small':
      return `must be at least ${issue.minimum}`;
    case 'invalid_format':
      // A message of our own (set on the check) says it best; zod's default is generic.
      return issue.message.startsWith('Invalid')
        ? `must match ${issue.pattern ?? issue.format}`
        : issue.message;
    default:
      return issue.message;
  }
}

/** The exact bytes written to disk: pretty JSON with a trailing newline, easy to read and diff. */
export function serializeCheckpoint(checkpoint: Checkpoint): string {
  return `${JSON.stringify(checkpoint, null, 2)}\n`;
}
