import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { withCommonOptions } from '../../src/cli/context.js';
import { ROOTLESS_FLAGS } from '../../src/cli/early-status.js';

// The loader starts `status`'s git status early only for a command line whose flags cannot move the
// project root. A flag added to every command and not listed there would quietly turn the early start
// off for it (or, for one that moves the root, wrongly on): the two lists must agree.
describe('the flags the early git status allows', () => {
  it('are every common flag but --root', () => {
    const flags = withCommonOptions(new Command('status')).options.map((option) => option.long);
    expect(new Set(flags.filter((flag) => flag !== '--root'))).toEqual(ROOTLESS_FLAGS);
    expect(flags).toContain('--root');
  });
});
