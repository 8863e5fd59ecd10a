import type { SnapshotMeta } from './snapshot-schema.js';

// The snapshot metadata schema (snapshot-schema.ts) as plain checks, for the usual case: metadata this
// code wrote. Listing snapshots (`list`, `status`, the brief) then loads no zod. It accepts only what the
// schema accepts and returns the value as the schema would (its nested objects are strict, so one with a
// key the schema drops is left to zod); a test holds the two together.

const ID_PATTERN = /^[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$/;

export function isPlainSnapshotMeta(value: unknown): value is SnapshotMeta {
  if (!isRecord(value)) return false;
  const { git, changes, skipped, aside } = value;
  return (
    typeof value.id === 'string' &&
    ID_PATTERN.test(value.id) &&
    typeof value.createdAt === 'string' &&
    typeof value.trigger === 'string' &&
    value.trigger.length > 0 &&
    optionalString(value.label) &&
    optionalString(value.sessionId) &&
    optionalString(value.agent) &&
    optionalString(value.promptId) &&
    optionalString(value.transcriptPath) &&
    (git === null ||
      (hasExactly(git, ['branch', 'head']) &&
        (git.branch === null || typeof git.branch === 'string') &&
        typeof git.head === 'string')) &&
    hasExactly(changes, ['added', 'modified', 'deleted']) &&
    isCount(changes.added) &&
    isCount(changes.modified) &&
    isCount(changes.deleted) &&
    isSkippedShape(skipped) &&
    Array.isArray(skipped.large) &&
    everyItem(
      skipped.large,
      (item) =>
        hasExactly(item, ['path', 'bytes', ...stampKeys(item)]) &&
        typeof item.path === 'string' &&
        Number.isSafeInteger(item.bytes),
    ) &&
    (value.held === undefined ||
      everyItem(
        value.held,
        (item) =>
          hasExactly(item, ['path', 'bytes', 'mtimeNs', 'ino']) &&
          typeof item.path === 'string' &&
          Number.isSafeInteger(item.bytes) &&
          typeof item.mtimeNs === 'string' &&
          typeof item.ino === 'string',
      )) &&
    everyItem(skipped.nested, (item) => typeof item === 'string') &&
    (aside === undefined ||
      (hasExactly(aside, ['kept', 'created']) && isCount(aside.kept) && isCount(aside.created)))
  );
}

/** `large` and `nested`, with `invalidNames` and `unreadable` when there are some. */
function isSkippedShape(skipped: unknown): skipped is Record<string, unknown> {
  if (!isRecord(skipped)) return false;
  const keys = ['large', 'nested'];
  if (skipped.invalidNames !== undefined) {
    if (!everyItem(skipped.invalidNames, (item) => typeof item === 'string')) return false;
    keys.push('invalidNames');
  }
  if (skipped.unreadable !== undefined) {
    const isEntry = (item: unknown) =>
      hasExactly(item, ['path', 'reason']) &&
      typeof item.path === 'string' &&
      typeof item.reason === 'string';
    if (!everyItem(skipped.unreadable, isEntry)) return false;
    keys.push('unreadable');
  }
  return hasExactly(skipped, keys);
}

/** The stamp's keys a left-out file has (each a string), so that hasExactly accepts them. */
function stampKeys(item: unknown): string[] {
  if (!isRecord(item)) return [];
  return (['mtimeNs', 'ino'] as const).filter((key) => typeof item[key] === 'string');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
/** An object with these keys and no other, each present (a strict zod object would drop the others). */
function hasExactly(value: unknown, keys: readonly string[]): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((key) => Object.hasOwn(value, key));
}
const optionalString = (value: unknown) => value === undefined || typeof value === 'string';
const isCount = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;
/** Every index, holes included (`every` skips holes; zod does not). */
function everyItem(value: unknown, check: (item: unknown) => boolean): boolean {
  if (!Array.isArray(value)) return false;
  for (let index = 0; index < value.length; index++) if (!check(value[index])) return false;
  return true;
}
