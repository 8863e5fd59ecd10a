import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * The ignore rules a project inherits from outside its own folder: `.gitignore` files of the folders
 * above it, up to the top of its repository, and that repository's `.git/info/exclude`. git applies
 * them to the project's files, but the snapshot store's work tree is the project folder, so git would
 * not read them there: without this, a package of a monorepo would snapshot the `node_modules/` its
 * repository ignores at the top.
 *
 * Rules anchored to another folder (a `/` before the end) are translated when they point into the
 * project, and dropped otherwise; unanchored rules (`node_modules/`, `*.log`) apply at any depth as is.
 */
export async function inheritedIgnoreRules(root: string): Promise<string> {
  const chunks: string[] = [];
  let dir = root;
  for (let depth = 0; depth < 64; depth++) {
    const dotGit = await stat(path.join(dir, '.git')).catch(() => null);
    if (dir !== root) {
      const text = await readFile(path.join(dir, '.gitignore'), 'utf8').catch(() => '');
      if (text) chunks.unshift(translate(text, path.relative(dir, root)));
    }
    if (dotGit) {
      const exclude = dotGit.isDirectory()
        ? await readFile(path.join(dir, '.git', 'info', 'exclude'), 'utf8').catch(() => '')
        : '';
      if (exclude) chunks.unshift(translate(exclude, path.relative(dir, root)));
      return chunks.join('');
    }
    const parent = path.dirname(dir);
    if (parent === dir) return ''; // not in a repository: nothing is inherited
    dir = parent;
  }
  return '';
}

/** Rewrites rules written for the folder `from` so they mean the same from the project, `prefix` below it. */
export function translate(text: string, prefix: string): string {
  const below = prefix.split(path.sep).join('/');
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '' || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    const rule = negated ? line.slice(1) : line;
    const body = rule.endsWith('/') ? rule.slice(0, -1) : rule;
    if (!body.includes('/') || below === '') {
      out.push(line); // applies at any depth, or already relative to the project
      continue;
    }
    const anchored = rule.startsWith('/') ? rule.slice(1) : rule;
    if (anchored.startsWith('**/')) out.push(line);
    else if (anchored.startsWith(`${below}/`))
      out.push(`${negated ? '!' : ''}/${anchored.slice(below.length + 1)}`);
  }
  return out.length > 0 ? `${out.join('\n')}\n` : '';
}
