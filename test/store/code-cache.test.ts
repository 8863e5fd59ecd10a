import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCachedBundle } from '../../src/store/code-cache.js';
import { tempDir } from '../helpers/fixtures.js';

const BODY =
  'exports.answer = require("node:path").basename(__filename) + ":" + (module.exports === exports);';
const WRAPPER_START = '(function (exports, require, module, __filename, __dirname) {';

describe('loadCachedBundle', () => {
  // scripts/bundle.mjs writes the CLI's short paths' bundles as the function the cache runs (issue 26: a
  // bundle wrapped at every start was copied whole into V8's young generation); the hooks' stay plain.
  it.each([
    ['a plain CommonJS bundle', `// build 0123456789abcdef\n${BODY}\n`],
    ['a bundle written as the function it runs as', `// build 0123456789abcdef\n${WRAPPER_START}${BODY}\n})`],
    [
      'one padded with a comment',
      `// build 0123456789abcdef\n${WRAPPER_START}${BODY}\n/*${' '.repeat(1000)}*/\n})`,
    ],
  ])('runs %s as a CommonJS module, with the cache on and off', (_kind, text) => {
    const dir = tempDir('code-cache-');
    const bundle = path.join(dir, 'bundle.cjs');
    writeFileSync(bundle, text);
    const requireBeside = createRequire(bundle);
    for (const cacheBase of [dir, null])
      expect(loadCachedBundle({ bundle, kind: 'cli', name: 'test', cacheBase, requireBeside })).toEqual({
        answer: 'bundle.cjs:true',
      });
  });
});
