import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The suite runs as on a fresh machine (issue 26): an empty HOME, so no git identity or global git config
 * and no user settings, and a temp folder of its own that is removed whole at the end, with whatever a
 * test, a worker or a spawned CLI left in it. Workers and the processes they start inherit both.
 */
export default function setup(): () => void {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'cc-suite-')));
  const home = path.join(base, 'h');
  const tmp = path.join(base, 't');
  mkdirSync(home, { mode: 0o700 });
  mkdirSync(tmp, { mode: 0o700 });
  process.env.HOME = home;
  process.env.TMPDIR = tmp;
  for (const name of ['XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME'])
    delete process.env[name];
  // Retried as a test's folders are (test/helpers/fixtures.ts); a process the suite started that still
  // writes there after that is not the suite's failure.
  return () => {
    try {
      rmSync(base, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    } catch (error) {
      process.stderr.write(`could not remove the suite's temp folder ${base}: ${(error as Error).message}\n`);
    }
  };
}
