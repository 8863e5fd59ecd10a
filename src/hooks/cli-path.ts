import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The CLI that ships with a hook entry, for work a hook hands to a detached `claude-checkpoint` process:
 * `cli.mjs` beside the plugin's bundle, `cli.js` beside `dist/hook.js`, and for the bundle the npm
 * package ships (its `plugin/dist/` holds no CLI) the package's own `dist/cli.js`.
 */
export function cliBeside(entryFile: string): string {
  const dir = path.dirname(entryFile);
  const candidates =
    path.extname(entryFile) === '.js'
      ? [path.join(dir, 'cli.js')]
      : [path.join(dir, 'cli.mjs'), path.join(dir, '..', '..', 'dist', 'cli.js')];
  return candidates.find((file) => existsSync(file)) ?? (candidates[0] as string);
}
