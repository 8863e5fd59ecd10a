import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

// Issue 26: every module in a command's bundle costs its start (V8 reads its code cache, its top level
// makes a closure of every function), whether the run uses it or not. The short path's bundles
// (scripts/bundle.mjs) hold what their commands run: these tests build them as it does and read
// esbuild's account of what each holds.
const { dependencies } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
const BUNDLED = new Set(['commander', '@inquirer/core', 'fast-string-truncated-width', '@noble/hashes']);

/** Our modules (under src/) with code in the bundle of `entry`, and their bytes there. */
async function contentsOf(entry: string): Promise<Map<string, number>> {
  const result = await build({
    entryPoints: [new URL(`../../${entry}`, import.meta.url).pathname],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    metafile: true,
    logLevel: 'silent',
    mainFields: ['module', 'main'],
    external: Object.keys(dependencies).filter((name) => !BUNDLED.has(name)),
    supported: { 'dynamic-import': false },
  });
  const [output] = Object.values(result.metafile.outputs);
  const held = new Map<string, number>();
  for (const [file, { bytesInOutput }] of Object.entries(output?.inputs ?? {}))
    if (file.startsWith('src/') && bytesInOutput > 0) held.set(file, bytesInOutput);
  return held;
}

/** Modules none of these commands' runs needs: other commands', or what only a label or a save needs. */
const heavy = (held: Map<string, number>, files: readonly string[]) =>
  [...held].filter(([file, bytes]) => files.some((name) => file.startsWith(name)) && bytes > 1024);

describe('the short path’s bundles hold what their commands run', () => {
  it('status and list: no snapshot writer, restore, gc, save or secret detector', async () => {
    const held = await contentsOf('src/cli-fast.ts');
    expect(
      heavy(held, [
        'src/core/secrets/',
        'src/core/redact.ts',
        'src/core/merge.ts',
        'src/app/rewind.ts',
        'src/store/snapshot-store.ts',
        'src/store/snapshot-capture.ts',
        'src/store/restore-guard.ts',
        'src/store/worktree-writer.ts',
        'src/store/snapshot-gc.ts',
      ]),
    ).toEqual([]);
  }, 30_000);
});
