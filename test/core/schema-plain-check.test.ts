import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkpointSchemas, isPlainlyValid, parseCheckpoint } from '../../src/core/schema.js';

// The plain check is a shortcut past zod: it must never accept what the schema refuses. Both are run
// on checkpoints generated from the format's fields and then damaged at a random place.
const example = JSON.parse(
  readFileSync(new URL('../fixtures/spec-example.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

const zodAccepts = (value: unknown) => checkpointSchemas().checkpointSchema.safeParse(value).success;
const hex = (length: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length });
const oid = fc.oneof(hex(40), hex(64), hex(41), fc.string());
const time = fc.oneof(
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  fc.constantFrom('2026-12-01', 'yesterday', '', '2026-13-45T00:00:00Z'),
);
const extra = fc.dictionary(fc.constantFrom('x', 'future', '__proto__', 'toString'), fc.jsonValue(), {
  maxKeys: 2,
});
const loose = <T extends object>(record: fc.Arbitrary<T>) =>
  fc.tuple(record, extra).map(([known, more]) => ({ ...more, ...known }));

const checkpoint = loose(
  fc.record(
    {
      version: fc.constantFrom(1, 1, 1, 2, '1'),
      id: fc.oneof(fc.uuid(), fc.constant('')),
      createdAt: time,
      updatedAt: time,
      generator: loose(fc.record({ name: fc.string(), version: fc.string() })),
      project: loose(fc.record({ name: fc.string() })),
      git: fc.option(loose(fc.record({ branch: fc.option(fc.string()), head: oid, dirty: fc.boolean() }))),
      goal: loose(
        fc.record({
          primary: fc.string(),
          tasks: fc.array(
            loose(
              fc.record({
                description: fc.string(),
                status: fc.constantFrom('pending', 'in_progress', 'done', 'blocked', 'finished'),
              }),
            ),
            { maxLength: 3 },
          ),
        }),
      ),
      summary: fc.string(),
      nextSteps: fc.array(fc.string(), { maxLength: 3 }),
      decisions: fc.array(fc.string(), { maxLength: 3 }),
      modifiedFiles: fc.array(
        loose(
          fc.record(
            {
              path: fc.string({ maxLength: 8 }),
              status: fc.constantFrom('M', 'A', 'D', 'R', '??', 'X'),
              source: fc.constantFrom('git', 'agent', 'user'),
              note: fc.string(),
              hash: oid,
            },
            { requiredKeys: ['path', 'status', 'source'] },
          ),
        ),
        { maxLength: 4 },
      ),
      recentCommands: fc.array(
        loose(
          fc.record(
            {
              command: fc.string(),
              exitCode: fc.oneof(fc.integer(), fc.double(), fc.constant(2 ** 53)),
              note: fc.string(),
              at: time,
            },
            { requiredKeys: ['command'] },
          ),
        ),
        { maxLength: 4 },
      ),
      meta: loose(
        fc.record(
          {
            redactions: fc.oneof(fc.nat(), fc.integer({ min: -3, max: -1 }), fc.double()),
            truncated: fc.boolean(),
            flagged: loose(fc.record({ since: time, paths: fc.array(fc.string(), { maxLength: 3 }) })),
            derived: loose(
              fc.record(
                { goal: fc.oneof(fc.string(), fc.integer()), tasks: fc.string(), summary: fc.string() },
                { requiredKeys: [] },
              ),
            ),
            journaled: fc.oneof(
              fc.array(fc.string(), { maxLength: 3 }),
              fc.array(fc.integer(), { maxLength: 2 }),
            ),
          },
          { requiredKeys: ['redactions', 'truncated'] },
        ),
      ),
    },
    { requiredKeys: ['version', 'id', 'createdAt', 'updatedAt', 'generator', 'project', 'git', 'goal'] },
  ),
);

/** Replaces (or deletes) the value at one place in the tree, chosen by `pick`. */
function damage(value: unknown, pick: number, replacement: unknown, remove: boolean): unknown {
  const places: Array<{ parent: Record<string, unknown> | unknown[]; key: string | number }> = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node))
      for (const [index, child] of node.entries()) {
        places.push({ parent: node, key: index });
        walk(child);
      }
    else if (node && typeof node === 'object')
      for (const [key, child] of Object.entries(node)) {
        places.push({ parent: node as Record<string, unknown>, key });
        walk(child);
      }
  };
  const copy = structuredClone(value);
  walk(copy);
  const place = places[pick % Math.max(places.length, 1)];
  if (!place) return copy;
  if (remove && !Array.isArray(place.parent)) delete (place.parent as Record<string, unknown>)[place.key];
  else (place.parent as Record<string | number, unknown>)[place.key] = replacement;
  return copy;
}

describe('the plain check past zod', () => {
  it('accepts the spec example, as zod does', () => {
    expect(isPlainlyValid(example)).toBe(true);
    expect(zodAccepts(example)).toBe(true);
  });

  it('agrees with zod on generated checkpoints', () => {
    fc.assert(
      fc.property(checkpoint, (value) => {
        expect(isPlainlyValid(value)).toBe(zodAccepts(value));
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees with zod on checkpoints damaged at a random place', () => {
    fc.assert(
      fc.property(
        fc.oneof(checkpoint, fc.constant(example)),
        fc.nat(),
        fc.oneof(fc.jsonValue(), fc.constant(undefined), fc.constant(new Array(1)) /* a hole */),
        fc.boolean(),
        (value, pick, replacement, remove) => {
          const damaged = damage(value, pick, replacement, remove);
          expect(isPlainlyValid(damaged)).toBe(zodAccepts(damaged));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('parseCheckpoint gives the same checkpoint either way, and zod explains what the check refuses', () => {
    const text = JSON.stringify({ ...example, future: { kept: true } });
    expect(parseCheckpoint(text)).toEqual(checkpointSchemas().checkpointSchema.parse(JSON.parse(text)));
    expect(() => parseCheckpoint(JSON.stringify({ ...example, id: '' }))).toThrow(
      'checkpoint field id is invalid',
    );
  });
});
