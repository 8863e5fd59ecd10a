import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { restoreSnapshot, takeSnapshot } from '../../src/app/rewind.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import { readTree, repoState } from '../helpers/tree.js';

const NAME = fc.constantFrom(
  'a',
  'b',
  'src',
  'lib',
  'ü',
  '日本',
  'with space',
  "q'uote",
  'x.txt',
  'data.bin',
  'run.sh',
);

type FileSpec = { kind: 'file'; content: Uint8Array; executable: boolean } | { kind: 'link'; target: string };

const fileSpec: fc.Arbitrary<FileSpec> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('file' as const),
      content: fc.uint8Array({ maxLength: 300 }),
      executable: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('link' as const),
      target: fc.constantFrom('a', '../a', 'missing/target', 'src/x.txt'),
    }),
  },
);

/** A random tree: paths of depth 1–3 without a file standing where a folder must go. */
const treeSpec = fc
  .array(fc.tuple(fc.array(NAME, { minLength: 1, maxLength: 3 }), fileSpec), { minLength: 1, maxLength: 25 })
  .map((entries) => {
    const tree = new Map<string, FileSpec>();
    for (const [parts, spec] of entries) {
      const file = parts.join('/');
      const clashes = [...tree.keys()].some(
        (other) => other.startsWith(`${file}/`) || file.startsWith(`${other}/`),
      );
      if (!clashes && !tree.has(file)) tree.set(file, spec);
    }
    return tree;
  });

type Mutation =
  | { op: 'delete' | 'chmod' | 'to-link'; index: number }
  | { op: 'write'; index: number; content: string }
  | { op: 'create'; name: string; content: string }
  | { op: 'shell'; script: 'rm' | 'mv' | 'append' | 'mkdir'; index: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    op: fc.constantFrom('delete' as const, 'chmod' as const, 'to-link' as const),
    index: fc.nat(),
  }),
  fc.record({ op: fc.constant('write' as const), index: fc.nat(), content: fc.string() }),
  fc.record({
    op: fc.constant('create' as const),
    name: fc.constantFrom('new.txt', 'dir/new.txt', 'ü/新しい.txt'),
    content: fc.string(),
  }),
  fc.record({
    op: fc.constant('shell' as const),
    script: fc.constantFrom('rm' as const, 'mv' as const, 'append' as const, 'mkdir' as const),
    index: fc.nat(),
  }),
);

function writeSpecTree(root: string, tree: Map<string, FileSpec>): void {
  for (const [file, spec] of tree) {
    const absolute = path.join(root, file);
    mkdirSync(path.dirname(absolute), { recursive: true });
    if (spec.kind === 'link') symlinkSync(spec.target, absolute);
    else {
      writeFileSync(absolute, spec.content);
      chmodSync(absolute, spec.executable ? 0o755 : 0o644);
    }
  }
}

function mutate(root: string, files: string[], change: Mutation): void {
  if (change.op === 'create') {
    // Only through real folders: a link or file on the way means this mutation does not apply.
    const parts = change.name.split('/');
    for (let depth = 1; depth <= parts.length; depth++) {
      const stats = lstatSync(path.join(root, ...parts.slice(0, depth)), { throwIfNoEntry: false });
      if (stats && (depth === parts.length || !stats.isDirectory())) return;
    }
    const absolute = path.join(root, change.name);
    mkdirSync(path.dirname(absolute), { recursive: true });
    writeFileSync(absolute, change.content);
    return;
  }
  const file = files[change.index % files.length] as string;
  const absolute = path.join(root, file);
  const stats = lstatSync(absolute, { throwIfNoEntry: false });
  if (!stats) return;
  const quoted = `'${file.replaceAll("'", "'\\''")}'`;
  switch (change.op) {
    case 'delete':
      rmSync(absolute, { recursive: true });
      break;
    case 'chmod':
      if (stats.isFile()) chmodSync(absolute, stats.mode & 0o100 ? 0o644 : 0o755);
      break;
    case 'to-link':
      rmSync(absolute, { recursive: true });
      symlinkSync('elsewhere', absolute);
      break;
    case 'write':
      if (stats.isFile()) writeFileSync(absolute, change.content);
      break;
    case 'shell': {
      const script = {
        rm: `rm -rf ${quoted}`,
        mv: `mv ${quoted} moved-by-shell.txt`,
        append: `[ -f ${quoted} ] && [ ! -L ${quoted} ] && echo appended >> ${quoted} || true`,
        mkdir: `rm -rf ${quoted} && mkdir -p ${quoted} && echo inside > ${quoted}/child.txt`,
      }[change.script];
      execFileSync('sh', ['-c', script], { cwd: root });
      break;
    }
  }
}

const isIgnored = (relative: string) =>
  relative === 'ignored' || relative.startsWith('ignored/') || relative.endsWith('.log');

describe('snapshot → mutate → restore (property)', () => {
  it('restores the tree byte for byte, leaves ignored files and the repository alone, and can be undone', async () => {
    await fc.assert(
      fc.asyncProperty(
        treeSpec,
        fc.array(mutation, { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        async (tree, changes, commitFirst) => {
          const root = createRepo({
            committed: commitFirst ? { 'base.txt': 'base' } : {},
            ignore: 'ignored/\n*.log\n.claude-checkpoint*\n',
          });
          writeSpecTree(root, tree);
          mkdirSync(path.join(root, 'ignored'), { recursive: true });
          writeFileSync(path.join(root, 'ignored/cache.bin'), 'cache');
          writeFileSync(path.join(root, 'build.log'), 'log one');
          const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } });
          const gitBefore = repoState(root);
          const snapshot = await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt' });
          const captured = readTree(root, isIgnored);

          for (const change of changes) mutate(root, [...tree.keys()], change);
          writeFileSync(path.join(root, 'build.log'), 'log two');
          const mutated = readTree(root, isIgnored);

          const restored = await restoreSnapshot(deps, {
            projectRoot: root,
            snapshotId: snapshot.snapshot.id,
            dryRun: false,
          });
          expect(readTree(root, isIgnored)).toEqual(captured);
          expect(readTree(root, (p) => !isIgnored(p) && p !== 'ignored')).toEqual({
            'build.log': {
              kind: 'file',
              content: Buffer.from('log two').toString('base64'),
              executable: false,
            },
            'ignored/cache.bin': {
              kind: 'file',
              content: Buffer.from('cache').toString('base64'),
              executable: false,
            },
          });
          expect(repoState(root)).toEqual(gitBefore);

          await restoreSnapshot(deps, {
            projectRoot: root,
            snapshotId: restored.undoSnapshotId as string,
            dryRun: false,
          });
          expect(readTree(root, isIgnored)).toEqual(mutated);
          rmSync(root, { recursive: true, force: true });
        },
      ),
      // A run that hangs (one timed the whole test out once, in a full suite on a loaded machine) fails
      // as a counterexample, printed with its seed and path, instead of a bare timeout; no shrinking then,
      // whose runs could each hang as long (replay the seed to shrink).
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 12), timeout: 45_000, endOnFailure: true },
    );
  }, 120_000);
});
