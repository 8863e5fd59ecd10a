import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

/** The private store's git folder: one project per store here. */
export function storeGitDir(store: string): string {
  const [project] = readdirSync(path.join(store, 'projects'));
  return path.join(store, 'projects', project ?? '', 'git');
}

/** The files a snapshot holds, read from the store itself (not through the CLI under test). */
export function filesIn(store: string, id: string): string[] {
  const listing = execFileSync(
    'git',
    ['--git-dir', storeGitDir(store), 'ls-tree', '-r', '-z', '--name-only', `refs/snapshots/${id}`],
    { encoding: 'utf8' },
  );
  return listing.split('\0').filter(Boolean);
}
