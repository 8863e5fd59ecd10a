import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The real-agent suite's own temp folder, removed whole at the end: the agents' throwaway homes, stores
 * and repositories, which a worker ended by the pool would otherwise leave behind (its `exit` handlers do
 * not run). Workers and the agents they start inherit it.
 */
export default function setup(): () => void {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'cc-agents-')));
  process.env.TMPDIR = base;
  return () => rmSync(base, { recursive: true, force: true });
}
