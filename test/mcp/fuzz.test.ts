import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import { connect } from '../helpers/mcp.js';

// CI runs a bounded number; FUZZ_RUNS=5000 npm test runs longer.
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);

const hostile = fc.oneof(
  fc.string({ maxLength: 50 }),
  fc.string({ unit: 'binary', maxLength: 50 }),
  fc.constantFrom(
    '',
    '\0',
    '\u0000\u0001\u001f',
    '../../etc/passwd',
    '/etc/passwd',
    '\ud800',
    'x'.repeat(70_000),
  ),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.anything({ maxDepth: 2 }), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.anything({ maxDepth: 2 }), { maxKeys: 4 }),
);

/** Arguments shaped like each tool's, with any field replaced by something hostile. */
const argsFor = (shape: Record<string, fc.Arbitrary<unknown>>) =>
  fc.record(
    Object.fromEntries(Object.entries(shape).map(([key, value]) => [key, fc.oneof(value, hostile)])),
    {
      requiredKeys: [],
    },
  );

const TOOLS: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  save_session_checkpoint: argsFor({
    goal: fc.string({ maxLength: 600 }),
    tasks: fc.array(
      fc.record({ description: fc.string(), status: fc.constantFrom('pending', 'done', 'nope') }),
      { maxLength: 35 },
    ),
    summary: fc.string({ maxLength: 100 }),
    nextSteps: fc.array(fc.string(), { maxLength: 25 }),
    decisions: fc.array(fc.string(), { maxLength: 25 }),
    modifiedFiles: fc.array(
      fc.record({ path: fc.constantFrom('a.ts', '../x', '/etc/passwd', 'dir/ü.ts', ''), note: fc.string() }),
      { maxLength: 3 },
    ),
    recentCommands: fc.array(
      fc.record({ command: fc.string(), exitCode: fc.oneof(fc.integer(), fc.double()) }),
      { maxLength: 3 },
    ),
    mode: fc.constantFrom('replace', 'merge', 'append'),
  }),
  load_session_checkpoint: argsFor({ format: fc.constantFrom('brief', 'full', 'xml') }),
  snapshot_files: argsFor({ label: fc.string({ maxLength: 250 }) }),
  list_snapshots: argsFor({ limit: fc.integer({ min: -5, max: 2000 }) }),
  diff_snapshot: argsFor({
    snapshotId: fc.constantFrom('latest', 'x', ''),
    path: fc.constantFrom('a.ts', '../x', '/etc/passwd'),
  }),
  restore_snapshot: argsFor({
    snapshotId: fc.constantFrom('latest', 'x'),
    paths: fc.array(fc.constantFrom('a.ts', '../x', '/tmp'), { maxLength: 2 }),
  }),
};

function listTree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[]).sort();
}

describe('fuzzing the tools (fast-check)', () => {
  it('answers every argument with a clear error or a valid result, never crashes, never writes outside root and store', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const outside = tempDir('checkpoint-outside-');
    writeFileSync(path.join(outside, 'untouched.txt'), 'x');
    const store = tempDir('checkpoint-store-');
    const { call } = await connect({ deps: { env: { CHECKPOINT_STORE_DIR: store }, cwd: () => root } });
    const before = listTree(outside);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(TOOLS)), fc.nat(), async (tool, seed) => {
        const args =
          fc.sample(TOOLS[tool] as fc.Arbitrary<Record<string, unknown>>, { seed, numRuns: 1 })[0] ?? {};
        // The project root is fixed so that writes can be checked; dryRun stays on for restores.
        const result = await call(tool, {
          ...args,
          projectRoot: root,
          ...(tool === 'restore_snapshot' ? { dryRun: true } : {}),
        });
        expect(typeof result.text).toBe('string');
        expect(result.text.length).toBeGreaterThan(0);
        if (result.isError)
          expect(result.text).not.toMatch(/^\s*at |TypeError|ReferenceError|undefined is not/);
        else expect(result.structured).toBeDefined();
      }),
      { numRuns: RUNS },
    );
    expect(listTree(outside)).toEqual(before);
    const rootFiles = listTree(root).filter((file) => !file.startsWith('.git'));
    expect(
      rootFiles.every((file) =>
        ['a.ts', '.gitignore', '.claude-checkpoint', '.claude-checkpoint.prev'].includes(file),
      ),
    ).toBe(true);
  }, 120_000);

  it('never crashes on a damaged or hostile checkpoint file: a clear error, or a backup, or a brief', async () => {
    const root = tempDir();
    const { call } = await connect({ deps: { env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } } });
    await call('save_session_checkpoint', { goal: 'a good one', projectRoot: root });
    const good = readFileSync(path.join(root, '.claude-checkpoint'));
    const damage = fc.oneof(
      fc.json().map((json) => Buffer.from(json)),
      fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
      fc.nat({ max: good.length }).map((cut) => good.subarray(0, cut)),
      fc.tuple(fc.nat({ max: good.length - 1 }), fc.integer({ min: 1, max: 255 })).map(([at, bit]) => {
        const copy = Buffer.from(good);
        copy[at] = (copy[at] ?? 0) ^ bit;
        return copy;
      }),
      fc.constantFrom(
        Buffer.from(good.toString().replace('"version": 1', '"version": 99')),
        Buffer.from(
          good.toString().replace('"goal": {', `"goal": {"primary": "${'\u0000'.repeat(10)}", "x": {`),
        ),
        Buffer.from(`${'['.repeat(100_000)}${']'.repeat(100_000)}`),
        Buffer.from([0xff, 0xfe, 0xfd, 0x00]),
        Buffer.alloc(2 * 1024 * 1024, 0x20),
      ),
    );
    await fc.assert(
      fc.asyncProperty(damage, async (bytes) => {
        writeFileSync(path.join(root, '.claude-checkpoint'), bytes);
        const result = await call('load_session_checkpoint', { projectRoot: root });
        expect(result.text.length).toBeGreaterThan(0);
        if (!result.isError) expect(result.structured?.found).toBe(true);
        else expect(result.text).toMatch(/checkpoint|version|unusable|JSON/i);
      }),
      { numRuns: RUNS },
    );
  }, 120_000);
});
