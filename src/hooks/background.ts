import { spawn } from 'node:child_process';

/**
 * Starts `claude-checkpoint gc --if-due --root <root>` as a detached process and returns at once: it
 * copies the objects a store borrowed from the project's repository into the store (so the repository's
 * own GC can never break an old snapshot), brings the store back under its size caps, and packs the
 * snapshots a long history left loose (see isPackDue), while the prompt goes on. `--if-due`: a gc
 * started while another ran finds nothing left to do. `cliPath` is the running CLI's own file.
 */
export function startBackgroundGc(cliPath: string, root: string, env: NodeJS.ProcessEnv): void {
  const child = spawn(process.execPath, [cliPath, 'gc', '--if-due', '--root', root], {
    detached: true,
    stdio: 'ignore',
    env,
    windowsHide: true,
  });
  child.on('error', () => undefined); // best effort: the next prompt tries again
  child.unref();
}
