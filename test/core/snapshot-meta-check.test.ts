import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlainSnapshotMeta } from '../../src/core/snapshot-meta-check.js';
import { snapshotMetaSchema } from '../../src/core/snapshot-schema.js';

// Listing snapshots skips zod when the plain check accepts: it must never accept what the schema refuses,
// and what it accepts must be what the schema would return (the schema drops unknown nested keys).
/** The valid values nine times in ten: most generated metadata is valid, the rest wrong in one place or few. */
const mostly = <T, U>(valid: fc.Arbitrary<T>, invalid: fc.Arbitrary<U>) =>
  fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: invalid, weight: 1 });
const count = mostly(fc.nat(), fc.oneof(fc.integer({ min: -2, max: -1 }), fc.double(), fc.constant(2 ** 53)));
/** A file's stamp (see FileStamp): decimal strings, now and then not one. */
const stamp = mostly(fc.bigInt({ min: 0n, max: 2n ** 64n }).map(String), fc.integer());
const withExtra = <T extends object>(record: fc.Arbitrary<T>) =>
  fc
    .tuple(
      record,
      fc.option(fc.dictionary(fc.constantFrom('x', 'future', 'toString'), fc.jsonValue(), { maxKeys: 1 }), {
        freq: 8,
      }),
    )
    .map(([known, more]) => ({ ...(more ?? {}), ...known }));

const meta = withExtra(
  fc.record(
    {
      id: mostly(
        fc.constant('20261130-140102-a1b2c3'),
        fc.constantFrom('20261130-140102-A1B2C3', '2026-11-30', ''),
      ),
      createdAt: mostly(fc.constant('2026-11-30T14:01:02.000Z'), fc.integer()),
      trigger: mostly(fc.constantFrom('manual', 'prompt'), fc.constantFrom('', 3)),
      label: mostly(fc.string(), fc.integer()),
      sessionId: mostly(fc.string(), fc.constant(null)),
      agent: fc.constantFrom('claude', 'codex'),
      promptId: fc.string(),
      transcriptPath: fc.string(),
      git: fc.option(
        withExtra(
          fc.record(
            { branch: fc.option(fc.string()), head: mostly(fc.string(), fc.integer()) },
            { requiredKeys: ['head'] },
          ),
        ),
        { freq: 5 },
      ),
      changes: withExtra(fc.record({ added: count, modified: count, deleted: count })),
      skipped: withExtra(
        fc.record({
          large: fc.array(
            withExtra(
              fc.record(
                { path: fc.string(), bytes: count, mtimeNs: stamp, ino: stamp },
                { requiredKeys: ['path', 'bytes'] },
              ),
            ),
            { maxLength: 2 },
          ),
          nested: fc.array(mostly(fc.string(), fc.integer()), { maxLength: 2 }),
        }),
      ),
      aside: withExtra(fc.record({ kept: count, created: count })),
      held: fc.array(
        withExtra(
          fc.record(
            { path: fc.string(), bytes: count, mtimeNs: stamp, ino: stamp },
            { requiredKeys: ['path', 'bytes'] },
          ),
        ),
        { maxLength: 2 },
      ),
    },
    { requiredKeys: ['id', 'createdAt', 'trigger', 'git', 'changes', 'skipped'] },
  ),
);

describe('the plain check of snapshot metadata', () => {
  it('accepts what this code writes', () => {
    const written = {
      id: '20261130-140102-a1b2c3',
      createdAt: '2026-11-30T14:01:02.000Z',
      trigger: 'prompt',
      sessionId: 's1',
      agent: 'claude',
      git: { branch: 'main', head: 'a'.repeat(40) },
      changes: { added: 1, modified: 2, deleted: 0 },
      skipped: {
        large: [
          { path: 'big.bin', bytes: 9_000_000, mtimeNs: '1796659200123456789', ino: '18446744073709551615' },
          { path: 'old.bin', bytes: 9_000_000 },
        ],
        nested: ['vendor/lib'],
      },
      held: [{ path: 'data.bin', bytes: 30_000_000, mtimeNs: '1796659200123456789', ino: '42' }],
    };
    expect(isPlainSnapshotMeta(written)).toBe(true);
    expect(snapshotMetaSchema.parse(written)).toEqual(written);
  });

  it('accepts only what the schema accepts, and returns what the schema returns', () => {
    let accepted = 0;
    fc.assert(
      fc.property(meta, (value) => {
        if (!isPlainSnapshotMeta(value)) return;
        accepted++;
        const parsed = snapshotMetaSchema.safeParse(value);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toStrictEqual(value);
      }),
      { numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(30);
  });

  it('leaves to zod only a small share of valid metadata (unknown nested keys)', () => {
    const plainKeys = (value: Record<string, unknown>) =>
      ['git', 'changes', 'skipped', 'aside'].every((key) => {
        const nested = value[key] as Record<string, unknown> | null | undefined;
        return !nested || !['x', 'future', 'toString'].some((extra) => Object.hasOwn(nested, extra));
      });
    fc.assert(
      fc.property(meta, (value) => {
        const large = (value.skipped as { large?: unknown[] } | undefined)?.large ?? [];
        const held = (value as { held?: unknown[] }).held ?? [];
        const strictItems = [...large, ...held].every(
          (item) => !['x', 'future', 'toString'].some((extra) => Object.hasOwn(item as object, extra)),
        );
        if (snapshotMetaSchema.safeParse(value).success && plainKeys(value) && strictItems)
          expect(isPlainSnapshotMeta(value)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
