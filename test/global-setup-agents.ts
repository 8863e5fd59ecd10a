import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The real-agent suite's own temp folder, removed whole at the end: the agents' throwaway homes, stores
 * and repositories, which a worker ended by the pool would otherwise leave behind (its `exit` handlers do
 * not run). Workers and the agents they start inherit it.
 */
export default function setup(): () => Promise<void> {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'cc-agents-')));
  process.env.TMPDIR = base;
  return async () => {
    await endHookHostsUnder(base);
    rmSync(base, { recursive: true, force: true });
  };
}

/**
 * The agents' sessions start hook hosts, as they do for a user, and a host outlives its session until it
 * has been idle a while: it would write its socket and state into this folder again after it is gone.
 * Ends the hosts serving a project in it (Linux's /proc; elsewhere they end on their own), and waits.
 */
async function endHookHostsUnder(base: string): Promise<void> {
  if (!existsSync('/proc')) return;
  const hosts: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // ended meanwhile, or not ours to read
    }
    const at = args.indexOf('--hook-host');
    if (at !== -1 && args[at + 1]?.startsWith(`${base}${path.sep}`)) hosts.push(Number(entry));
  }
  for (const pid of hosts) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (let waited = 0; waited < 5_000 && hosts.some(alive); waited += 50)
    await new Promise((resolve) => setTimeout(resolve, 50));
}
