import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHasher, type HashAlgorithm, hashHex, JS_BUDGET_BYTES } from '../../src/git/hash.js';

const ALGORITHMS: HashAlgorithm[] = ['sha1', 'sha256'];
const nodeHex = (algorithm: HashAlgorithm, ...parts: Array<Uint8Array | string>) => {
  const hash = createHash(algorithm);
  for (const part of parts) hash.update(part);
  return hash.digest('hex');
};

// One module instance per process: the first inputs run in JavaScript, the budget's edge and past it in
// node:crypto. A fresh copy of the module (resetModules) starts in JavaScript again.
async function freshModule() {
  const { vi } = await import('vitest');
  vi.resetModules();
  return import('../../src/git/hash.js');
}

describe('hash', () => {
  it.each(ALGORITHMS)(
    '%s: every length from 0 to past the JavaScript budget equals node:crypto',
    async (algorithm) => {
      for (let length = 0; length <= JS_BUDGET_BYTES + 130; length += 1) {
        // Each length in a module that has hashed nothing: up to the budget, in JavaScript.
        const fresh = await freshModule();
        const bytes = new Uint8Array(length).map((_, i) => (i * 131 + length) & 0xff);
        expect(fresh.hashHex(algorithm, bytes), `${length} bytes`).toBe(nodeHex(algorithm, bytes));
      }
    },
  );

  it.each(ALGORITHMS)(
    '%s: JavaScript alone equals node:crypto on random content, in random parts',
    async (algorithm) => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 100 })),
            {
              maxLength: 6,
            },
          ),
          async (parts) => {
            // A module that has hashed nothing yet: these inputs fit its budget and run in JavaScript.
            const fresh = await freshModule();
            const total = parts.reduce((sum, part) => sum + Buffer.byteLength(part), 0);
            const hasher = fresh.createHasher(algorithm, total);
            for (const part of parts) hasher.update(part);
            expect(hasher.digestHex()).toBe(nodeHex(algorithm, ...parts));
          },
        ),
        { numRuns: 60 },
      );
    },
  );

  it.each(ALGORITHMS)(
    '%s: node:crypto, past the budget, equals it too (large and incremental)',
    (algorithm) => {
      fc.assert(
        fc.property(fc.array(fc.uint8Array({ maxLength: 70_000 }), { maxLength: 4 }), (parts) => {
          const hasher = createHasher(algorithm, JS_BUDGET_BYTES + 1);
          for (const part of parts) hasher.update(part);
          expect(hasher.digestHex()).toBe(nodeHex(algorithm, ...parts));
          expect(hashHex(algorithm, ...parts)).toBe(nodeHex(algorithm, ...parts));
        }),
        { numRuns: 40 },
      );
    },
  );

  it.each(ALGORITHMS)(
    '%s: after a batch is announced past the budget, small inputs hash the same',
    async (algorithm) => {
      const fresh = await freshModule();
      fresh.expectHashing(JS_BUDGET_BYTES + 1);
      for (const text of ['', 'a', 'blob 3\0abc'])
        expect(fresh.hashHex(algorithm, text)).toBe(nodeHex(algorithm, text));
    },
  );

  it('hashes strings as UTF-8, lone surrogates as node:crypto does', async () => {
    const fresh = await freshModule();
    for (const text of ['', 'a', 'é€😀', '\ud800', 'x\udc00y'])
      expect(fresh.hashHex('sha256', text)).toBe(nodeHex('sha256', text));
  });
});
