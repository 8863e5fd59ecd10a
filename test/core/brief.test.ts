import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BRIEF_MAX_CHARS, code, renderResumeBrief } from '../../src/core/brief.js';
import type { Drift } from '../../src/core/drift.js';
import { LIMITS } from '../../src/core/limits.js';
import { parseCheckpoint } from '../../src/core/schema.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');
const example = parseCheckpoint(fixture('spec-example.json'));
const savedAt = new Date(example.updatedAt);
const twoMinutesLater = new Date(savedAt.getTime() + 2 * 60_000 + 5_000);
const exampleDrift: Drift = {
  branchChanged: false,
  currentBranch: 'feat/github-oauth',
  commitsSince: 1,
  changedSince: ['src/auth/session.ts'],
  savedHeadReachable: true,
  flaggedSince: null,
};

describe('renderResumeBrief', () => {
  it("reproduces the original tool's example brief byte for byte", () => {
    const brief = renderResumeBrief({ checkpoint: example, drift: exampleDrift, now: twoMinutesLater });
    expect(brief).toBe(fixture('spec-example-brief.md'));
  });

  it('stays about as small as the example (~1.2 KB)', () => {
    const brief = renderResumeBrief({ checkpoint: example, drift: exampleDrift, now: twoMinutesLater });
    expect(Buffer.byteLength(brief)).toBeLessThan(1300);
  });

  it('leaves out empty sections and says when nothing drifted', () => {
    const bare = {
      ...example,
      summary: undefined,
      nextSteps: [],
      decisions: [],
      recentCommands: [],
      modifiedFiles: [],
    };
    bare.goal = { ...bare.goal, tasks: [] };
    const brief = renderResumeBrief({
      checkpoint: bare,
      drift: { ...exampleDrift, commitsSince: 0, changedSince: [] },
      now: twoMinutesLater,
    });
    expect(brief).not.toMatch(
      /## (Tasks|Where things stand|Next steps|Decisions|Files touched|Recent commands)/,
    );
    expect(brief).toContain('- No file changed after the checkpoint');
    expect(brief).not.toContain('new commit');
  });

  it.each([
    [
      'a changed branch',
      { branchChanged: true, currentBranch: 'main' },
      '- Branch changed: `feat/github-oauth` → `main`',
    ],
    [
      'an unreachable saved commit',
      { savedHeadReachable: false, commitsSince: null },
      '- ⚠ Saved commit b2ef1b591 is no longer reachable',
    ],
    ['a detached HEAD now', { branchChanged: true, currentBranch: null }, '→ `detached HEAD`'],
  ] as const)('reports %s', (_name, change, expected) => {
    const brief = renderResumeBrief({
      checkpoint: example,
      drift: { ...exampleDrift, ...change },
      now: twoMinutesLater,
    });
    expect(brief).toContain(expected);
  });

  it('has no "Since this checkpoint" section without git at save time', () => {
    const brief = renderResumeBrief({
      checkpoint: { ...example, git: null },
      drift: null,
      now: twoMinutesLater,
    });
    expect(brief).not.toContain('Since this checkpoint');
    expect(brief).not.toContain('Branch');
  });

  it('caps long file and command lists and points to the full format', () => {
    const many = {
      ...example,
      modifiedFiles: Array.from({ length: 55 }, (_, i) => ({
        path: `f${i}.ts`,
        status: 'M' as const,
        source: 'git' as const,
      })),
      recentCommands: Array.from({ length: 30 }, (_, i) => ({ command: `cmd ${i}`, exitCode: 0 })),
    };
    const brief = renderResumeBrief({ checkpoint: many, drift: exampleDrift, now: twoMinutesLater });
    expect(brief).toContain('## Files touched (55)');
    expect(brief).toContain('- … and 15 more (load with format "full" for all)');
    expect(brief).toContain('## Recent commands (last 10, oldest first)');
    expect(brief).toContain('`cmd 29`');
    expect(brief).not.toContain('`cmd 19`');
  });

  it('fits a checkpoint filled to every limit under the 9,000-character budget, keeping what matters', () => {
    const long = (n: number) => 'x'.repeat(n);
    const full = {
      ...example,
      goal: {
        primary: long(LIMITS.goalChars),
        tasks: Array.from({ length: LIMITS.tasks }, (_, i) => ({
          description: `${i} ${long(296)}`,
          status: 'pending' as const,
        })),
      },
      summary: long(LIMITS.summaryChars),
      nextSteps: Array.from({ length: LIMITS.nextSteps }, () => long(LIMITS.nextStepChars)),
      decisions: Array.from({ length: LIMITS.decisions }, () => long(LIMITS.decisionChars)),
      modifiedFiles: Array.from({ length: 300 }, (_, i) => ({
        path: `src/${long(80)}/${i}.ts`,
        status: 'M' as const,
        source: 'git' as const,
        note: long(500),
      })),
      recentCommands: Array.from({ length: LIMITS.recentCommands }, () => ({
        command: long(2000),
        exitCode: 1,
        note: long(500),
      })),
    };
    const brief = renderResumeBrief({
      checkpoint: full,
      drift: { ...exampleDrift, changedSince: ['src/a.ts', 'src/b.ts'] },
      now: twoMinutesLater,
    });
    expect(brief.length).toBeLessThanOrEqual(BRIEF_MAX_CHARS);
    expect(brief).toContain('## Goal');
    expect(brief).toContain(
      '- ⚠ Changed after the checkpoint, re-read before editing: `src/a.ts`, `src/b.ts`',
    );
    expect(brief).toContain('(load with format "full" for all)');
  });

  it('cuts as a last resort, and says so, when even the terse form is too long', () => {
    const brief = renderResumeBrief({
      checkpoint: example,
      drift: exampleDrift,
      now: twoMinutesLater,
      maxChars: 300,
    });
    expect(brief.length).toBeLessThanOrEqual(300);
    expect(brief).toMatch(/brief cut to fit; load with format "full" for everything\)\n$/);
  });

  it('marks blocked tasks and commands without an exit code', () => {
    const checkpoint = {
      ...example,
      goal: { ...example.goal, tasks: [{ description: 'Deploy', status: 'blocked' as const }] },
      recentCommands: [{ command: 'make', note: 'slow' }],
    };
    const brief = renderResumeBrief({ checkpoint, drift: exampleDrift, now: twoMinutesLater });
    expect(brief).toContain('- [!] Deploy');
    expect(brief).toContain('- `make` — slow');
  });

  it('shows notices under the header', () => {
    const brief = renderResumeBrief({
      checkpoint: example,
      drift: exampleDrift,
      now: twoMinutesLater,
      notices: ['Loaded the backup.'],
    });
    expect(brief.split('\n')[2]).toBe('> ⚠ Loaded the backup.');
  });
});

describe('code', () => {
  it.each([
    ['npm test', '`npm test`'],
    ['echo `date`', '`` echo `date` ``'],
    ['a ``b`` c', '```a ``b`` c```'],
  ])('wraps %j', (value, expected) => {
    expect(code(value)).toBe(expected);
  });
});
