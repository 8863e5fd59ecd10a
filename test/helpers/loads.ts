import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from './fixtures.js';

/**
 * A preload (`--require`) that writes down, as its process exits, the modules Node loaded; `builtins()`
 * reads Node's own among them once it has (`net`, `stream`, `crypto`).
 */
export function builtinsTrace(): { preload: string; builtins: () => string[] } {
  const dir = tempDir('loads-');
  const preload = path.join(dir, 'preload.cjs');
  const log = path.join(dir, 'loaded.log');
  writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(log)}, process.moduleLoadList.join('\\n')));\n`,
  );
  return {
    preload,
    builtins: () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('NativeModule '))
        .map((line) => line.slice('NativeModule '.length)),
  };
}
