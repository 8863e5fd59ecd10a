import { describe, expect, it } from 'vitest';
import { formatIssues, loadInputSchema, saveInputSchema } from '../../src/core/input.js';

function problem(input: unknown): string {
  const result = saveInputSchema.safeParse(input);
  if (result.success) throw new Error('expected a validation error');
  return formatIssues(result.error);
}

describe('saveInputSchema', () => {
  it('accepts the full example of the original tool', () => {
    const result = saveInputSchema.safeParse({
      goal: 'Add GitHub OAuth login with persistent sessions',
      tasks: [{ description: 'OAuth callback route', status: 'done' }],
      summary: 's',
      nextSteps: ['n'],
      decisions: ['d'],
      modifiedFiles: [{ path: 'src/auth/session.ts', note: 'cookie options' }],
      recentCommands: [{ command: 'npm test -- auth', exitCode: 1, note: '2 failing' }],
      mode: 'merge',
      projectRoot: '/home/me/code/my-app',
    });
    expect(result.success).toBe(true);
  });

  it.each([
    ['a missing goal', {}, /^goal: is required/],
    ['a goal of the wrong type', { goal: 5 }, /^goal: must be a string/],
    ['an empty goal', { goal: '  ' }, /^goal: must not be empty/],
    ['a long goal', { goal: 'x'.repeat(501) }, /^goal: must be at most 500 characters \(got 501\)/],
    ['a long summary', { goal: 'g', summary: 'x'.repeat(4001) }, /^summary: must be at most 4000 characters/],
    // Bad-input trial: an empty summary erased the saved one on a merge; leaving it out keeps it.
    ['an empty summary', { goal: 'g', summary: '' }, /^summary: must not be empty/],
    ['a whitespace-only summary', { goal: 'g', summary: ' \n\t ' }, /^summary: must not be empty/],
    [
      '31 tasks',
      { goal: 'g', tasks: Array(31).fill({ description: 'd', status: 'done' }) },
      /^tasks: must have at most 30 items \(got 31\)/,
    ],
    [
      'a bad task status',
      { goal: 'g', tasks: [{ description: 'd', status: 'finished' }] },
      /^tasks\.0\.status: must be one of pending, in_progress, done, blocked/,
    ],
    [
      '21 next steps',
      { goal: 'g', nextSteps: Array(21).fill('s') },
      /^nextSteps: must have at most 20 items/,
    ],
    ['21 decisions', { goal: 'g', decisions: Array(21).fill('d') }, /^decisions: must have at most 20 items/],
    [
      '101 files',
      { goal: 'g', modifiedFiles: Array(101).fill({ path: 'a' }) },
      /^modifiedFiles: must have at most 100 items/,
    ],
    [
      '51 commands',
      { goal: 'g', recentCommands: Array(51).fill({ command: 'c' }) },
      /^recentCommands: must have at most 50 items/,
    ],
    [
      'a fractional exit code',
      { goal: 'g', recentCommands: [{ command: 'c', exitCode: 1.5 }] },
      /^recentCommands\.0\.exitCode: must be an integer/,
    ],
    ['an unknown mode', { goal: 'g', mode: 'append' }, /^mode: must be "replace" or "merge"/],
    [
      'an empty path',
      { goal: 'g', modifiedFiles: [{ path: '' }] },
      /^modifiedFiles\.0\.path: must not be empty/,
    ],
    [
      'an unknown top-level field, with the one meant',
      { goal: 'g', files: [{ path: 'a' }] },
      /^unknown field "files"; did you mean "modifiedFiles"\? \(accepted: goal, tasks, summary,/,
    ],
    [
      'an unknown field of a task',
      { goal: 'g', tasks: [{ name: 'd', description: 'd', status: 'done' }] },
      /^tasks\.0: unknown field "name"; did you mean "description"\?/,
    ],
    [
      'an unknown field of a command, with no guess',
      { goal: 'g', recentCommands: [{ command: 'c', cwd: '/x' }] },
      /^recentCommands\.0: unknown field "cwd" \(accepted: command, exitCode, note\)$/,
    ],
  ])('rejects %s, naming the field and the limit', (_name, input, message) => {
    expect(problem(input)).toMatch(message);
  });
});

// The slips a new user made (issue 26): an alias, another case, a singular for a plural.
it.each([
  [{ goal: 'g', task: [] }, 'task', 'tasks'],
  [{ goal: 'g', decision: [] }, 'decision', 'decisions'],
  [{ goal: 'g', next: [] }, 'next', 'nextSteps'],
  [{ Goal: 'g' }, 'Goal', 'goal'],
  [{ goal: 'g', notes: 'n' }, 'notes', 'summary'],
  [{ objective: 'g' }, 'objective', 'goal'],
  [{ goal: 'g', modifiedFiles: [{ path: 'a', notes: 'n' }] }, 'notes', 'note'],
] as Array<[unknown, string, string]>)('names the field meant for %j', (input, field, meant) => {
  expect(problem(input)).toContain(`unknown field "${field}"; did you mean "${meant}"?`);
});

describe('loadInputSchema', () => {
  it('accepts nothing at all, and rejects an unknown format', () => {
    expect(loadInputSchema.safeParse({}).success).toBe(true);
    const result = loadInputSchema.safeParse({ format: 'xml' });
    expect(result.success ? '' : formatIssues(result.error)).toBe('format: must be "brief" or "full"');
  });

  it('rejects an unknown field instead of ignoring it', () => {
    const result = loadInputSchema.safeParse({ project_root: '/x' });
    expect(result.success ? '' : formatIssues(result.error)).toBe(
      'unknown field "project_root"; did you mean "projectRoot"? (accepted: format, projectRoot)',
    );
  });
});
