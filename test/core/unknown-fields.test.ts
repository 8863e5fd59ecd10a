import { describe, expect, it } from 'vitest';
import type { SaveInput } from '../../src/core/input.js';
import { LIMITS } from '../../src/core/limits.js';
import { type BuildCheckpointParams, buildCheckpoint, fitToSize } from '../../src/core/merge.js';
import { Redactor } from '../../src/core/redact.js';
import { type Checkpoint, checkpointSchemas, parseCheckpoint } from '../../src/core/schema.js';
import {
  KNOWN_FIELDS,
  redactUnknownFields,
  unknownFields,
  withoutUnknownFields,
} from '../../src/core/unknown-fields.js';

const T0 = new Date('2026-10-08T02:23:55.477Z');
const T1 = new Date('2026-10-08T03:00:00.000Z');
const OID_A = 'a'.repeat(40);
const GIT = { branch: 'main', head: '1'.repeat(40), dirty: true };
const SECRET = ['ghp', '_', 'R8yKq2Lm5Nx7Pw3Tz9Vb4Hc6Jd1Fg0Sa2Ek'].join('');

function build(overrides: Partial<BuildCheckpointParams> & { input: SaveInput }) {
  return buildCheckpoint({
    previous: null,
    git: GIT,
    detectedFiles: [],
    oids: new Map([['a.ts', OID_A]]),
    now: T0,
    newId: () => 'id-1',
    generator: { name: 'claude-checkpoint-mcp', version: '0.1.0' },
    projectName: 'my-app',
    ...overrides,
  });
}

const first = build({
  input: {
    goal: 'g',
    tasks: [{ description: 't', status: 'pending' }],
    modifiedFiles: [{ path: 'a.ts' }],
    recentCommands: [{ command: 'make' }],
  },
}).checkpoint;

/** `first` as a newer writer would leave it: a field of its own in every object. */
function fromNewerWriter(): Checkpoint {
  const file = JSON.parse(JSON.stringify(first));
  file.futureField = 1;
  file.goal.futureGoal = 2;
  file.meta.futureMeta = 3;
  file.goal.tasks[0].futureTask = 4;
  file.modifiedFiles[0].futureFile = 5;
  file.recentCommands[0].futureCommand = 6;
  return parseCheckpoint(JSON.stringify(file));
}

describe('unknown fields', () => {
  it.each(
    Object.entries({
      checkpoint: (s: Shapes) => s.checkpointSchema,
      task: (s: Shapes) => s.taskSchema,
      modifiedFile: (s: Shapes) => s.modifiedFileSchema,
      recentCommand: (s: Shapes) => s.recentCommandSchema,
      goal: (s: Shapes) => s.checkpointSchema.shape.goal,
      project: (s: Shapes) => s.checkpointSchema.shape.project,
      meta: (s: Shapes) => s.checkpointSchema.shape.meta,
    }),
  )('the %s fields this version writes are exactly the schema’s', (owner, schemaOf) => {
    const shape = (schemaOf(checkpointSchemas()) as unknown as { shape: object }).shape;
    expect([...KNOWN_FIELDS[owner as keyof typeof KNOWN_FIELDS]].sort()).toEqual(Object.keys(shape).sort());
  });

  it('a merge keeps every one; a replace those of the file, goal and meta', () => {
    const onDisk = fromNewerWriter();
    const merged = build({ input: { goal: 'g2', mode: 'merge' }, previous: onDisk, now: T1 }).checkpoint;
    expect(merged).toMatchObject({
      futureField: 1,
      goal: { primary: 'g2', futureGoal: 2, tasks: [{ futureTask: 4 }] },
      meta: { futureMeta: 3 },
      modifiedFiles: [{ path: 'a.ts', futureFile: 5 }],
      recentCommands: [{ command: 'make', futureCommand: 6 }],
    });
    const replaced = build({
      input: { goal: 'g2', tasks: [{ description: 't', status: 'done' }], modifiedFiles: [{ path: 'a.ts' }] },
      onDisk,
    }).checkpoint;
    expect(replaced).toMatchObject({ futureField: 1, goal: { futureGoal: 2 }, meta: { futureMeta: 3 } });
    expect(replaced.goal.tasks).toEqual([{ description: 't', status: 'done' }]);
    expect(replaced.modifiedFiles).toEqual([{ path: 'a.ts', status: 'M', source: 'agent', hash: OID_A }]);
  });

  it('never take the place of a field this version writes, nor of one it leaves out', () => {
    const onDisk = { ...fromNewerWriter(), summary: 'old' };
    const replaced = build({ input: { goal: 'g2' }, onDisk }).checkpoint;
    expect(replaced).not.toHaveProperty('summary');
    expect(replaced).toMatchObject({ id: 'id-1', goal: { primary: 'g2' }, meta: { redactions: 0 } });
    expect(unknownFields(onDisk, 'checkpoint')).toEqual({ futureField: 1 });
  });

  it('are redacted, names and nested values included, once', () => {
    const onDisk = fromNewerWriter() as Checkpoint & Record<string, unknown>;
    onDisk.futureField = { list: [`key ${SECRET}`], [`token ${SECRET}`]: true, n: 1 };
    const built = build({ input: { goal: 'g2', mode: 'merge' }, previous: onDisk });
    expect(built.redactions).toBe(2);
    expect(built.checkpoint).toMatchObject({
      futureField: { list: ['key «redacted»'], 'token «redacted»': true, n: 1 },
      meta: { redactions: 2 },
    });
    const again = redactUnknownFields(built.checkpoint, new Redactor());
    expect(again).toEqual(built.checkpoint);
  });

  it('stay fields when named "__proto__"', () => {
    const onDisk = parseCheckpoint(JSON.stringify({ ...first, ['__proto__']: { polluted: true } }));
    const built = build({ input: { goal: 'g2' }, onDisk }).checkpoint;
    expect(Object.keys(built)).toContain('__proto__');
    expect((built as unknown as { polluted?: boolean }).polluted).toBeUndefined();
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  // Review of 2026-12-06: dropped last, a 60 KB unknown field took every command and a third of the files.
  it('count toward the cap, and go first when the file does not fit: the session’s own entries stay', () => {
    const commands = Array.from({ length: 20 }, (_, i) => ({
      command: `make step-${i}`,
      note: 'n'.repeat(150),
    }));
    const busy = { ...first, recentCommands: commands, futureNotes: 'n'.repeat(63_000) } as Checkpoint;
    const fitted = fitToSize(busy, LIMITS.fileBytes);
    expect(fitted.bytes).toBeLessThanOrEqual(LIMITS.fileBytes);
    expect(fitted.checkpoint.recentCommands).toEqual(commands);
    expect(fitted.checkpoint).not.toHaveProperty('futureNotes');
    expect(fitted.checkpoint.meta.truncated).toBe(true);
  });

  it('count toward the cap, and are kept while the file fits', () => {
    const small = { ...first, futureField: 'x'.repeat(1000) } as Checkpoint;
    expect(fitToSize(small, LIMITS.fileBytes).checkpoint).toEqual(small);
    const huge = { ...first, futureField: 'x'.repeat(LIMITS.fileBytes) } as Checkpoint;
    const fitted = fitToSize(huge, LIMITS.fileBytes);
    expect(fitted.bytes).toBeLessThanOrEqual(LIMITS.fileBytes);
    expect(fitted.checkpoint).toEqual({
      ...withoutUnknownFields(huge),
      meta: { ...first.meta, truncated: true },
    });
  });
});

type Shapes = ReturnType<typeof checkpointSchemas>;
