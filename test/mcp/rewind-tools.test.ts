import { linkSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDeps } from '../../src/app/deps.js';
import { takeSnapshot } from '../../src/app/rewind.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import { connect } from '../helpers/mcp.js';

const SESSION = '11111111-2222-4333-8444-555555555555';

describe('rewind tools over MCP', () => {
  // Rewind trial: `D data.bin (binary)` next to "Not compared: … leaves out data.bin", over MCP as in the CLI.
  it('diff_snapshot names a file the later snapshot left out over the size cap as not compared, not deleted', async () => {
    const root = createRepo({ committed: { 'a.ts': 'one\n' } });
    const { call } = await connect({
      deps: {
        env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), CHECKPOINT_SNAPSHOT_MAX_FILE_MB: '0.001' },
      },
    });
    writeFileSync(path.join(root, 'data.bin'), 'x'.repeat(500));
    await call('snapshot_files', { projectRoot: root });
    writeFileSync(path.join(root, 'data.bin'), 'x'.repeat(2000));
    await call('snapshot_files', { projectRoot: root });
    const diff = await call('diff_snapshot', {
      projectRoot: root,
      snapshotId: 'latest~1',
      against: 'latest',
    });
    expect(diff.structured).toMatchObject({
      files: [],
      notHeld: [{ leftOut: [{ path: 'data.bin', why: 'large', bytes: 2000 }] }],
    });
    expect(diff.text).toMatch(
      /^No differences between snapshot \S+ and \S+ in what they hold\.\nNot compared: /,
    );
  });

  // Rewind trial: `restore latest a.ts` then `restore latest` undid the first restore instead of restoring
  // the rest, `latest` being the first one's undo snapshot by then. The result says so, and what to name.
  it('says after a restore that latest is now its undo snapshot, and to name the snapshot restored from', async () => {
    const root = createRepo({ committed: { 'a.ts': 'one\n', 'b.ts': 'one\n' } });
    const { call } = await connect({ deps: { env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } } });
    const taken = await call('snapshot_files', { projectRoot: root });
    const id = (taken.structured as { snapshot: { id: string } }).snapshot.id;
    writeFileSync(path.join(root, 'a.ts'), 'two\n');
    writeFileSync(path.join(root, 'b.ts'), 'two\n');
    const first = await call('restore_snapshot', {
      projectRoot: root,
      snapshotId: 'latest',
      paths: ['a.ts'],
      dryRun: false,
    });
    const undo = (first.structured as { undoSnapshotId: string }).undoSnapshotId;
    const line = `\`latest\` is now this undo snapshot (${undo}); to restore more from ${id}, name it.`;
    expect(first.text).toContain(`\n${line}`);
    expect(first.structured?.text).toContain(line);
    const rest = await call('restore_snapshot', { projectRoot: root, snapshotId: id, dryRun: false });
    expect(rest.isError).toBeFalsy();
    expect(readFileSync(path.join(root, 'a.ts'), 'utf8')).toBe('one\n');
    expect(readFileSync(path.join(root, 'b.ts'), 'utf8')).toBe('one\n');
  });

  it('snapshots, lists, diffs, plans and restores, with restore_snapshot marked destructive', async () => {
    const root = createRepo({ committed: { 'a.ts': 'one\n' } });
    const { client, call } = await connect({
      deps: { env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } },
    });
    const { tools } = await client.listTools();
    const restoreTool = tools.find((tool) => tool.name === 'restore_snapshot');
    expect(restoreTool?.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'diff_snapshot',
      'list_snapshots',
      'load_session_checkpoint',
      'pull_handoff',
      'push_handoff',
      'restore_snapshot',
      'save_session_checkpoint',
      'snapshot_files',
    ]);

    // Input audit: a label with a lone surrogate was kept, and shown as U+FFFD.
    const lone = await call('snapshot_files', { projectRoot: root, label: 'before \ud83d' });
    expect(lone).toMatchObject({ isError: true });
    expect(lone.text).toContain(
      'label: must be whole Unicode characters: a lone surrogate \\ud83d at character 8',
    );

    const taken = await call('snapshot_files', { projectRoot: root, label: 'before refactor' });
    expect(taken.isError).toBeFalsy();
    const id = (taken.structured as { snapshot: { id: string } }).snapshot.id;
    expect(taken.text).toMatch(
      new RegExp(`^Snapshot ${id} taken \\(manual; the project's first, holding 2 file\\(s\\)\\)`),
    );

    writeFileSync(path.join(root, 'a.ts'), 'two\n');
    const listed = await call('list_snapshots', { projectRoot: root });
    expect(listed.structured).toMatchObject({
      total: 1,
      snapshots: [{ id, label: 'before refactor', trigger: 'manual' }],
    });

    const diff = await call('diff_snapshot', { projectRoot: root, snapshotId: id, path: 'a.ts' });
    expect(diff.structured).toMatchObject({
      from: id,
      to: 'working tree',
      files: [{ path: 'a.ts', status: 'M', added: 1, deleted: 1 }],
    });
    expect(diff.text).toContain('-one\n+two');

    const plan = await call('restore_snapshot', { projectRoot: root, snapshotId: id });
    expect(plan.structured).toMatchObject({
      dryRun: true,
      plan: { overwrite: ['a.ts'], create: [], delete: [] },
      undoSnapshotId: null,
    });
    expect(plan.text).toMatch(/^Dry run: .*Nothing was changed/);
    expect(readFileSync(path.join(root, 'a.ts'), 'utf8')).toBe('two\n');

    const applied = await call('restore_snapshot', { projectRoot: root, snapshotId: id, dryRun: false });
    expect(applied.structured).toMatchObject({ dryRun: false, plan: { overwrite: ['a.ts'] } });
    expect(readFileSync(path.join(root, 'a.ts'), 'utf8')).toBe('one\n');
    expect(applied.text).toMatch(/To undo: restore_snapshot with snapshotId "\S+" and dryRun: false/);
  });

  it('the undo of a path-limited restore names its paths and brings back only them (new-user trial 2026-12-06)', async () => {
    const root = createRepo({ committed: { 'src/auth/session.ts': 'v1\n', 'NOTES.md': 'notes v0\n' } });
    const { call } = await connect({ deps: { env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } } });
    await call('snapshot_files', { projectRoot: root, label: 'base' });
    writeFileSync(path.join(root, 'src/auth/session.ts'), 'v2\n');
    writeFileSync(path.join(root, 'NOTES.md'), 'notes v1\n');
    const restored = await call('restore_snapshot', {
      projectRoot: root,
      snapshotId: 'latest',
      paths: ['src/'],
      dryRun: false,
    });
    expect(restored.isError, restored.text).toBeFalsy();
    const undo = (restored.structured as { undo: { snapshotId: string; paths: string[] } }).undo;
    expect(undo.paths).toEqual(['src']);
    expect(restored.text).toContain(
      `To undo: restore_snapshot with snapshotId "${undo.snapshotId}", paths ["src"] and dryRun: false`,
    );
    expect(readFileSync(path.join(root, 'src/auth/session.ts'), 'utf8')).toBe('v1\n');
    writeFileSync(path.join(root, 'NOTES.md'), 'notes v2 - my later work\n');
    const undone = await call('restore_snapshot', { projectRoot: root, ...undo, dryRun: false });
    expect(undone.isError, undone.text).toBeFalsy();
    expect(readFileSync(path.join(root, 'src/auth/session.ts'), 'utf8')).toBe('v2\n');
    expect(readFileSync(path.join(root, 'NOTES.md'), 'utf8')).toBe('notes v2 - my later work\n');
  });

  it('latest~N in diff_snapshot and restore_snapshot counts snapshots of every trigger, not prompts', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a0\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const { call } = await connect({ deps: { env } });
    const deps = defaultDeps({ env });
    const prompt = (label: string) =>
      takeSnapshot(deps, { projectRoot: root, trigger: 'prompt', label, sessionId: SESSION });
    // Newest first: manual, prompt two, manual, prompt one.
    await prompt('one');
    writeFileSync(path.join(root, 'a.ts'), 'a1\n');
    await call('snapshot_files', { projectRoot: root, label: 'by hand' });
    writeFileSync(path.join(root, 'a.ts'), 'a2\n');
    await prompt('two');
    writeFileSync(path.join(root, 'a.ts'), 'a3\n');
    await call('snapshot_files', { projectRoot: root });
    const listed = (await call('list_snapshots', { projectRoot: root })).structured as {
      snapshots: Array<{ id: string; trigger: string }>;
    };
    expect(listed.snapshots.map((snapshot) => snapshot.trigger)).toEqual([
      'manual',
      'prompt',
      'manual',
      'prompt',
    ]);
    const ids = listed.snapshots.map((snapshot) => snapshot.id);
    for (const back of [1, 2, 3]) {
      const diff = await call('diff_snapshot', { projectRoot: root, snapshotId: `latest~${back}` });
      expect(diff.structured).toMatchObject({ from: ids[back] });
    }
    // latest~1 is the prompt `two` (a2), latest~2 the manual snapshot before it (a1), never prompt `one` (a0).
    const plan = await call('restore_snapshot', { projectRoot: root, snapshotId: 'latest~2' });
    expect(plan.structured).toMatchObject({ snapshotId: ids[2], plan: { overwrite: ['a.ts'] } });
    await call('restore_snapshot', { projectRoot: root, snapshotId: 'latest~2', dryRun: false });
    expect(readFileSync(path.join(root, 'a.ts'), 'utf8')).toBe('a1\n');
    // Four snapshots (the undo's is the newest one, whose tree it shares): latest~4 is one too far.
    const tooFar = await call('diff_snapshot', { projectRoot: root, snapshotId: 'latest~4' });
    expect(tooFar).toMatchObject({ isError: true });
    expect(tooFar.text).toMatch(/'latest~4' goes back 4 snapshot\(s\), but there are only 4/);
    // Bad-input trial: seven digits or more were "not a reference", which named no limit.
    const farther = await call('diff_snapshot', { projectRoot: root, snapshotId: 'latest~999999999' });
    expect(farther.text).toMatch(
      /'latest~999999999' goes back 999999999 snapshot\(s\), but there are only 4/,
    );
  });

  it('a wrong setting stops the snapshot tools with its key and limit, while save and load go on (docs/settings.md)', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a0\n' } });
    const config = tempDir('checkpoint-config-');
    writeFileSync(path.join(config, 'config.json'), JSON.stringify({ snapshotMaxCount: 0 }));
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), CHECKPOINT_CONFIG_DIR: config };
    const { call } = await connect({ deps: { env } });
    for (const [tool, args] of [
      ['snapshot_files', {}],
      ['list_snapshots', {}],
      ['diff_snapshot', { snapshotId: 'latest' }],
      ['restore_snapshot', { snapshotId: 'latest' }],
    ] as const) {
      const result = await call(tool, { projectRoot: root, ...args });
      expect(result, tool).toMatchObject({ isError: true });
      expect(result.text, tool).toContain('snapshotMaxCount must be a whole number from 1 to 100000: got 0');
    }
    const saved = await call('save_session_checkpoint', { projectRoot: root, goal: 'Ship it' });
    expect(saved.isError ?? false).toBe(false);
    const loaded = await call('load_session_checkpoint', { projectRoot: root });
    expect(loaded.isError ?? false).toBe(false);
    expect(loaded.text).toContain('Ship it');
  });

  it('a snapshot given as the path says to pass it as against (diff) or as snapshotId (restore), in the tools’ words', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a0\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    const { call } = await connect({ deps: { env } });
    await call('snapshot_files', { projectRoot: root });
    writeFileSync(path.join(root, 'a.ts'), 'a1\n');
    await call('snapshot_files', { projectRoot: root });
    const diff = await call('diff_snapshot', { projectRoot: root, snapshotId: 'latest', path: 'latest~1' });
    expect(diff).toMatchObject({ isError: true });
    expect(diff.text).toContain(
      "'latest~1' names a snapshot: to compare two snapshots, pass the second as against",
    );
    const restore = await call('restore_snapshot', {
      projectRoot: root,
      snapshotId: 'latest',
      paths: ['latest~1'],
    });
    expect(restore).toMatchObject({ isError: true });
    expect(restore.text).toContain('pass it as snapshotId');
    expect(`${diff.text}${restore.text}`).not.toContain('claude-checkpoint');
  });

  it('the plan and the result name what a restore cannot bring back through links (trial 4, item 5)', async () => {
    const outside = tempDir('checkpoint-outside-');
    writeFileSync(path.join(outside, 'conf.json'), 'orig\n');
    writeFileSync(path.join(outside, 'hard.txt'), 'h\n');
    const root = createRepo({ committed: { 'a.ts': 'one\n' } });
    symlinkSync(path.join(outside, 'conf.json'), path.join(root, 'conf.json'));
    linkSync(path.join(outside, 'hard.txt'), path.join(root, 'hard.txt'));
    const { call } = await connect({ deps: { env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } } });
    const id = (
      (await call('snapshot_files', { projectRoot: root })).structured as { snapshot: { id: string } }
    ).snapshot.id;
    writeFileSync(path.join(root, 'hard.txt'), 'EDITED\n');
    const links = [
      { path: 'hard.txt', reason: expect.stringMatching(/^a hard link .*restored here as a new file/) },
      { path: 'conf.json', reason: expect.stringMatching(/^a symbolic link to .*outside the project/) },
    ];
    const plan = await call('restore_snapshot', { projectRoot: root, snapshotId: id });
    expect(plan.structured).toMatchObject({ plan: { overwrite: ['hard.txt'], links } });
    expect(plan.text).toContain('Not brought back through links (2):');
    const applied = await call('restore_snapshot', { projectRoot: root, snapshotId: id, dryRun: false });
    expect(applied.structured).toMatchObject({ plan: { links } });
    expect(applied.text).toContain('Not brought back through links (2):');
    expect(readFileSync(path.join(outside, 'hard.txt'), 'utf8')).toBe('EDITED\n');
  });

  it('names the latest snapshot in the resume brief', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const { call } = await connect({ deps: { env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } } });
    await call('save_session_checkpoint', { projectRoot: root, goal: 'g' });
    const taken = await call('snapshot_files', { projectRoot: root });
    const id = (taken.structured as { snapshot: { id: string } }).snapshot.id;
    const brief = (await call('load_session_checkpoint', { projectRoot: root })).text;
    expect(brief).toContain(`## Rewind\n- Latest snapshot \`${id}\` (manual, just now)`);
  });

  it('answers bad snapshot ids with a clear tool error', async () => {
    const root = createRepo({ committed: { 'a.ts': 'a' } });
    const { call } = await connect({ deps: { env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } } });
    const empty = await call('restore_snapshot', { projectRoot: root, snapshotId: 'x' });
    expect(empty).toMatchObject({ isError: true });
    expect(empty.text).toMatch(/no snapshots for this project yet/);
    const tooLong = await call('diff_snapshot', { projectRoot: root, snapshotId: 'x'.repeat(65) });
    expect(tooLong.text).toMatch(/snapshotId: must be at most 64 characters/);
  });

  it('the plan names what is kept aside and what is refused, with the reason, before anything changes (issue 22)', async () => {
    const root = createRepo({ committed: { 'a.ts': 'one\n' } });
    writeFileSync(path.join(root, 'big.bin'), 'small\n');
    writeFileSync(path.join(root, 'nested'), 'a file once\n');
    const { call } = await connect({
      deps: {
        env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), CHECKPOINT_SNAPSHOT_MAX_FILE_MB: '0.001' },
      },
    });
    const taken = await call('snapshot_files', { projectRoot: root });
    const id = (taken.structured as { snapshot: { id: string } }).snapshot.id;
    writeFileSync(path.join(root, 'big.bin'), Buffer.alloc(4096, 1));
    writeFileSync(path.join(root, 'nested'), 'changed\n');
    await call('snapshot_files', { projectRoot: root });
    rmSync(path.join(root, 'nested'));
    mkdirSync(path.join(root, 'nested', '.git'), { recursive: true });

    const plan = await call('restore_snapshot', { projectRoot: root, snapshotId: id });
    expect(plan.structured).toMatchObject({
      dryRun: true,
      plan: {
        overwrite: ['big.bin'],
        create: [],
        keptAside: [{ path: 'big.bin', reason: expect.stringContaining('over the snapshot size cap') }],
        refused: [{ path: 'nested', reason: expect.stringContaining('nested git repository') }],
      },
    });
    expect(plan.text).toMatch(/Kept aside first.*\n {2}big\.bin: over the snapshot size cap/);
    expect(plan.text).toMatch(/Refused, left as they are \(1\):\n {2}nested: a nested git repository/);
    expect(readFileSync(path.join(root, 'big.bin')).length).toBe(4096);
  });

  it.runIf(process.platform === 'linux')(
    'a name that is not valid UTF-8: given as git quotes it, listed in quotedNames, taken back in that form',
    async () => {
      const root = createRepo({ committed: { 'a.ts': 'one\n' } });
      const file = Buffer.concat([Buffer.from(`${root}/caf`), Buffer.from([0xe9]), Buffer.from('.txt')]);
      writeFileSync(file, 'one\n');
      const { call } = await connect({
        deps: { env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } },
      });
      const taken = await call('snapshot_files', { projectRoot: root });
      const id = (taken.structured as { snapshot: { id: string } }).snapshot.id;
      writeFileSync(file, 'two\n');
      const diff = await call('diff_snapshot', { projectRoot: root, snapshotId: id });
      expect(diff.isError).toBeFalsy();
      expect(diff.structured).toMatchObject({
        files: [{ path: '"caf\\351.txt"', status: 'M' }],
        quotedNames: ['"caf\\351.txt"'],
      });
      expect(diff.text).toContain('"caf\\351.txt"');
      const applied = await call('restore_snapshot', {
        projectRoot: root,
        snapshotId: id,
        paths: ['"caf\\351.txt"'],
        dryRun: false,
      });
      expect(applied.isError, applied.text).toBeFalsy();
      expect(applied.structured).toMatchObject({ plan: { overwrite: ['"caf\\351.txt"'] } });
      expect(readFileSync(file, 'utf8')).toBe('one\n');
    },
  );

  it('a path given as kept bytes that are valid UTF-8 together names that file (a review found it matched nothing)', async () => {
    const root = createRepo({ committed: { 'é.txt': 'one\n' } });
    const { call } = await connect({ deps: { env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') } } });
    const taken = await call('snapshot_files', { projectRoot: root });
    const id = (taken.structured as { snapshot: { id: string } }).snapshot.id;
    writeFileSync(path.join(root, 'é.txt'), 'two\n');
    // é's UTF-8 bytes C3 A9, each as the lone surrogate that keeps a byte (see raw-path.ts).
    const applied = await call('restore_snapshot', {
      projectRoot: root,
      snapshotId: id,
      paths: ['\udcc3\udca9.txt'],
      dryRun: false,
    });
    expect(applied.isError, applied.text).toBeFalsy();
    expect(applied.structured).toMatchObject({ plan: { overwrite: ['é.txt'] } });
    expect(readFileSync(path.join(root, 'é.txt'), 'utf8')).toBe('one\n');
  });
});
