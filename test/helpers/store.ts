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
 * The processes but this one that name `storeDir` in their command line or environment (a store's git,
 * a gc a hook started), each as its command line. Linux's /proc; elsewhere none.
 */
export function processesNaming(storeDir: string): string[] {
  const read = (file: string) => {
    try {
      return readFileSync(file, 'latin1');
    } catch {
      return '';
    }
  };
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((pid) => /^\d+$/.test(pid) && Number(pid) !== process.pid);
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const pid of pids) {
    const cmdline = read(`/proc/${pid}/cmdline`);
    if (`${cmdline}\0${read(`/proc/${pid}/environ`)}`.includes(storeDir))
      found.push(cmdline.replaceAll('\0', ' ').trim());
  }
  return found;
}

/**
 * Waits (up to `ms`) until no process but this one names `storeDir` (processesNaming): for a test that
 * started such a process itself and must let it end before it goes on.
 */
export async function waitForStoreQuiet(storeDir: string, ms = 30_000): Promise<void> {
  for (const deadline = Date.now() + ms; processesNaming(storeDir).length > 0 && Date.now() < deadline; )
    await new Promise((resolve) => setTimeout(resolve, 50));
}
