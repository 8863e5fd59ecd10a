import { describe, expect, it } from 'vitest';
import { createOutput } from '../../src/cli/output.js';
import { PROGRESS_DELAY_MS, slowProgress } from '../../src/cli/slow-progress.js';

describe('progress on long work', () => {
  it('says nothing for the first two seconds, then the step and the seconds so far', () => {
    const shown: string[] = [];
    let clock = 0;
    const out = {
      ...createOutput({}),
      progress: (text: string) => shown.push(text),
      endProgress: () => shown.push('(end)'),
    };
    const progress = slowProgress(out, () => clock);
    progress.update('Snapshotting: scanning…');
    clock = PROGRESS_DELAY_MS - 1;
    progress.update('Snapshotting: storing 10/100 files…');
    expect(shown).toEqual([]);
    clock = PROGRESS_DELAY_MS + 500;
    progress.update('Snapshotting: storing 50/100 files…');
    progress.end();
    expect(shown).toEqual(['Snapshotting: storing 50/100 files… (2 s)', '(end)']);
  });

  it('shows nothing with --json, nor when stderr is not a terminal', () => {
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => {
      written.push(chunk);
      return true;
    }) as typeof process.stderr.write;
    try {
      for (const json of [true, false]) {
        const out = createOutput({ json });
        let clock = 0;
        const progress = slowProgress(out, () => clock);
        clock = 10_000;
        progress.update('Collecting garbage…');
        progress.end();
      }
    } finally {
      process.stderr.write = write;
    }
    // Vitest's stderr is a pipe here: no progress either way.
    expect(written).toEqual([]);
  });
});
