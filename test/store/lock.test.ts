import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeFs } from '../../src/store/fs-seam.js';
import { KeyedQueue, withFileLock } from '../../src/store/lock.js';
import { tempDir } from '../helpers/fixtures.js';

describe('KeyedQueue', () => {
  it('runs tasks of one key one at a time, in order, even when one fails', async () => {
    const queue = new KeyedQueue();
    const events: string[] = [];
    const task =
      (name: string, ms: number, fail = false) =>
      async () => {
        events.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, ms));
        events.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      queue.run('k', task('a', 20, true)),
      queue.run('k', task('b', 1)),
      queue.run('other', task('c', 1)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(events.indexOf('end a')).toBeLessThan(events.indexOf('start b'));
    expect(events.indexOf('start c')).toBeLessThan(events.indexOf('end a'));
  });
});

describe('withFileLock', () => {
  it('excludes a second holder until the first releases', async () => {
    const lock = path.join(tempDir(), 'x.lock');
    const events: string[] = [];
    await Promise.all([
      withFileLock(nodeFs, lock, async () => {
        events.push('first in');
        await new Promise((resolve) => setTimeout(resolve, 50));
        events.push('first out');
      }),
      new Promise((resolve) => setTimeout(resolve, 5)).then(() =>
        withFileLock(nodeFs, lock, async () => {
          events.push('second in');
        }),
      ),
    ]);
    expect(events).toEqual(['first in', 'first out', 'second in']);
    expect(existsSync(lock)).toBe(false);
  });

  it('takes over a lock left by a dead process', async () => {
    const lock = path.join(tempDir(), 'x.lock');
    writeFileSync(lock, JSON.stringify({ pid: 2 ** 22 + 12345, at: Date.now() }));
    expect(await withFileLock(nodeFs, lock, async () => 'got it', { timeoutMs: 1000 })).toBe('got it');
  });

  it('takes over a lock older than the stale limit', async () => {
    const lock = path.join(tempDir(), 'x.lock');
    writeFileSync(lock, JSON.stringify({ pid: process.pid, at: Date.now() - 60_000 }));
    expect(await withFileLock(nodeFs, lock, async () => 'got it', { timeoutMs: 1000 })).toBe('got it');
  });

  it('gives up with advice when a live owner keeps it', async () => {
    const lock = path.join(tempDir(), 'x.lock');
    writeFileSync(lock, JSON.stringify({ pid: process.pid, at: Date.now() }));
    await expect(withFileLock(nodeFs, lock, async () => 'never', { timeoutMs: 100 })).rejects.toThrow(
      /holds .*x\.lock for more than 100 ms; if no other checkpoint tool is running, delete that file/,
    );
  });
});
