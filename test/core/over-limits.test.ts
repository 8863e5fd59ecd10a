import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/core/limits.js';
import { describeOverLimits, fieldsOverLimits, withinTextLimits } from '../../src/core/over-limits.js';
import type { Checkpoint } from '../../src/core/schema.js';

const base: Checkpoint = {
  version: 1,
  id: 'id',
  createdAt: '2026-12-07T00:00:00.000Z',
  updatedAt: '2026-12-07T00:00:00.000Z',
  generator: { name: 'claude-checkpoint-mcp', version: '0.1.0' },
  project: { name: 'p' },
  git: null,
  goal: { primary: 'g', tasks: [{ description: 't', status: 'done' }] },
  nextSteps: ['n'],
  decisions: ['d'],
  modifiedFiles: [{ path: 'a.ts', status: 'M', source: 'agent', note: 'n' }],
  recentCommands: [{ command: 'ls', note: 'n' }],
  meta: { redactions: 0, truncated: false },
};

// An emoji is one character, as the tools' limits count.
const chars = (count: number) => '😀'.repeat(count);

describe('fieldsOverLimits', () => {
  it.each([
    [
      'goal.primary',
      { ...base, goal: { ...base.goal, primary: chars(LIMITS.goalChars + 1) } },
      LIMITS.goalChars,
    ],
    ['summary', { ...base, summary: chars(LIMITS.summaryChars + 1) }, LIMITS.summaryChars],
    ['nextSteps', { ...base, nextSteps: Array(LIMITS.nextSteps + 1).fill('n') }, LIMITS.nextSteps],
    ['decisions[0]', { ...base, decisions: [chars(LIMITS.decisionChars + 1)] }, LIMITS.decisionChars],
    [
      'goal.tasks[0].description',
      { ...base, goal: { ...base.goal, tasks: [{ description: chars(301), status: 'done' as const }] } },
      LIMITS.taskDescriptionChars,
    ],
    [
      'recentCommands[0].command',
      { ...base, recentCommands: [{ command: chars(LIMITS.commandChars + 1) }] },
      LIMITS.commandChars,
    ],
  ])('names %s one past its limit, and nothing at it', (field, checkpoint, limit) => {
    expect(fieldsOverLimits(checkpoint as Checkpoint)).toEqual([
      expect.objectContaining({ field, got: limit + 1, limit }),
    ]);
    expect(fieldsOverLimits(withinTextLimits(checkpoint as Checkpoint))).toEqual([]);
  });

  it('finds nothing in a checkpoint a save wrote, and describes a long list briefly', () => {
    expect(fieldsOverLimits(base)).toEqual([]);
    // One call names at most 100 files; merges and git's scan record more (the 64 KB cap bounds them).
    const merged = Array.from({ length: 200 }, (_, at) => ({ path: `f${at}.txt`, status: 'M' as const }));
    expect(fieldsOverLimits({ ...base, modifiedFiles: merged } as Checkpoint)).toEqual([]);
    const over = Array.from({ length: 7 }, (_, at) => ({
      field: `f${at}`,
      got: 2,
      limit: 1,
      unit: 'items' as const,
    }));
    expect(describeOverLimits(over)).toBe(
      'f0 (2 items; limit 1), f1 (2 items; limit 1), f2 (2 items; limit 1), f3 (2 items; limit 1), f4 (2 items; limit 1) and 2 more',
    );
  });
});
