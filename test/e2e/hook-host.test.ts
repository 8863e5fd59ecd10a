import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { fnv1a64, isListening } from '../../src/store/relay-socket.js';
import { runCli, runNodeScript, SHIPPED_HOOK_ENTRY } from '../helpers/cli.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';
import {
  askRelay,
  bashHook,
  bashHooksAtOnce,
  bashThroughRelay,
  gitFailingAt,
  hostPids,
  otherVersionRequest,
  promptThroughRelay,
  recordedCommands,
  relayOnlyHook,
  startRelayServer,
} from '../helpers/relay.js';

// The hook host through real processes: the plugin's hook.cjs with no MCP server running, the detached
// host it starts, and a real unix socket. Hosts are off in the other tests (see helpers/cli.ts).

async function project(idleSeconds = 2) {
  const root = createRepo({ committed: { 'a.ts': 'a' } });
  const store = tempDir('checkpoint-store-');
  const env = {
    CHECKPOINT_STORE_DIR: store,
    CHECKPOINT_HOOK_HOST: '1',
    CHECKPOINT_HOOK_HOST_IDLE_SECONDS: String(idleSeconds),
  };
  await runCli(['save', '--goal', 'Host'], { cwd: root, env });
  const socket = path.join(store, 'run', `${fnv1a64(root)}.sock`);
  // However a test ends, no host of its project outlives it.
  onTestFinished(() => {
    for (const pid of hostPids(root)) process.kill(pid, 'SIGKILL');
  });
  return { root, store, env, socket };
}

async function waitFor(condition: () => boolean | Promise<boolean>, ms = 30_000): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 50) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

const listening = (socket: string) => existsSync(socket) && isListening(socket, net);

/** A PATH holding only `node`: git cannot run. */
function pathWithoutGit(): string {
  const bin = path.join(tempDir('checkpoint-nogit-'), 'bin');
  mkdirSync(bin);
  symlinkSync(process.execPath, path.join(bin, 'node'));
  return bin;
}

/** The plugin's pre-command hook for `command`, as Claude Code runs it before the command. */
function preCommandHook(root: string, env: Record<string, string>, command: string) {
  return runNodeScript(SHIPPED_HOOK_ENTRY, ['PreToolUse'], {
    cwd: root,
    env,
    input: JSON.stringify({ session_id: 's', cwd: root, tool_name: 'Bash', tool_input: { command } }),
  });
}

/** Starts the project's host the way a session does: a Bash hook that finds nobody listening. */
async function startHostWith(root: string, env: Record<string, string>, socket: string, command: string) {
  await bashHook(root, env, command);
  expect(await waitFor(() => listening(socket))).toBe(true);
}

describe('the hook host, where no MCP server runs', () => {
  it('is started by a hook, takes the hooks after it, and ends once idle', async () => {
    // Idle time long enough that a busy 2-core machine never ends the host between two steps (issue 26).
    const { root, env, socket } = await project(6);
    const first = await bashHook(root, env, 'npm test');
    // The first hook ran itself, and did not wait for the host it started: the host holds none of its
    // pipes (else this run would end only with the host, two idle seconds on, and find no host below).
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(recordedCommands(root)).toEqual(['npm test']);
    expect(await waitFor(() => listening(socket))).toBe(true);
    expect(hostPids(root)).toHaveLength(1);

    // A hook with no bundle of its own works only through the host.
    const bash = await bashThroughRelay(root, env, 'npm run build');
    expect(bash).toMatchObject({ code: 0, stderr: '' });
    expect(recordedCommands(root)).toEqual(['npm test', 'npm run build']);
    writeTree(root, { 'b.ts': 'new file' });
    const prompt = await promptThroughRelay(root, env, 'add b');
    expect(prompt).toMatchObject({ code: 0, stderr: '' });
    const listed = await runCli(['list'], { cwd: root, env });
    expect(listed.stdout).toContain('add b');

    // Six idle seconds later it has ended and taken its socket with it.
    expect(await waitFor(() => hostPids(root).length === 0, 60_000)).toBe(true);
    expect(existsSync(socket)).toBe(false);
    expect(existsSync(`${socket}.starting`)).toBe(false);
    // Its log had nothing to say, and went with it.
    expect(existsSync(socket.replace(/\.sock$/, '.host.log'))).toBe(false);
  });

  it('doctor sees a running host, and fails on a bad idle time, with a fix', async () => {
    const { root, env, socket } = await project(60);
    await startHostWith(root, env, socket, 'one');
    const doctor = await runCli(['doctor', '--json'], { cwd: root, env });
    expect(JSON.parse(doctor.stdout).checks).toContainEqual(
      expect.objectContaining({ name: 'hook relay', detail: expect.stringMatching(/or hook host takes/) }),
    );
    const badIdle = await runCli(['doctor', '--json'], {
      cwd: root,
      env: { ...env, CHECKPOINT_HOOK_HOST_IDLE_SECONDS: 'ten' },
    });
    expect(JSON.parse(badIdle.stdout).checks).toContainEqual({
      name: 'settings',
      level: 'fail',
      detail: "CHECKPOINT_HOOK_HOST_IDLE_SECONDS must be a number from 1 to 604800 (s): got 'ten'",
      fix: expect.stringContaining('CHECKPOINT_HOOK_HOST_IDLE_SECONDS'),
    });
  });

  it('is not started from an environment where git cannot run (issue 26)', async () => {
    const { root, env, socket } = await project(60);
    const noGit = await bashHook(root, { ...env, PATH: pathWithoutGit() }, 'true');
    expect(noGit).toMatchObject({ code: 0, stderr: '' });
    expect(recordedCommands(root)).toEqual(['true']);
    // A start claims its marker and opens the host's log before the hook exits: neither is there.
    expect(existsSync(`${socket}.starting`)).toBe(false);
    expect(existsSync(socket.replace(/\.sock$/, '.host.log'))).toBe(false);
    expect(hostPids(root)).toEqual([]);
    // The hooks after it, with git on PATH, snapshot before a destructive command as ever.
    writeTree(root, { 'a.ts': 'edited' });
    const before = await preCommandHook(root, env, 'rm -rf src');
    expect(before).toMatchObject({ code: 0, stderr: '' });
    expect((await runCli(['list'], { cwd: root, env })).stdout).toContain('rm -rf src');
  });

  it('a server whose PATH has no git lets the hook run the event itself (issue 26)', async () => {
    const { root, env } = await project(60);
    await startRelayServer(root, { ...env, PATH: pathWithoutGit() });
    writeTree(root, { 'a.ts': 'edited' });
    const before = await preCommandHook(root, env, 'rm -rf src');
    expect(before).toMatchObject({ code: 0, stderr: '' });
    expect((await runCli(['list'], { cwd: root, env })).stdout).toContain('rm -rf src');
    // Where the hook cannot run git either, the server runs it: a Bash hook is recorded through it.
    const relayed = await bashThroughRelay(root, { ...env, PATH: pathWithoutGit() }, 'echo through');
    expect(relayed).toMatchObject({ code: 0, stderr: '' });
    expect(recordedCommands(root)).toContain('echo through');
  });

  it('takes the pre-command snapshot that holds the file the command names, over the size cap', async () => {
    const { root, env: hostEnv, socket } = await project(30);
    const env = { ...hostEnv, CHECKPOINT_SNAPSHOT_MAX_FILE_MB: '0.02' };
    await startHostWith(root, env, socket, 'npm test');
    const big = randomBytes(40_000);
    writeFileSync(path.join(root, 'big.bin'), big);
    // A hook with no bundle of its own works only through the host.
    const hooked = await runNodeScript(relayOnlyHook(), ['PreToolUse'], {
      cwd: root,
      env,
      input: JSON.stringify({
        session_id: 's',
        cwd: root,
        tool_name: 'Bash',
        tool_input: { command: 'rm big.bin' },
      }),
    });
    expect(hooked).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const { snapshots } = JSON.parse((await runCli(['list', '--json'], { cwd: root, env })).stdout);
    expect(snapshots[0]).toMatchObject({ label: 'rm big.bin', skipped: { large: [] } });
    rmSync(path.join(root, 'big.bin'));
    expect((await runCli(['restore', snapshots[0].id, '--yes'], { cwd: root, env })).code).toBe(0);
    expect(readFileSync(path.join(root, 'big.bin')).equals(big)).toBe(true);
  });

  it('is not started for the home folder, nor with CHECKPOINT_HOOK_HOST=0', async () => {
    const { root, env, socket } = await project();
    const off = await bashHook(root, { ...env, CHECKPOINT_HOOK_HOST: '0' }, 'npm test');
    expect(off).toMatchObject({ code: 0, stderr: '' });
    expect(recordedCommands(root)).toEqual(['npm test']);
    // Nobody listens for a home folder: the hooks refuse to snapshot it.
    const home = await bashHook(root, { ...env, HOME: root }, 'in the home folder');
    expect(home.code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(existsSync(socket)).toBe(false);
    expect(hostPids(root)).toEqual([]);
    // Not even started to end at once: a start opens the host's log first.
    expect(existsSync(socket.replace(/\.sock$/, '.host.log'))).toBe(false);
  });

  it('started by a session start, listens only after a pause, and only if our MCP server has not started meanwhile', async () => {
    const alone = await project(30);
    const sessionStart = (root: string, env: Record<string, string>) =>
      runNodeScript(SHIPPED_HOOK_ENTRY, ['SessionStart'], {
        cwd: root,
        env,
        input: JSON.stringify({ cwd: root, source: 'startup' }),
      });
    expect((await sessionStart(alone.root, alone.env)).code).toBe(0);
    // Not yet a second later (a host is up in a fraction of that): a server may be on its way.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await listening(alone.socket)).toBe(false);
    expect(await waitFor(() => listening(alone.socket))).toBe(true);
    expect(hostPids(alone.root)).toHaveLength(1);

    // A hook other than a session start means no server is coming: its host does not wait.
    const hurried = await project(30);
    expect((await sessionStart(hurried.root, hurried.env)).code).toBe(0);
    const since = Date.now();
    await bashHook(hurried.root, hurried.env, 'npm test');
    expect(await waitFor(() => listening(hurried.socket))).toBe(true);
    expect(Date.now() - since).toBeLessThan(2_500);
    // The session start's host, awake, finds it listening and ends.
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    expect(hostPids(hurried.root)).toHaveLength(1);

    const served = await project(30);
    expect((await sessionStart(served.root, served.env)).code).toBe(0);
    await startRelayServer(served.root, served.env);
    // The host found the server listening when its pause was over, and ended without listening.
    expect(await waitFor(() => hostPids(served.root).length === 0)).toBe(true);
    expect(await listening(served.socket)).toBe(true);
  });

  it('steps aside for an MCP server started while it listens', async () => {
    const { root, env, socket } = await project(30);
    await startHostWith(root, env, socket, 'one');
    await startRelayServer(root, env);
    // Asked by the server, the host stops listening and ends; the server takes the socket at once.
    expect(await waitFor(() => hostPids(root).length === 0)).toBe(true);
    expect(await waitFor(() => listening(socket))).toBe(true);
    const relayed = await bashThroughRelay(root, env, 'through the server');
    expect(relayed).toMatchObject({ code: 0, stderr: '' });
    expect(recordedCommands(root)).toEqual(['one', 'through the server']);
  });

  it('a burst of 20 commands starts one host, and each command is recorded once', async () => {
    const { root, env, socket } = await project(5);
    const all = Array.from({ length: 20 }, (_, i) => `step ${i}`);
    const results = await bashHooksAtOnce(root, env, all);
    expect(results.every((result) => result.code === 0 && result.stderr === '')).toBe(true);
    expect(recordedCommands(root).sort()).toEqual([...all].sort());
    expect(await waitFor(() => listening(socket))).toBe(true);
    // A host that finds another listening ends at once; give any such a moment, then count.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(hostPids(root)).toHaveLength(1);
  });

  it('with CHECKPOINT_HOOK_HOST=0, a host already running takes no hook and ends; the hook runs itself', async () => {
    const { root, env, socket } = await project(30);
    await startHostWith(root, env, socket, 'one');
    const off = await bashHook(root, { ...env, CHECKPOINT_HOOK_HOST: '0' }, 'two');
    expect(off).toMatchObject({ code: 0, stderr: '' });
    expect(recordedCommands(root)).toEqual(['one', 'two']);
    expect(await waitFor(() => hostPids(root).length === 0)).toBe(true);
    expect(existsSync(socket)).toBe(false);
  });

  it('a stopped host holds no hook up: the hook runs itself, and the host, let go again, never runs it too', async () => {
    const { root, env, socket } = await project(60);
    await startHostWith(root, env, socket, 'one');
    const [pid] = hostPids(root);
    if (pid === undefined) throw new Error('no host');
    process.kill(pid, 'SIGSTOP');
    let stopped = true;
    onTestFinished(() => {
      if (stopped) process.kill(pid, 'SIGCONT');
    });
    const hook = await bashHook(root, env, 'two');
    expect(hook).toMatchObject({ code: 0, stderr: '' });
    expect(recordedCommands(root)).toEqual(['one', 'two']);
    process.kill(pid, 'SIGCONT');
    stopped = false;
    // Awake again, it serves the next hook, and has not run the one it missed.
    expect(await bashThroughRelay(root, env, 'three')).toMatchObject({ code: 0, stderr: '' });
    expect(recordedCommands(root)).toEqual(['one', 'two', 'three']);
  });

  it('at most four hosts run for a user: a fifth has the least recently used one end', async () => {
    const store = tempDir('checkpoint-store-');
    const projects = [];
    for (let i = 0; i < 5; i++) {
      const root = createRepo({ committed: { 'a.ts': 'a' } });
      const env = {
        CHECKPOINT_STORE_DIR: store,
        CHECKPOINT_HOOK_HOST: '1',
        CHECKPOINT_HOOK_HOST_IDLE_SECONDS: '120',
      };
      onTestFinished(() => {
        for (const pid of hostPids(root)) process.kill(pid, 'SIGKILL');
      });
      projects.push({ root, env, socket: path.join(store, 'run', `${fnv1a64(root)}.sock`) });
    }
    const [first, second, ...rest] = projects;
    if (!first || !second) throw new Error('no projects');
    for (const project of [first, second, ...rest.slice(0, 2)]) {
      await startHostWith(project.root, project.env, project.socket, 'start');
    }
    // The first host is used again, so the second is now the one used longest ago.
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // marker times have a 1 s grain on some file systems
    expect(await bashThroughRelay(first.root, first.env, 'again')).toMatchObject({ code: 0, stderr: '' });
    const fifth = rest[2];
    if (!fifth) throw new Error('no fifth project');
    await startHostWith(fifth.root, fifth.env, fifth.socket, 'start');

    expect(await waitFor(() => hostPids(second.root).length === 0)).toBe(true);
    expect(existsSync(second.socket)).toBe(false);
    for (const project of [first, ...rest]) expect(hostPids(project.root)).toHaveLength(1);
  });

  it('steps aside for a hook of another version, which then runs itself', async () => {
    const { root, env, socket } = await project(30);
    await startHostWith(root, env, socket, 'one');
    const reply = await askRelay(socket, otherVersionRequest(root, env, 'from another version'));
    expect(reply).toMatchObject({ handled: false });
    expect(await waitFor(() => hostPids(root).length === 0)).toBe(true);
    expect(existsSync(socket)).toBe(false);
    expect(recordedCommands(root)).toEqual(['one']);
  });

  it("answers a prompt once its content is taken; a later failure goes to the host's log", async () => {
    const { root, env, socket } = await project(30);
    // git as it is, except that writing a tree fails: the step after the content is taken.
    const fakeBin = gitFailingAt('write-tree');
    const failing = { ...env, PATH: `${fakeBin}:${process.env.PATH ?? ''}` };
    await startHostWith(root, failing, socket, 'x');
    writeTree(root, { 'a.ts': 'changed' });
    const prompt = await promptThroughRelay(root, failing, 'fails late');
    expect(prompt).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const log = socket.replace(/\.sock$/, '.host.log');
    expect(
      await waitFor(() => existsSync(log) && readFileSync(log, 'utf8').includes('UserPromptSubmit')),
    ).toBe(true);
    expect(readFileSync(log, 'utf8')).toMatch(
      /claude-checkpoint hook UserPromptSubmit: git write-tree failed.*simulated/,
    );
  });
});
