import * as z from 'zod/mini';
import {
  CHECKPOINT_VERSION,
  FILE_STATUSES,
  isPlainlyValid,
  isTime,
  migrateCheckpoint,
  OID_PATTERN,
  parseCheckpointJson,
  TASK_STATUSES,
} from './checkpoint-plain.js';
import { CheckpointError } from './errors.js';
import { withoutOutsidePaths } from './paths.js';

export {
  CHECKPOINT_VERSION,
  FILE_STATUSES,
  type FileStatus,
  isPlainlyValid,
  MIGRATIONS,
  type Migration,
  migrateCheckpoint,
  TASK_STATUSES,
  type TaskStatus,
} from './checkpoint-plain.js';

// zod/mini: every hook reads the checkpoint, and the mini build costs a fraction of the full one to load.
// The schemas are built on first use: a valid file (the usual case) passes the plain check first
// (checkpoint-plain.ts), and a reader that wants no zod at all calls parseCheckpointPlainly there.
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
    /**
     * The agent's id of the tool call a hook recorded the command from (Claude Code's and Codex's
     * `tool_use_id`, OpenCode's `callID`): the same call delivered twice (hooks wired in two scopes, an
     * agent that retries) is recorded once. Ours, not the spec's: an older reader keeps it as it is.
     */
    callId: z.optional(z.string()),
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
      /**
       * What the agent's session transcript holds that is newer than the agent's own last save of that
       * field, which wins and stays shown: the task list and the status as the transcript has them
       * (redacted, one line each, clipped), and when a hook saw them. The brief says so in one line; the
       * agent's next save of the field drops it. Ours, not the spec's.
       */
      newerInTranscript: z.optional(
        z.looseObject({
          at: isoTime,
          tasks: z.optional(z.string()),
          summary: z.optional(z.string()),
        }),
      ),
      /**
       * When the agent's own save last wrote its tasks and its summary (not a hook's refresh): what a
       * session transcript changed before then is older than the save, and never called newer. Ours, not
       * the spec's; missing in a checkpoint written before it (the transcript's changes count as newer).
       */
      agentSavedAt: z.optional(
        z.looseObject({
          tasks: z.optional(isoTime),
          summary: z.optional(isoTime),
        }),
      ),
      /**
       * The ids of the command journal's records (`.claude-checkpoint.journal/`) last merged into this
       * file: a merge cut short before it cleared them never records a command twice. Ours, not the spec's.
       */
      journaled: z.optional(z.array(z.string())),
      /**
       * Set by `handoff pull`: whose handoff this checkpoint came from (who pushed it, when, which handoff
       * on which remote, its commit) and which of its fields still hold that person's words (`fields`: an
       * agent's own save of a field takes it off). Ours, not the spec's: the brief shows them as such.
       */
      handoff: z.optional(
        z.looseObject({
          name: z.string(),
          remote: z.string(),
          author: z.string(),
          pushedAt: z.string(),
          commit: z.string(),
          fields: z.array(z.string()),
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
export type NewerInTranscript = NonNullable<Checkpoint['meta']['newerInTranscript']>;
export type AgentSavedAt = NonNullable<Checkpoint['meta']['agentSavedAt']>;
export type HandoffMark = NonNullable<Checkpoint['meta']['handoff']>;

/** Parses file text into a current-version checkpoint. Throws CORRUPT or UNSUPPORTED_VERSION. */
export function parseCheckpoint(text: string): Checkpoint {
  return withoutOutsidePaths(parseValidCheckpoint(text));
}

function parseValidCheckpoint(text: string): Checkpoint {
  const migrated = migrateCheckpoint(parseCheckpointJson(text));
  if (isPlainlyValid(migrated)) return migrated as Checkpoint;
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
