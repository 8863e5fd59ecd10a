import { sha1 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** The hash functions we use: git's two object formats, and SHA-256 for names. */
export type HashAlgorithm = 'sha1' | 'sha256';

/**
 * How many bytes a process hashes in JavaScript before it loads `node:crypto` for the rest. Loading it,
 * with OpenSSL's first hash, costs about 3.5 ms in a plain `node`; cold JavaScript (interpreted until V8
 * compiles it) hashes about 1 KB per 0.5-1 ms after a load of about 1 ms, and ten 1 KB files already
 * cost more than the load (measured on the 2-core machine, docs/performance-history.md#cli-start-up). So a
 * command that hashes a path or two and a small file stays in JavaScript, and any more loads the module.
 */
export const JS_BUDGET_BYTES = 2048;

type NodeCrypto = typeof import('node:crypto');
let nodeCrypto: NodeCrypto | undefined;
let spentBytes = 0;

/**
 * `node:crypto` when this input should use it: the budget is spent, or the module is loaded already.
 * Loaded on first need through getBuiltinModule, so that no bundle loads it when it is imported (Node
 * before 20.16 has no getBuiltinModule, and hashes in JavaScript only).
 */
function cryptoFor(bytes: number): NodeCrypto | undefined {
  if (nodeCrypto) return nodeCrypto;
  if (spentBytes + bytes <= JS_BUDGET_BYTES || typeof process.getBuiltinModule !== 'function') {
    spentBytes += bytes;
    return undefined;
  }
  nodeCrypto = process.getBuiltinModule('node:crypto');
  return nodeCrypto;
}

/** Whether hashing `bytes` more in this process would load `node:crypto` first. */
export function wouldLoadCrypto(bytes: number): boolean {
  return (
    nodeCrypto === undefined &&
    spentBytes + bytes > JS_BUDGET_BYTES &&
    typeof process.getBuiltinModule === 'function'
  );
}

/**
 * Says about `bytes` are about to be hashed in one batch: past the budget, `node:crypto` serves all of
 * it, rather than JavaScript its first 2 KB.
 */
export function expectHashing(bytes: number): void {
  if (!nodeCrypto && spentBytes + bytes > JS_BUDGET_BYTES) cryptoFor(bytes);
}

/** An incremental hash, fed in parts; `digestHex` once, at the end. */
export interface Hasher {
  update(data: Uint8Array | string): Hasher;
  digestHex(): string;
}

/**
 * A hash of about `totalBytes` (which picks where it runs; any length hashes the same). Strings are
 * hashed as UTF-8, as `node:crypto` hashes them.
 */
export function createHasher(algorithm: HashAlgorithm, totalBytes: number): Hasher {
  const crypto = cryptoFor(totalBytes);
  if (crypto) {
    const hash = crypto.createHash(algorithm);
    const hasher: Hasher = {
      update: (data) => {
        hash.update(data);
        return hasher;
      },
      digestHex: () => hash.digest('hex'),
    };
    return hasher;
  }
  const hash = (algorithm === 'sha1' ? sha1 : sha256).create();
  const hasher: Hasher = {
    update: (data) => {
      hash.update(typeof data === 'string' ? utf8ToBytes(data) : data);
      return hasher;
    },
    digestHex: () => bytesToHex(hash.digest()),
  };
  return hasher;
}

/** The hex digest of `parts` hashed one after the other. */
export function hashHex(algorithm: HashAlgorithm, ...parts: Array<Uint8Array | string>): string {
  const bytes = parts.map((part) => (typeof part === 'string' ? utf8ToBytes(part) : part));
  const hasher = createHasher(
    algorithm,
    bytes.reduce((sum, part) => sum + part.byteLength, 0),
  );
  for (const part of bytes) hasher.update(part);
  return hasher.digestHex();
}
