import { execFileSync } from 'node:child_process';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countChangesAlongChain } from '../../src/core/rewind-refs.js';
import type { ChangeCounts } from '../../src/core/snapshot.js';
import { changesBetweenPairs } from '../../src/store/snapshot-diff.js';
import { storeGit } from '../../src/store/store-git.js';
import { git, tempDir } from '../helpers/fixtures.js';

/**
 * Issue 28: `rewind --list` counts what changed after every prompt from one `git diff-tree --stdin` along
 * the chain of the prompts' trees. These counts must be exactly those of one whole diff per prompt.
 */

// Names that collide as file and folder (a, a/x; d/e, d/e/z), in the tree's root and deeper.
const PATHS = ['a', 'b', 'a/x', 'd/x', 'd/y', 'd/e', 'd/e/z', 'link'] as const;
const MODES = ['100644', '100755', '120000', '160000'] as const;

type Op = { kind: 'write'; path: string; mode: string; content: number } | { kind: 'delete'; path: string };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('write' as const),
    path: fc.constantFrom(...PATHS),
    mode: fc.constantFrom(...MODES),
    content: fc.integer({ min: 0, max: 2 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), path: fc.constantFrom(...PATHS) }),
);
// Each step is one tree of the history; an empty step repeats the tree before it.
const history = fc.array(fc.array(op, { maxLength: 4 }), { minLength: 2, maxLength: 8 });

/** Commits each state of the history with `git fast-import`; returns the trees, oldest first. */
function treesOf(root: string, steps: readonly Op[][]): string[] {
  const state = new Map<string, { mode: string; content: number }>();
  let stream = '';
  for (const [index, step] of steps.entries()) {
    for (const change of step) {
      // A file and a folder of the same name cannot both be there: the newest wins.
      for (const known of [...state.keys()])
        if (known.startsWith(`${change.path}/`) || change.path.startsWith(`${known}/`)) state.delete(known);
      if (change.kind === 'delete') state.delete(change.path);
      else state.set(change.path, { mode: change.mode, content: change.content });
    }
    stream += `commit refs/heads/h\ncommitter T <t@example.com> ${1_700_000_000 + index} +0000\ndata 0\ndeleteall\n`;
    for (const [file, { mode, content }] of state) {
      if (mode === '160000') stream += `M 160000 ${String(content + 1).repeat(40)} ${file}\n`;
      else {
        const data = mode === '120000' ? `target-${content}` : `content ${content}\n`;
        stream += `M ${mode} inline ${file}\ndata ${Buffer.byteLength(data)}\n${data}\n`;
      }
    }
    stream += '\n';
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: root, input: stream });
  return git(root, 'log', '--reverse', '--format=%T', 'refs/heads/h').trim().split('\n');
}

/** What changed from `tree` to `now` by a whole `git diff` of the two, nested repositories not counted. */
function wholeDiffCounts(root: string, tree: string, now: string): ChangeCounts {
  const counts: ChangeCounts = { added: 0, modified: 0, deleted: 0 };
  const raw = git(root, 'diff', '--raw', '--no-renames', '-r', tree, now);
  for (const line of raw.split('\n').filter(Boolean)) {
    const [beforeMode, afterMode, , , status] = line.slice(1).split(/\s+/);
    if (beforeMode === '160000' || afterMode === '160000') continue;
    if (status === 'A') counts.added++;
    else if (status === 'D') counts.deleted++;
    else counts.modified++;
  }
  return counts;
}

describe('change counts along a chain of trees (issue 28)', () => {
  it('equal a whole diff per tree, for random histories of adds, edits, mode and type changes, file/folder swaps and nested repositories', async () => {
    await fc.assert(
      fc.asyncProperty(history, async (steps) => {
        const root = tempDir('checkpoint-chain-');
        git(root, 'init', '-q');
        const trees = treesOf(root, steps);
        const now = trees[trees.length - 1] as string;
        // The prompts, newest first, as rewind --list holds them; the last tree is the working tree now.
        const prompts = trees.slice(0, -1).reverse();
        const pairs = prompts.map(
          (tree, index) => [tree, index === 0 ? now : (prompts[index - 1] as string)] as const,
        );
        const counted = countChangesAlongChain(
          await changesBetweenPairs(storeGit(path.join(root, '.git'), root), pairs),
        );
        expect(counted).toEqual(prompts.map((tree) => wholeDiffCounts(root, tree, now)));
      }),
      { numRuns: 36 },
    );
  }, 120_000);

  it('one pair of the same tree is answered without git', async () => {
    const never = () => Promise.reject(new Error('git was started'));
    expect(await changesBetweenPairs(never, [['t', 't']])).toEqual([[]]);
  });
});
