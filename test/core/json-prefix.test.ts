import { describe, expect, it } from 'vitest';
import { closeJsonPrefix } from '../../src/core/json-prefix.js';

describe('closeJsonPrefix: the first bytes of an object cut at a limit, whole again', () => {
  it.each([
    ['{"a":1,"b":"long str', { a: 1 }],
    ['{"a":"x","r":{"type":"ok","text":"long', { a: 'x', r: { type: 'ok' } }],
    // A list cut short goes whole: its first words are not the list (a command's argv).
    ['{"a":[1,2,"thr', {}],
    ['{"x":1,"cmd":["bash","-lc","rm -rf bu', { x: 1 }],
    ['{"x":1,"t":{"cmd":["bash","-lc","rm', { x: 1, t: {} }],
    ['{"x":[1,2],"y":"lo', { x: [1, 2] }],
    ['{"a":1,"b":12', { a: 1 }],
    ['{"a":1,"ke', { a: 1 }],
    ['{"a":"q\\"uo","b":{', { a: 'q"uo', b: {} }],
    ['{"a":1,', { a: 1 }],
    ['{"cmd":"rm -rf bui', {}],
    ['{"a":1}', { a: 1 }],
  ])('%s', (prefix, expected) => {
    expect(closeJsonPrefix(prefix)).toEqual(expected);
  });

  it.each(['', '[1,2', 'not json', '"str'])('%j is no object: null', (prefix) => {
    expect(closeJsonPrefix(prefix)).toBeNull();
  });
});
