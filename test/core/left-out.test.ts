import { describe, expect, it } from 'vitest';
import {
  type CommandTargets,
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

  it('named (what the snapshot still cannot hold): the file, its size, the cap and how to keep it, a warning only', () => {
    const warning = renderLeftOutWarning({ named: [big], unnamed: [] }, 20 * 1024 * 1024);
    expect(warning?.user).toContain('`data/big.bin` (23.85 MB, over the 20 MB size cap)');
    expect(warning?.user).toContain('snapshotMaxFileMb');
    expect(warning?.model).toContain('which this command names');
    expect(warning?.model).toContain('ask the user');
    expect(Object.keys(warning ?? {}).sort()).toEqual(['model', 'user']);
  });

  it('not named (a command on the whole tree): a warning', () => {
    const warning = renderLeftOutWarning({ named: [], unnamed: [nested] }, 20 * 1024 * 1024);
    expect(warning?.user).toContain('`vendor/lib` (a nested repository');
    expect(warning?.user).toContain('commit in the nested repository');
    expect(Object.keys(warning ?? {}).sort()).toEqual(['model', 'user']);
  });
});
