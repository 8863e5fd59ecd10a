import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACK_AFTER_SNAPSHOTS } from '../../src/store/store-usage.js';
import { assertBuilt, HOOK_ENTRY, runCli, runNodeScript } from '../helpers/cli.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';
import { commandsInFile, mergeJournal, shownCheckpoint } from '../helpers/relay.js';
import { waitForStoreQuiet } from '../helpers/store.js';

beforeAll(assertBuilt);

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const JOURNAL_WORKER = fileURLToPath(new URL('../helpers/journal-worker.mjs', import.meta.url));

// What every read shows: a Bash hook on its own leaves its command in the journal for the lock's next holder.
const stored = shownCheckpoint;

function hook(event: string, input: unknown, env: Record<string, string>, cwd: string) {
  return runCli(['hook', event], {
    cwd,
    env,
    input: typeof input === 'string' ? input : JSON.stringify(input),
  });
}

describe('claude-checkpoint hook', () => {
  it('SessionStart: the brief after /clear and compaction, a notice at startup, nothing without a checkpoint', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const base = { session_id: 's1', cwd: root, hook_event_name: 'SessionStart' };

    const nothing = await hook('SessionStart', { ...base, source: 'clear' }, env, root);
    expect(nothing).toMatchObject({ code: 0, stdout: '' });

    await runCli(['save', '--goal', 'Resume me', '--task', 'done:one', '--task', 'pending:two'], {
      cwd: root,
      env,
    });
    for (const source of ['clear', 'compact', 'resume']) {
      const result = await hook('SessionStart', { ...base, source }, env, root);
      expect(result.code).toBe(0);
      const output = JSON.parse(result.stdout);
      expect(output.hookSpecificOutput.hookEventName).toBe('SessionStart');
      expect(output.hookSpecificOutput.additionalContext).toContain('# Resuming: ');
      expect(output.hookSpecificOutput.additionalContext).toContain('## Goal\nResume me');
      expect(result.stdout.length).toBeLessThan(10_000);
    }
    const startup = JSON.parse(
      (await hook('SessionStart', { ...base, source: 'startup' }, env, root)).stdout,
    );
    expect(startup.hookSpecificOutput.additionalContext).toMatch(
      /^A session checkpoint exists for this project \(saved just now\)\.\nGoal: Resume me\nTasks: 1\/2 done\./,
    );
    const startupBrief = JSON.parse(
      (
        await hook(
          'SessionStart',
          { ...base, source: 'startup' },
          { ...env, CHECKPOINT_HOOK_STARTUP: 'brief' },
          root,
        )
      ).stdout,
    );
    expect(startupBrief.hookSpecificOutput.additionalContext).toContain('# Resuming: ');
    expect(
      await hook(
        'SessionStart',
        { ...base, source: 'startup' },
        { ...env, CHECKPOINT_HOOK_STARTUP: 'off' },
        root,
      ),
    ).toMatchObject({ stdout: '' });
  });

  it('UserPromptSubmit: once a long history has gone loose, a background gc packs it', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const store = tempDir('checkpoint-store-');
    const env = { CHECKPOINT_STORE_DIR: store };
    expect(await hook('UserPromptSubmit', { cwd: root, prompt: 'first' }, env, root)).toMatchObject({
      code: 0,
    });
    const storeDir = path.join(store, 'projects', readdirSync(path.join(store, 'projects'))[0] ?? '');
    const objects = path.join(storeDir, 'git', 'objects');
    // Counted while the background gc runs: a folder it empties and removes between the two reads
    // holds nothing (it failed CI once with ENOENT).
    const entries = (dir: string) => {
      try {
        return readdirSync(dir).length;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
        throw error;
      }
    };
    const loose = () =>
      readdirSync(objects)
        .filter((dir) => /^[0-9a-f]{2}$/.test(dir))
        .reduce((total, dir) => total + entries(path.join(objects, dir)), 0);
    // As if the session had prompted that many times since the last gc: the next prompt makes one due.
    const usage = JSON.parse(readFileSync(path.join(storeDir, 'usage.json'), 'utf8'));
    writeFileSync(
      path.join(storeDir, 'usage.json'),
      JSON.stringify({ ...usage, unpackedSnapshots: PACK_AFTER_SNAPSHOTS - 1 }),
    );
    writeTree(root, { 'a.ts': 'changed' });
    expect(await hook('UserPromptSubmit', { cwd: root, prompt: 'second' }, env, root)).toMatchObject({
      code: 0,
      stdout: '',
    });
    const deadline = Date.now() + 20_000;
    while (loose() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(loose()).toBe(0);
    expect(readdirSync(path.join(objects, 'pack')).some((name) => name.endsWith('.pack'))).toBe(true);
    const listed = JSON.parse((await runCli(['list', '--json'], { cwd: root, env })).stdout);
    expect(listed.total).toBe(2);
  });

  it('UserPromptSubmit: a snapshot labelled with the prompt (redacted), and nothing on stdout', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const result = await hook(
      'UserPromptSubmit',
      { session_id: 'sess-9', cwd: root, prompt: 'deploy with API_KEY=sk8f3Qz71LwpX2v9\nthen test' },
      env,
      root,
    );
    expect(result).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const listed = JSON.parse((await runCli(['list', '--json'], { cwd: root, env })).stdout);
    expect(listed.snapshots[0]).toMatchObject({
      trigger: 'prompt',
      label: 'deploy with API_KEY=«redacted»',
      sessionId: 'sess-9',
    });
  });

  it('UserPromptSubmit: once the store has borrowed long enough, a background gc makes it self-contained', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const store = tempDir('checkpoint-store-');
    const env = { CHECKPOINT_STORE_DIR: store, CHECKPOINT_DETACH_AFTER_HOURS: '0' };
    const alternates = () => {
      const projects = readdirSync(path.join(store, 'projects'));
      return path.join(store, 'projects', projects[0] ?? '', 'git/objects/info/alternates');
    };
    const result = await hook('UserPromptSubmit', { cwd: root, prompt: 'first' }, env, root);
    expect(result).toMatchObject({ code: 0, stdout: '' });
    const deadline = Date.now() + 20_000;
    while (existsSync(alternates()) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(existsSync(alternates())).toBe(false);
    // The store still works on its own afterwards.
    writeTree(root, { 'a.ts': 'changed' });
    await hook('UserPromptSubmit', { cwd: root, prompt: 'second' }, env, root);
    const listed = JSON.parse((await runCli(['list', '--json'], { cwd: root, env })).stdout);
    expect(listed.total).toBe(2);
  });

  it('PreCompact: refreshes the git facts, keeps the agent notes, and snapshots', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    await runCli(['save', '--goal', 'Keep me', '--task', 'in_progress:work', '--decision', 'no mocks'], {
      cwd: root,
      env,
    });
    writeTree(root, { 'b.ts': 'new file after the save' });
    const result = await hook('PreCompact', { cwd: root, trigger: 'auto' }, env, root);
    expect(result).toMatchObject({ code: 0, stdout: '' });
    expect(stored(root)).toMatchObject({
      goal: { primary: 'Keep me', tasks: [{ description: 'work', status: 'in_progress' }] },
      decisions: ['no mocks'],
      modifiedFiles: [{ path: 'b.ts', status: '??', source: 'git' }],
    });
    const listed = JSON.parse((await runCli(['list', '--json'], { cwd: root, env })).stdout);
    expect(listed.snapshots[0]).toMatchObject({ trigger: 'pre-compact', label: 'before auto compaction' });
  });

  it("PreCompact: a file changed after the agent's save stays flagged across refreshes until the agent saves", async () => {
    const root = createRepo({ committed: { 'a.ts': 'a', 'b.ts': 'b' }, dirty: { 'a.ts': 'agent edit' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    await runCli(['save', '--goal', 'Watch the drift'], { cwd: root, env });
    // Edited outside the agent: one recorded dirty file, one file that was clean at the save.
    writeTree(root, { 'a.ts': 'edited by another editor', 'b.ts': 'edited by a script' });
    const flaggedBefore = JSON.parse((await runCli(['load', '--json'], { cwd: root, env })).stdout);
    expect(flaggedBefore.drift.changedSince).toEqual(['a.ts', 'b.ts']);

    for (const trigger of ['manual', 'auto']) {
      expect(await hook('PreCompact', { cwd: root, trigger }, env, root)).toMatchObject({ code: 0 });
      const loaded = JSON.parse((await runCli(['load', '--json'], { cwd: root, env })).stdout);
      expect(loaded.drift.changedSince).toEqual(['a.ts', 'b.ts']);
      expect(loaded.drift.flaggedSince).toBe(flaggedBefore.updatedAt);
    }
    const compactBrief = JSON.parse(
      (await hook('SessionStart', { cwd: root, source: 'compact' }, env, root)).stdout,
    ).hookSpecificOutput.additionalContext;
    expect(compactBrief).toContain('re-read before editing: `a.ts`, `b.ts`');
    expect(compactBrief).toMatch(
      /Flagged since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC .*until you save a checkpoint/,
    );
    expect(compactBrief).not.toContain('can be trusted as is');

    // The agent's own save takes the new content as known: nothing is flagged any more.
    await runCli(['save', '--goal', 'Watch the drift', '--merge'], { cwd: root, env });
    const settled = JSON.parse((await runCli(['load', '--json'], { cwd: root, env })).stdout);
    expect(settled.drift).toMatchObject({ changedSince: [], flaggedSince: null });
    expect(stored(root).meta.flagged).toBeUndefined();
  });

  it('PostToolUse: Bash commands and their outcome join the recent commands, redacted, whatever the field names', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const bash = (tool_response: unknown, command = 'npm test') =>
      hook(
        'PostToolUse',
        { cwd: root, tool_name: 'Bash', tool_input: { command, description: 'run tests' }, tool_response },
        env,
        root,
      );
    expect(
      (
        await bash(
          { stdout: 'ok', stderr: '', interrupted: false },
          'GITHUB_TOKEN=ghp_Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q gh pr list',
        )
      ).code,
    ).toBe(0);
    expect(stored(root).goal.primary).toMatch(/^\(not recorded yet/);
    await bash({ exit_code: 2, stderr: 'Error: 3 failing\nmore' });
    await bash({ exitCode: 0 });
    await bash('plain string output');
    await hook(
      'PostToolUseFailure',
      {
        cwd: root,
        tool_name: 'Bash',
        tool_input: { command: 'make' },
        error: 'Exit code 3\nmake: *** no rule',
      },
      env,
      root,
    );
    await hook('PostToolUse', { cwd: root, tool_name: 'Edit', tool_input: { file_path: 'a.ts' } }, env, root);
    const commands = stored(root).recentCommands;
    expect(commands.map((c: { command: string }) => c.command)).toEqual([
      'GITHUB_TOKEN=«redacted» gh pr list',
      'npm test',
      'npm test',
      'npm test',
      'make',
    ]);
    expect(commands[0]).toMatchObject({ exitCode: 0, note: 'run tests' });
    expect(commands[1]).toMatchObject({ exitCode: 2, note: 'run tests; stderr: Error: 3 failing' });
    expect(commands[2]).toMatchObject({ exitCode: 0 });
    expect(commands[3]?.exitCode).toBeUndefined();
    // Claude Code's failure report mixes stdout and stderr: it is output, not stderr.
    expect(commands[4]).toMatchObject({ exitCode: 3, note: 'output: make: *** no rule' });
  });

  // Issue 26: Claude Code's own PowerShell tool sends the Bash tool's payloads with tool_name PowerShell.
  it('PostToolUse and PostToolUseFailure: PowerShell commands are recorded like Bash ones, redacted', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const powerShell = (event: string, fields: Record<string, unknown>) =>
      runNodeScript(HOOK_ENTRY, [event], {
        cwd: root,
        env,
        input: JSON.stringify({
          session_id: 'sess-ps',
          cwd: root,
          hook_event_name: event,
          tool_name: 'PowerShell',
          tool_use_id: 'toolu_ps',
          ...fields,
        }),
      });
    expect(
      await powerShell('PostToolUse', {
        tool_input: {
          command: '$env:GITHUB_TOKEN = "ghp_Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q"; gh pr list',
          description: 'List',
        },
        tool_response: { stdout: 'a.ts', stderr: '', interrupted: false },
      }),
    ).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(
      await powerShell('PostToolUseFailure', {
        tool_input: { command: 'Invoke-Pester', description: 'Run the tests' },
        error: 'Exit code 1\nTests Passed: 3, Failed: 1',
        is_interrupt: false,
      }),
    ).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const commands = stored(root).recentCommands;
    expect(commands).toHaveLength(2);
    expect(commands[0]).toMatchObject({
      command: '$env:GITHUB_TOKEN = "«redacted»"; gh pr list',
      exitCode: 0,
      note: 'List',
    });
    expect(commands[1]).toMatchObject({
      command: 'Invoke-Pester',
      exitCode: 1,
      note: 'Run the tests; output: Tests Passed: 3, Failed: 1',
    });
  });

  it('takes --root over the session folder', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const elsewhere = tempDir();
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    await runCli(['save', '--goal', 'Rooted'], { cwd: root, env });
    const result = await runCli(['hook', 'SessionStart', '--root', root], {
      cwd: elsewhere,
      env,
      input: JSON.stringify({ cwd: elsewhere, source: 'clear' }),
    });
    expect(JSON.parse(result.stdout).hookSpecificOutput.additionalContext).toContain('## Goal\nRooted');
  });

  // Issue 26: run by hand with the docs' example payload, the hook named the MCP tools' projectRoot.
  it("names a project folder that does not exist by where it came from: the input's cwd, --root, CLAUDE_PROJECT_DIR", async () => {
    const gone = path.join(tempDir(), 'home', 'me', 'app');
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const payload = JSON.stringify({
      session_id: 'b4c9ace5-a499-4748-b228-b65376c1eb91',
      cwd: gone,
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'npm test' },
      tool_response: { stdout: 'ok', stderr: '', interrupted: false },
    });
    const cases: Array<[string[], Record<string, string>, string]> = [
      [[], {}, `the hook input's cwd does not exist: ${gone}`],
      [['--root', gone], {}, `--root does not exist: ${gone}`],
      [[], { CLAUDE_PROJECT_DIR: gone }, `CLAUDE_PROJECT_DIR does not exist: ${gone}`],
    ];
    for (const [args, extra, expected] of cases) {
      const result = await runCli(['hook', 'PostToolUse', ...args], {
        cwd: tempDir(),
        env: { ...env, ...extra },
        input: payload,
      });
      expect(result).toMatchObject({ code: 0, stdout: '' });
      expect(result.stderr).toContain(expected);
      expect(result.stderr).not.toContain('projectRoot');
    }
    // A cwd inside a repository's .git: the advice is the hook's own --root, not the tools' parameter.
    const repo = createRepo({ committed: { 'a.ts': 'a' } });
    const inGit = await runCli(['hook', 'PostToolUse'], {
      cwd: tempDir(),
      env,
      input: payload.replace(JSON.stringify(gone), JSON.stringify(path.join(repo, '.git'))),
    });
    expect(inGit.stderr).toContain("the hook input's cwd");
    expect(inGit.stderr).toContain("name the project's folder with --root");
    expect(inGit.stderr).not.toContain('projectRoot');
  });

  it('never fails a session: bad input, unknown events and a blown time budget all exit 0 with a note on stderr', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const garbage = await hook('PreCompact', 'not json at all', env, root);
    expect(garbage).toMatchObject({ code: 0, stdout: '' });
    expect(garbage.stderr).toMatch(/not valid JSON\. The session continues unaffected\./);
    const unknown = await hook('Notification', {}, env, root);
    expect(unknown).toMatchObject({ code: 0 });
    expect(unknown.stderr).toMatch(/unknown event/);
    const badRoot = await hook(
      'UserPromptSubmit',
      { cwd: root, prompt: 'x' },
      { ...env, CHECKPOINT_PROJECT_ROOT: 'relative/path' },
      root,
    );
    expect(badRoot).toMatchObject({ code: 0, stdout: '' });
    expect(badRoot.stderr).toMatch(/CHECKPOINT_PROJECT_ROOT must be an absolute path/);
    const slow = await hook(
      'UserPromptSubmit',
      { cwd: root, prompt: 'x' },
      { ...env, CHECKPOINT_HOOK_TIMEOUT_MS: '1' },
      root,
    );
    expect(slow).toMatchObject({ code: 0, stdout: '' });
    expect(slow.stderr).toMatch(/gave up after 1 ms so as not to hold up the session/);
    // What it left running on its store ends before the store's folder goes.
    await waitForStoreQuiet(env.CHECKPOINT_STORE_DIR);
  }, 60_000);

  it('records 20 Bash commands that finish at once, from 20 hook processes, losing none (through the lean entry)', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    await runCli(['save', '--goal', 'Parallel commands'], { cwd: root, env });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        runNodeScript(HOOK_ENTRY, ['PostToolUse'], {
          cwd: root,
          env,
          input: JSON.stringify({
            cwd: root,
            tool_name: 'Bash',
            tool_input: { command: `make step-${i}` },
            tool_response: {},
          }),
        }),
      ),
    );
    expect(results.every((result) => result.code === 0 && result.stderr === '')).toBe(true);
    const recorded = stored(root)
      .recentCommands.map((c: { command: string }) => c.command)
      .sort();
    expect(recorded).toEqual(Array.from({ length: 20 }, (_, i) => `make step-${i}`).sort());
    // 20 node processes at once: on a busy 2-core machine (issue 26) they take far longer than one.
  }, 120_000);

  it('records a Bash command while another process holds the lock past the hook budget: quietly, redacted, none lost (issue 26)', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), CHECKPOINT_HOOK_TIMEOUT_MS: '1000' };
    await runCli(['save', '--goal', 'Held lock'], { cwd: root, env });
    const holder = holdLock(root);
    await holder.held;
    const bash = (command: string) =>
      runNodeScript(HOOK_ENTRY, ['PostToolUse'], {
        cwd: root,
        env,
        input: JSON.stringify({ cwd: root, tool_name: 'Bash', tool_input: { command }, tool_response: {} }),
      });
    const result = await bash('API_KEY=sk8f3Qz71LwpX2v9 make deploy');
    expect(result).toMatchObject({ code: 0, stdout: '', stderr: '' });
    // The hook is done, and the lock still held: the command waits in the journal, redacted.
    const journal = path.join(root, '.claude-checkpoint.journal');
    const [record] = readdirSync(journal).map((name) => readFileSync(path.join(journal, name), 'utf8'));
    expect(record).toContain('make deploy');
    expect(record).not.toContain('sk8f3Qz71LwpX2v9');
    expect(commandsInFile(root)).toEqual([]);
    // Whoever reads the checkpoint meanwhile sees it.
    const full = JSON.parse(
      (await runCli(['load', '--format', 'full', '--json'], { cwd: root, env })).stdout,
    );
    expect(JSON.stringify(full)).toContain('API_KEY=«redacted» make deploy');

    holder.release();
    expect((await holder.done).code).toBe(0);
    expect(stored(root).recentCommands.map((c: { command: string }) => c.command)).toEqual([
      'API_KEY=«redacted» make deploy',
    ]);
    expect(existsSync(journal)).toBe(false);
  });

  it('keeps a Bash command whose lock holder was killed, and the next hook merges it', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    await runCli(['save', '--goal', 'Killed holder'], { cwd: root, env });
    const holder = holdLock(root);
    await holder.held;
    const bash = (command: string) =>
      runNodeScript(HOOK_ENTRY, ['PostToolUse'], {
        cwd: root,
        env,
        input: JSON.stringify({ cwd: root, tool_name: 'Bash', tool_input: { command }, tool_response: {} }),
      });
    expect(await bash('make first')).toMatchObject({ code: 0, stderr: '' });
    holder.child.kill('SIGKILL');
    await holder.done;
    expect(existsSync(path.join(root, '.claude-checkpoint.lock'))).toBe(true);
    expect(await bash('make second')).toMatchObject({ code: 0, stderr: '' });
    // The lock's next holder (the end of the turn, a save) takes over the dead holder's lock and merges both.
    await mergeJournal(root);
    expect(commandsInFile(root)).toEqual(['make first', 'make second']);
  });
});

/** Another process holding the checkpoint's lock until `release` (it merges the journal as it lets go). */
function holdLock(root: string) {
  const child = spawn(process.execPath, [JOURNAL_WORKER, DIST, root, 'hold'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const held = new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  const done = new Promise<{ code: number | null }>((resolve) =>
    child.on('close', (code) => resolve({ code })),
  );
  return { child, held, done, release: () => child.stdin.end() };
}
