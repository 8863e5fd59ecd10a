import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

export type Entry = { kind: 'file'; content: string; executable: boolean } | { kind: 'link'; target: string };

/**
 * Everything under `root` as a plain object (file contents in base64, exec bits, link targets), for
 * byte-for-byte comparisons. `.git` folders and paths for which `skip` is true are left out.
 */
export function readTree(
  root: string,
  skip: (relative: string) => boolean = () => false,
): Record<string, Entry> {
  const out: Record<string, Entry> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(path.join(root, dir))) {
      const relative = dir ? `${dir}/${name}` : name;
      if (name === '.git' || skip(relative)) continue;
      const stats = lstatSync(path.join(root, relative));
      if (stats.isSymbolicLink())
        out[relative] = { kind: 'link', target: readlinkSync(path.join(root, relative)) };
      else if (stats.isDirectory()) walk(relative);
      else
        out[relative] = {
          kind: 'file',
          content: readFileSync(path.join(root, relative)).toString('base64'),
          executable: (stats.mode & 0o100) !== 0,
        };
    }
  };
  walk('');
  return out;
}

/** The parts of a git repository this tool must never change, as bytes. */
export function repoState(root: string): Record<string, string> {
  const gitDir = path.join(root, '.git');
  const state: Record<string, string> = {};
  const read = (relative: string) => {
    try {
      state[relative] = readFileSync(path.join(gitDir, relative)).toString('base64');
    } catch {
      state[relative] = '<missing>';
    }
  };
  for (const file of ['HEAD', 'index', 'config', 'packed-refs', 'info/exclude', 'logs/HEAD']) read(file);
  const walk = (dir: string) => {
    let names: string[] = [];
    try {
      names = readdirSync(path.join(gitDir, dir));
    } catch {
      return;
    }
    for (const name of names) {
      const relative = `${dir}/${name}`;
      if (lstatSync(path.join(gitDir, relative)).isDirectory()) walk(relative);
      else read(relative);
    }
  };
  walk('refs');
  walk('hooks');
  try {
    state['.gitignore'] = readFileSync(path.join(root, '.gitignore')).toString('base64');
  } catch {
    state['.gitignore'] = '<missing>';
  }
  return state;
}
