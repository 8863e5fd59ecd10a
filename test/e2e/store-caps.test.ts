import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

const KB = 1024;
const MB = 1024 * 1024;

function duBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += duBytes(full);
    else if (entry.name !== 'lock') total += statSync(full).size;
  }
  return total;
}

describe('store size caps from the CLI and the hooks', () => {
  it('claude-checkpoint snapshot never leaves the store past CHECKPOINT_STORE_MAX_MB', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    const base = tempDir('checkpoint-store-');
    const env = { CHECKPOINT_STORE_DIR: base, CHECKPOINT_STORE_MAX_MB: '1' };
    let listed = 0;
    for (let i = 0; i < 7; i++) {
      writeTree(root, { 'data.bin': randomBytes(200 * KB) });
      const snap = await runCli(['snapshot', '--json', '--root', root], { cwd: root, env });
      expect(snap.code, snap.stderr).toBe(0);
      // --json: nothing on stderr, progress included.
      expect(snap.stderr).toBe('');
      expect(duBytes(path.join(base, 'projects'))).toBeLessThanOrEqual(MB);
      listed = JSON.parse(
        (await runCli(['list', '--json', '--root', root], { cwd: root, env })).stdout,
      ).total;
    }
    // Trimmed, not emptied: the newest snapshots are there.
    expect(listed).toBeGreaterThan(1);
    expect(listed).toBeLessThan(7);
  }, 120_000);

  it('the prompt hook starts a gc in the background that brings the store back under its cap', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    const base = tempDir('checkpoint-store-');
    const env = { CHECKPOINT_STORE_DIR: base, CHECKPOINT_STORE_MAX_MB: '0.5', CHECKPOINT_HOOK_RELAY: '0' };
    for (let i = 0; i < 5; i++) {
      writeTree(root, { 'data.bin': randomBytes(200 * KB) });
      const result = await runCli(['hook', 'UserPromptSubmit'], {
        cwd: root,
        env,
        input: JSON.stringify({ cwd: root, prompt: `prompt ${i}` }),
      });
      expect(result).toMatchObject({ code: 0, stdout: '' });
    }
    const deadline = Date.now() + 30_000;
    while (duBytes(path.join(base, 'projects')) > 0.5 * MB && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(duBytes(path.join(base, 'projects'))).toBeLessThanOrEqual(0.5 * MB);
    // The gc may still be finishing (packing what is left), and a later hook's gc may not have taken the
    // lock yet: the store is removed after the test only once no such gc runs and no process holds its lock
    // (a gc still writing made the removal fail with ENOTEMPTY on a loaded machine).
    const locked = () =>
      readdirSync(path.join(base, 'projects')).some((name) =>
        existsSync(path.join(base, 'projects', name, 'lock')),
      );
    while ((locked() || gcsRunning(root) > 0) && Date.now() < deadline + 30_000)
      await new Promise((resolve) => setTimeout(resolve, 100));
  }, 120_000);

  it('status and doctor show disk use per project and for the whole store; gc --all cleans up gone folders', async () => {
    const base = tempDir('checkpoint-store-');
    const env = { CHECKPOINT_STORE_DIR: base, CHECKPOINT_STORE_TOTAL_MAX_MB: '100' };
    const kept = createRepo({ committed: { 'a.txt': 'a' } });
    const gone = createRepo({ committed: { 'b.txt': 'b' } });
    for (const root of [kept, gone]) {
      writeTree(root, { 'data.bin': randomBytes(20 * KB) });
      expect((await runCli(['snapshot', '--root', root], { cwd: root, env })).code).toBe(0);
    }
    rmSync(gone, { recursive: true, force: true });

    const status = JSON.parse(
      (await runCli(['status', '--json', '--root', kept], { cwd: kept, env })).stdout,
    );
    expect(status.snapshots.storeBytes).toBeGreaterThan(20 * KB);
    expect(status.wholeStore).toMatchObject({
      projects: 2,
      totalMaxBytes: 100 * MB,
      orphans: [{ root: gone }],
    });
    expect(status.wholeStore.totalBytes).toBeGreaterThan(40 * KB);
    // Issue 26: a moved project's store is named, and gc --all said to delete its snapshots for good.
    const text = await runCli(['status', '--root', kept], { cwd: kept, env });
    expect(text.stdout).toContain(
      `All stores: ${text.stdout.match(/All stores: (\S+ \S+)/)?.[1]} in 2 project(s) (cap 100 MB); the store of a folder that no longer exists: ${gone} (snapshots are found by their project's path: a project that was moved finds its own again once moved back`,
    );
    expect(text.stdout).toContain(
      '`claude-checkpoint gc --all` deletes these stores and their snapshots for good',
    );

    const doctor = JSON.parse(
      (await runCli(['doctor', '--json', '--root', kept], { cwd: kept, env })).stdout,
    );
    const check = doctor.checks.find((c: { name: string }) => c.name === 'snapshot store');
    expect(check).toMatchObject({
      level: 'warn',
      detail: expect.stringContaining(`the store of a folder that no longer exists: ${gone}`),
      fix: expect.stringMatching(
        /^Snapshots are found by their project's path: .*moved back.*gc --all.* for good\.$/,
      ),
    });
    expect(check.detail).toMatch(/this project .* \(cap 2(\.0)? GB\); all 2 project\(s\) .* \(cap 100 MB\)/);

    const gc = await runCli(['gc', '--all', '--json'], { cwd: kept, env });
    expect(gc.code, gc.stderr).toBe(0);
    const outcome = JSON.parse(gc.stdout);
    expect(outcome.removedStores).toMatchObject([{ root: gone }]);
    expect(outcome.projects).toMatchObject([{ root: kept, kept: 1 }]);
    const after = JSON.parse((await runCli(['status', '--json', '--root', kept], { cwd: kept, env })).stdout);
    expect(after.wholeStore).toMatchObject({ projects: 1, orphans: [] });

    const bad = await runCli(['snapshot', '--root', kept], {
      cwd: kept,
      env: { ...env, CHECKPOINT_STORE_MAX_MB: 'big' },
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /CHECKPOINT_STORE_MAX_MB must be a number from 0 to 10000000 \(MB\): got 'big'/,
    );
  }, 120_000);
});

describe('a store whose newest snapshot alone is over its cap (daily-use trial)', () => {
  it('gc says only a higher cap helps, and doctor stops sending the user back to gc', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    const base = tempDir('checkpoint-store-');
    const env = { CHECKPOINT_STORE_DIR: base, CHECKPOINT_STORE_MAX_MB: '0.25' };
    // Random bytes do not compress: the newest snapshot alone holds about 400 KB, over the 256 KB cap.
    for (let i = 0; i < 3; i++) {
      writeTree(root, { 'data.bin': randomBytes(400 * KB) });
      expect((await runCli(['snapshot', '--root', root], { cwd: root, env })).code).toBe(0);
    }
    const gc = await runCli(['gc', '--root', root], { cwd: root, env });
    expect(gc.code, gc.stderr).toBe(0);
    expect(gc.stdout).toMatch(
      /⚠ The store is still over its cap of 256 KB \(storeMaxMb\) with every snapshot the cap may delete deleted: the \S+ KB left is what it never deletes \(the newest snapshot, the undo of the latest restore\) and the newest others that fit in a twentieth of the cap, so few snapshots are left to go back to; raise storeMaxMb \(CHECKPOINT_STORE_MAX_MB\) above \S+ KB, or lower snapshotMaxFileMb to leave large files out\./,
    );
    const json = JSON.parse((await runCli(['gc', '--json', '--root', root], { cwd: root, env })).stdout);
    expect(json).toMatchObject({ isOverCap: true, maxBytes: 0.25 * MB, kept: 1 });

    const doctor = JSON.parse(
      (await runCli(['doctor', '--json', '--root', root], { cwd: root, env })).stdout,
    );
    const check = doctor.checks.find((c: { name: string }) => c.name === 'snapshot store');
    expect(check.level).toBe('warn');
    expect(check.detail).toContain("this project's store is over its cap of 256 KB (storeMaxMb)");
    expect(check.fix).toMatch(
      /^Raise storeMaxMb \(CHECKPOINT_STORE_MAX_MB\) above \S+ KB, or lower snapshotMaxFileMb/,
    );

    // The whole-store cap the same: gc --all says the stores stay over it, and which cap to raise.
    const all = await runCli(['gc', '--all'], {
      cwd: root,
      env: { ...env, CHECKPOINT_STORE_MAX_MB: '0', CHECKPOINT_STORE_TOTAL_MAX_MB: '0.25' },
    });
    expect(all.stdout).toMatch(
      /⚠ All stores together are still over their cap of 256 KB \(storeTotalMaxMb\): .*raise storeTotalMaxMb \(CHECKPOINT_STORE_TOTAL_MAX_MB\) above \S+ KB/,
    );

    // Raised, the store is within its cap again: no warning, and gc says nothing of it.
    const raised = { ...env, CHECKPOINT_STORE_MAX_MB: '2' };
    const within = await runCli(['gc', '--json', '--root', root], { cwd: root, env: raised });
    expect(JSON.parse(within.stdout)).toMatchObject({ isOverCap: false });
    const ok = JSON.parse(
      (await runCli(['doctor', '--json', '--root', root], { cwd: root, env: raised })).stdout,
    );
    expect(ok.checks.find((c: { name: string }) => c.name === 'snapshot store').level).toBe('ok');
  }, 60_000);
});

describe('a project folder that moved (issue 26)', () => {
  it('status names the old folder; moved back, its snapshots are there again', async () => {
    const base = tempDir('checkpoint-store-');
    const env = { CHECKPOINT_STORE_DIR: base };
    const kept = createRepo({ committed: { 'a.txt': 'a' } });
    const project = createRepo({ committed: { 'b.txt': 'b' } });
    expect((await runCli(['snapshot', '--root', project], { cwd: project, env })).code).toBe(0);
    const moved = `${project}-moved`;
    renameSync(project, moved);
    const status = await runCli(['status', '--root', kept], { cwd: kept, env });
    expect(status.stdout).toContain(`the store of a folder that no longer exists: ${project}`);
    const there = await runCli(['list', '--json', '--root', moved], { cwd: moved, env });
    expect(JSON.parse(there.stdout).total).toBe(0);
    renameSync(moved, project);
    const back = await runCli(['list', '--json', '--root', project], { cwd: project, env });
    expect(JSON.parse(back.stdout).total).toBe(1);
  }, 60_000);
});

/** The detached `gc --if-due --root <root>` processes still running (hooks/background.ts), where /proc tells. */
function gcsRunning(root: string): number {
  if (process.platform !== 'linux') return 0;
  let running = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (args.includes('gc') && args.includes('--if-due') && args.includes(root)) running += 1;
    } catch {
      // The process ended meanwhile.
    }
  }
  return running;
}
