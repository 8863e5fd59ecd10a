import { describe, expect, it } from 'vitest';
import { ParsedFileMemo } from '../../src/store/parsed-memo.js';

describe('ParsedFileMemo', () => {
  it('parses a text once while it stays the same, and again when it changes', () => {
    const memo = new ParsedFileMemo<number>();
    let parses = 0;
    const parse = (text: string) => {
      parses++;
      return text.length;
    };
    expect(memo.parse('a', 'xx', parse)).toBe(2);
    expect(memo.parse('a', 'xx', parse)).toBe(2);
    expect(parses).toBe(1);
    expect(memo.parse('a', 'xxx', parse)).toBe(3);
    expect(parses).toBe(2);
  });

  it('takes a value it is told for a text, and keeps only the most recent keys', () => {
    const memo = new ParsedFileMemo<string>(2);
    const parse = (text: string) => `parsed ${text}`;
    memo.remember('a', 'one', 'told');
    expect(memo.parse('a', 'one', parse)).toBe('told');
    memo.parse('b', 'two', parse);
    memo.parse('c', 'three', parse);
    // 'a' was the oldest of three keys: parsed again.
    expect(memo.parse('a', 'one', parse)).toBe('parsed one');
  });

  it('remembers nothing for a text that fails to parse', () => {
    const memo = new ParsedFileMemo<number>();
    let calls = 0;
    const failing = () => {
      calls++;
      throw new Error('bad');
    };
    expect(() => memo.parse('a', 'oops', failing)).toThrow('bad');
    expect(() => memo.parse('a', 'oops', failing)).toThrow('bad');
    expect(calls).toBe(2);
  });
});
