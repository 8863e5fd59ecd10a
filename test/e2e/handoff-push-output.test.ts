import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../helpers/cli.js';
import { writeTree } from '../helpers/fixtures.js';
import { bareRemote, cli, type Machine, machine } from '../helpers/handoff.js';

beforeAll(assertBuilt);

/**
 * What a push says it left out is what this push left out (trial of issue 26, item 8): the snapshot it
 * is made from may be the latest one again, taken before a file over the size cap appeared.
 */

/** A machine whose snapshots leave out files over 1 MB. */
function smallCap(url: string, user: string): Machine {
  const m = machine(url, user);
  return { ...m, env: { ...m.env, CHECKPOINT_SNAPSHOT_MAX_FILE_MB: '1' } };
}

const overCap = () => Buffer.alloc(1536 * 1024, 7);

describe('push names every file over the size cap it leaves out', () => {
  let url: string;
  beforeAll(() => {
    url = `file://${bareRemote().bare}`;
  });

  it('a file over the cap that appeared since the last snapshot (nothing else changed) is named, in text and --json', async () => {
    const e = smallCap(url, 'Erin');
    writeTree(e.root, { 'src/app.ts': 'export const app = 2;\n' });
    expect((await cli(e, 'save', '--goal', 'Big data')).code).toBe(0);
    expect((await cli(e, 'handoff', 'push', '--name', 'huge')).code).toBe(0);
    writeTree(e.root, { 'huge.dat': overCap() });
    const pushed = await cli(e, 'handoff', 'push', '--name', 'huge');
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stdout).toContain('Left out (over the size cap): huge.dat');
    const json = await cli(e, 'handoff', 'push', '--name', 'huge', '--json');
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).skipped).toEqual({
      large: [{ path: 'huge.dat', bytes: 1536 * 1024 }],
      nested: [],
    });
  });

  it('a second file over the cap, pushed again: both are named, not only the one the first push saw', async () => {
    const a = smallCap(url, 'Alice');
    writeTree(a.root, { 'big.bin': overCap() });
    const first = await cli(a, 'handoff', 'push', '--name', 'big');
    expect(first.stdout).toContain('Left out (over the size cap): big.bin');
    writeTree(a.root, { 'big3.bin': overCap() });
    const second = await cli(a, 'handoff', 'push', '--name', 'big');
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('Left out (over the size cap): big.bin');
    expect(second.stdout).toContain('Left out (over the size cap): big3.bin');
  });

  it('the snapshot command says so too: a new file over the cap is no "nothing changed"', async () => {
    const a = smallCap(url, 'Alice');
    expect((await cli(a, 'snapshot')).code).toBe(0);
    writeTree(a.root, { 'huge.dat': overCap() });
    const taken = await cli(a, 'snapshot');
    expect(taken.code, taken.stderr).toBe(0);
    expect(taken.stdout).not.toContain('Nothing changed');
    expect(taken.stdout).toMatch(/Skipped 1 file\(s\) over the size cap: `huge\.dat`/);
    // Unchanged since: the same snapshot again.
    expect((await cli(a, 'snapshot')).stdout).toContain('Nothing changed');
  });
});
