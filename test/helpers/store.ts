import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
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

/**
 * Waits (up to `ms`) until no process but this one names `storeDir` in its command line or environment:
 * what a hook that gave up left running (its store's git, a gc it started) ends before the test's
 * folders go (CI, 2026-12-07: ENOTEMPTY removing such a store's git folder). Linux's /proc; elsewhere at once.
 */
export async function waitForStoreQuiet(storeDir: string, ms = 30_000): Promise<void> {
  const names = (pid: string) => {
    try {
      return `${readFileSync(`/proc/${pid}/cmdline`, 'latin1')}\0${readFileSync(`/proc/${pid}/environ`, 'latin1')}`;
    } catch {
      return '';
    }
  };
  const busy = () => {
    try {
      return readdirSync('/proc').some(
        (pid) => /^\d+$/.test(pid) && Number(pid) !== process.pid && names(pid).includes(storeDir),
      );
    } catch {
      return false;
    }
  };
  for (const deadline = Date.now() + ms; busy() && Date.now() < deadline; )
    await new Promise((resolve) => setTimeout(resolve, 50));
}
