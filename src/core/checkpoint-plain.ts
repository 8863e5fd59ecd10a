import { CheckpointError } from './errors.js';
import { parseJsonFile } from './text.js';

// The checkpoint format's plain checks, apart from its zod schemas (schema.ts): reading a valid file
// (the usual case) loads no zod, which a CLI command or a hook would pay for at every start.

/** The schema version this code writes. Older versions are migrated on read; newer ones are refused. */
export const CHECKPOINT_VERSION = 1;

export const TASK_STATUSES = ['pending', 'in_progress', 'done', 'blocked'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** git porcelain codes, as stored in `modifiedFiles[].status`. */
export const FILE_STATUSES = ['M', 'A', 'D', 'R', '??'] as const;
export type FileStatus = (typeof FILE_STATUSES)[number];

export const OID_PATTERN = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
export const isTime = (value: string) => !Number.isNaN(Date.parse(value));

/**
 * The zod schema (schema.ts) as plain checks, for the usual case: a valid file. It accepts only what the schema
 * accepts, never more (a test holds the two to that on generated and mutated files), and returns the
 * value as it is; anything it does not accept goes through zod, which decides and says what is wrong.
 * True means the value is a `Checkpoint` (schema.ts's type, which this module does not import: schema.ts imports it).
 * On a full 64 KB file zod's general machinery costs a hook (a fresh process, cold code) more than
 * everything else it does.
 */
export function isPlainlyValid(value: unknown): boolean {
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
    ) &&
    optional(meta.journaled, (journaled) => everyItem(journaled, isString)) &&
    optional(
      meta.handoff,
      (handoff) =>
        isRecord(handoff) &&
        typeof handoff.name === 'string' &&
        typeof handoff.remote === 'string' &&
        typeof handoff.author === 'string' &&
        typeof handoff.pushedAt === 'string' &&
        typeof handoff.commit === 'string' &&
        everyItem(handoff.fields, isString),
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
    optional(command.at, isTimeString) &&
    optional(command.callId, isString)
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

/**
 * How deep the file's JSON may nest. This version's fields nest 4 levels; a field it does not know is kept
 * and rewritten by every save, recursively: 100,000 levels of `[` in one (a hand edit) made every save and
 * hook fail with "Maximum call stack size exceeded" (input audit, 2026-12-07).
 */
export const MAX_CHECKPOINT_DEPTH = 64;

/** The file's JSON, or CORRUPT (not JSON, or nested deeper than MAX_CHECKPOINT_DEPTH). */
export function parseCheckpointJson(text: string): unknown {
  let value: unknown;
  try {
    value = parseJsonFile(text);
  } catch (error) {
    throw new CheckpointError('CORRUPT', `checkpoint is not valid JSON (${(error as Error).message})`, {
      cause: error,
    });
  }
  const deep = fieldNestedTooDeep(value, MAX_CHECKPOINT_DEPTH);
  if (deep !== null)
    throw new CheckpointError(
      'CORRUPT',
      `checkpoint field ${deep} nests more than ${MAX_CHECKPOINT_DEPTH} levels deep (the limit; this version's fields nest 4)`,
    );
  return value;
}

/** The top-level field of `value` under which it nests deeper than `maxDepth`, or null. Iterative: no stack to overflow. */
function fieldNestedTooDeep(value: unknown, maxDepth: number): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const pending: Array<{ value: object; depth: number; field: string }> = Object.entries(value)
    .filter((entry): entry is [string, object] => typeof entry[1] === 'object' && entry[1] !== null)
    .map(([field, inner]) => ({ value: inner, depth: 2, field }));
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (next.depth > maxDepth) return next.field;
    for (const inner of Object.values(next.value))
      if (typeof inner === 'object' && inner !== null)
        pending.push({ value: inner, depth: next.depth + 1, field: next.field });
  }
  return null;
}
