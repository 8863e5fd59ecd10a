import type { Redactor } from './redact.js';
import type { Checkpoint } from './schema.js';

// Fields a newer minor writer adds to `.claude-checkpoint` are kept when this version rewrites the file
// (docs/checkpoint-file.md). Anything not named here is such a field; a test holds these lists to the
// schema (schema.ts), so a field this version writes is never mistaken for one, nor revived by one.

/** The fields this version writes, object by object. */
export const KNOWN_FIELDS = {
  checkpoint: [
    'version',
    'id',
    'createdAt',
    'updatedAt',
    'generator',
    'project',
    'git',
    'goal',
    'summary',
    'nextSteps',
    'decisions',
    'modifiedFiles',
    'recentCommands',
    'meta',
  ],
  project: ['name'],
  goal: ['primary', 'tasks'],
  task: ['description', 'status'],
  modifiedFile: ['path', 'status', 'source', 'note', 'hash'],
  recentCommand: ['command', 'exitCode', 'note', 'at', 'callId'],
  meta: [
    'redactions',
    'truncated',
    'flagged',
    'derived',
    'newerInTranscript',
    'agentSavedAt',
    'journaled',
    'handoff',
  ],
  flagged: ['since', 'paths'],
  derived: ['goal', 'tasks', 'summary'],
} as const satisfies Record<string, readonly string[]>;

export type FieldOwner = keyof typeof KNOWN_FIELDS;
type Fields = Record<string, unknown>;

const isKnown = (owner: FieldOwner, name: string) =>
  (KNOWN_FIELDS[owner] as readonly string[]).includes(name);

/** The fields of `value` this version does not write; `{}` when it has none (or is absent). */
export function unknownFields(value: object | null | undefined, owner: FieldOwner): Fields {
  if (!value) return {};
  // fromEntries defines own properties: a "__proto__" field stays a field, never a prototype.
  return Object.fromEntries(Object.entries(value).filter(([name]) => !isKnown(owner, name)));
}

/**
 * `built` with the unknown fields of the file it rewrites: those of the file itself, `project`, `goal`
 * and `meta` (and of `meta.flagged` while files stay flagged) always; those of a listed file when the
 * save lists it again and `keepEntries` (a merge; tasks and commands carry their own over already).
 * `generator` and `git` are rewritten whole: they describe this writer and the repository as it is now.
 * A field this version writes is never taken from `onDisk`: only unknown names are copied, after ours.
 */
export function withUnknownFieldsOf(
  built: Checkpoint,
  onDisk: Checkpoint | null,
  keepEntries: boolean,
): Checkpoint {
  if (!onDisk) return built;
  const filesOnDisk = new Map(onDisk.modifiedFiles.map((file) => [file.path, file]));
  const flagged = built.meta.flagged;
  return {
    ...built,
    ...unknownFields(onDisk, 'checkpoint'),
    project: { ...built.project, ...unknownFields(onDisk.project, 'project') },
    goal: { ...built.goal, ...unknownFields(onDisk.goal, 'goal') },
    modifiedFiles: keepEntries
      ? built.modifiedFiles.map((file) => ({
          ...file,
          ...unknownFields(filesOnDisk.get(file.path), 'modifiedFile'),
        }))
      : built.modifiedFiles,
    meta: {
      ...built.meta,
      ...unknownFields(onDisk.meta, 'meta'),
      ...(flagged ? { flagged: { ...flagged, ...unknownFields(onDisk.meta.flagged, 'flagged') } } : {}),
    },
  };
}

/** Applies `change` to the unknown fields of every object in the checkpoint that may hold some. */
function mapUnknownFields(checkpoint: Checkpoint, change: (fields: Fields) => Fields): Checkpoint {
  const map = <T extends object>(value: T, owner: FieldOwner): T => {
    const fields = unknownFields(value, owner);
    if (Object.keys(fields).length === 0) return value;
    return {
      ...Object.fromEntries(Object.entries(value).filter(([name]) => isKnown(owner, name))),
      ...change(fields),
    } as T;
  };
  const { meta } = checkpoint;
  return {
    ...map(checkpoint, 'checkpoint'),
    project: map(checkpoint.project, 'project'),
    goal: map({ ...checkpoint.goal, tasks: checkpoint.goal.tasks.map((task) => map(task, 'task')) }, 'goal'),
    modifiedFiles: checkpoint.modifiedFiles.map((file) => map(file, 'modifiedFile')),
    recentCommands: checkpoint.recentCommands.map((command) => map(command, 'recentCommand')),
    meta: map(
      {
        ...meta,
        ...(meta.flagged ? { flagged: map(meta.flagged, 'flagged') } : {}),
        ...(meta.derived ? { derived: map(meta.derived, 'derived') } : {}),
      },
      'meta',
    ),
  };
}

/**
 * Security: the strings of unknown fields, names included, go through the same redaction as the
 * agent's input; whoever wrote them, nothing unredacted is written back.
 */
export function redactUnknownFields(checkpoint: Checkpoint, redactor: Redactor): Checkpoint {
  // A value is read with its name, as `name: value`: many secrets are known only by it
  // (`db_password: hunter2hunter2`, `aws_secret_access_key: …`; review of 2026-12-06).
  const redactNamed = (name: string | undefined, value: string): string => {
    if (name === undefined) return redactor.text(value);
    const prefix = `${name}: `;
    const read = redactor.text(`${prefix}${value}`);
    // The name itself held a secret: the value is redacted on its own then (the name is, below).
    return read.startsWith(prefix) ? read.slice(prefix.length) : redactor.text(value);
  };
  const redact = (value: unknown, name?: string): unknown => {
    if (typeof value === 'string') return redactNamed(name, value);
    if (Array.isArray(value)) return value.map((item) => redact(item, name));
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [redactor.text(key), redact(item, key)]),
      );
    return value;
  };
  return mapUnknownFields(checkpoint, (fields) => redact(fields) as Fields);
}

/** The checkpoint with no unknown field anywhere: what is left to fit the 64 KB cap when they do not. */
export function withoutUnknownFields(checkpoint: Checkpoint): Checkpoint {
  return mapUnknownFields(checkpoint, () => ({}));
}

/** Whether any object in the checkpoint holds a field this version does not write. */
export function hasUnknownFields(checkpoint: Checkpoint): boolean {
  let found = false;
  mapUnknownFields(checkpoint, (fields) => {
    found = true;
    return fields;
  });
  return found;
}
