import { describe, expect, it } from 'vitest';
import {
  type CommandTargets,
  isLossAllowed,
  type LeftOut,
  leftOutAtRisk,
  renderLeftOutWarning,
} from '../../src/core/left-out.js';

const big: LeftOut = { path: 'data/big.bin', why: 'large', bytes: 25_000_000 };
const nested: LeftOut = { path: 'vendor/lib', why: 'nested' };
const targets = (partial: Partial<CommandTargets>): CommandTargets => ({
  paths: [],
  patterns: [],
  isAnywhere: false,
  ...partial,
});

describe('leftOutAtRisk: what a destructive command may destroy of what its snapshot left out', () => {
  it.each([
    ['the file itself', targets({ paths: ['data/big.bin'] }), [big], []],
    ['a folder holding it', targets({ paths: ['data'] }), [big], []],
    ['the project root (`rm -rf .`)', targets({ paths: [''] }), [big, nested], []],
    ['a glob matching it', targets({ patterns: ['data/*.bin'] }), [big], []],
    ['a glob matching a folder above it', targets({ patterns: ['*'] }), [big, nested], []],
    ['a brace glob', targets({ patterns: ['{data,src}/big.bin'] }), [big], []],
    ['a variable in a path', targets({ patterns: ['$DIR/big.bin'] }), [big], []],
    ['a folder inside a nested repository', targets({ paths: ['vendor/lib/src'] }), [nested], []],
    ['a target in a folder that cannot be told', targets({ isAnywhere: true }), [big, nested], []],
    ['no path at all (`git reset --hard`)', targets({}), [], [big, nested]],
    ['other files only', targets({ paths: ['src/app.ts'], patterns: ['src/*.ts'] }), [], []],
    ['paths outside the project only', targets({ paths: [null] }), [], []],
    ['a name that only starts the same', targets({ paths: ['data/big'] }), [], []],
  ])('a command naming %s', (_what, given, named, unnamed) => {
    expect(leftOutAtRisk([big, nested], given)).toEqual({ named, unnamed });
  });
});

describe('renderLeftOutWarning', () => {
  it('nothing at risk: nothing to say', () => {
    expect(renderLeftOutWarning({ named: [], unnamed: [] }, 20 * 1024 * 1024)).toBeNull();
  });

  it('named: the file, its size, the cap, how to keep it, and a question for the person', () => {
    const warning = renderLeftOutWarning({ named: [big], unnamed: [] }, 20 * 1024 * 1024);
    expect(warning?.user).toContain('`data/big.bin` (23.85 MB, over the 20 MB size cap)');
    expect(warning?.user).toContain('snapshotMaxFileMb');
    expect(warning?.model).toContain('which this command names');
    expect(warning?.ask).toContain('`data/big.bin`');
  });

  it('not named (a command on the whole tree): a warning, no question', () => {
    const warning = renderLeftOutWarning({ named: [], unnamed: [nested] }, 20 * 1024 * 1024);
    expect(warning?.user).toContain('`vendor/lib` (a nested repository');
    expect(warning?.user).toContain('commit in the nested repository');
    expect(warning?.ask).toBeUndefined();
  });
});

describe('isLossAllowed: the command says the user agreed that what no snapshot holds may go', () => {
  it.each([
    ['CHECKPOINT_ALLOW_LOSS=1 rm big.bin', true],
    ['cd data && CHECKPOINT_ALLOW_LOSS=1 rm -rf big', true],
    ['true; CHECKPOINT_ALLOW_LOSS=1 git clean -fdx', true],
    ['$env:CHECKPOINT_ALLOW_LOSS=1; Remove-Item big.bin', true],
    ['rm big.bin', false],
    ['CHECKPOINT_ALLOW_LOSS=0 rm big.bin', false],
    ['CHECKPOINT_ALLOW_LOSS=10 rm big.bin', false],
    ['MY_CHECKPOINT_ALLOW_LOSS=1 rm big.bin', false],
  ])('%s: %s', (command, allowed) => {
    expect(isLossAllowed(command)).toBe(allowed);
  });

  it('named and allowed: a warning, with neither a question nor a hold', () => {
    const warning = renderLeftOutWarning({ named: [big], unnamed: [] }, 20 * 1024 * 1024, true);
    expect(warning?.user).toContain('this command says you agreed that `data/big.bin`');
    expect(warning?.ask).toBeUndefined();
    expect(warning?.hold).toBeUndefined();
  });

  it('named, not allowed: the question and the hold both say how to go ahead once the user agrees', () => {
    const warning = renderLeftOutWarning({ named: [big], unnamed: [] }, 20 * 1024 * 1024);
    for (const reason of [warning?.ask, warning?.hold])
      expect(reason).toContain('run the same command again starting with `CHECKPOINT_ALLOW_LOSS=1 `');
    expect(warning?.hold).toContain('Ask the user first');
  });
});
