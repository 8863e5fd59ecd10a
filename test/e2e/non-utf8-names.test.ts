import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, git, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

/** `café.txt` in Latin-1: byte 0xE9 alone is not valid UTF-8. */
const LATIN1_NAME = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74]);
const TRACKED_NAME = Buffer.from([0x74, 0x72, 0xe9, 0x2e, 0x74, 0x78, 0x74]);

/** Names on disk that hold U+FFFD's bytes: a file written under a mangled name. */
const mangledNames = (root: string) =>
  readdirSync(root, { encoding: 'buffer' }).filter((name) => name.includes(Buffer.from('\ufffd')));

function project() {
  const root = createRepo({ committed: { 'a.txt': 'a\n' } });
  const store = tempDir('checkpoint-store-');
  const cli = (...args: string[]) =>
    runCli([...args, '--root', root], { cwd: root, env: { CHECKPOINT_STORE_DIR: store } });
  const at = (name: Buffer) => Buffer.concat([Buffer.from(`${root}/`), name]);
  const hook = (input: string) =>
    runCli(['hook', 'UserPromptSubmit'], { cwd: root, env: { CHECKPOINT_STORE_DIR: store }, input });
  return { root, cli, at, hook, env: { CHECKPOINT_STORE_DIR: store } };
}

describe('a file whose name is not valid UTF-8 (trial 4, item 1)', () => {
  it('is never dropped silently: the snapshot, list --json and a restore name it as skipped, and it is left as it is', async () => {
    const p = project();
    writeFileSync(p.at(LATIN1_NAME), 'latin\n');
    const taken = await p.cli('snapshot', '--label', 's1');
    expect(taken.code).toBe(0);
    expect(taken.stdout).toContain('"caf\\351.txt"');
    expect(taken.stdout).toMatch(/name.* not valid UTF-8/);

    const listed = JSON.parse((await p.cli('list', '--json')).stdout) as {
      snapshots: Array<{ skipped: { invalidNames?: string[] } }>;
    };
    expect(listed.snapshots[0]?.skipped.invalidNames).toEqual(['"caf\\351.txt"']);

    // A restore does not delete it, nor create a file under a mangled name.
    writeFileSync(path.join(p.root, 'a.txt'), 'changed\n');
    const restored = await p.cli('restore', 'latest', '--yes');
    expect(restored.code).toBe(0);
    expect(existsSync(p.at(LATIN1_NAME))).toBe(true);
    expect(mangledNames(p.root)).toEqual([]);
  });

  it('a tracked one the project index holds leaves the snapshot tree instead of staying there stale', async () => {
    const p = project();
    writeFileSync(p.at(TRACKED_NAME), 'one\n');
    git(p.root, 'add', '-A');
    git(p.root, 'commit', '-qm', 'tracked');
    writeFileSync(p.at(TRACKED_NAME), 'two\n');
    const taken = await p.cli('snapshot', '--json');
    const parsed = JSON.parse(taken.stdout) as { snapshot: { skipped: { invalidNames?: string[] } } };
    expect(parsed.snapshot.skipped.invalidNames).toEqual(['"tr\\351.txt"']);
    rmSync(p.at(TRACKED_NAME));
    writeFileSync(path.join(p.root, 'a.txt'), 'changed\n');
    const restored = await p.cli('restore', 'latest', '--yes');
    expect(restored.code).toBe(0);
    // Nothing written under a mangled name.
    expect(mangledNames(p.root)).toEqual([]);
  });

  it('a save that lists one says so: no snapshot holds it and drift cannot follow it', async () => {
    const p = project();
    writeFileSync(p.at(LATIN1_NAME), 'latin\n');
    const saved = await p.cli('save', '--goal', 'g', '--json');
    expect(saved.code).toBe(0);
    const { warnings } = JSON.parse(saved.stdout) as { warnings: string[] };
    expect(warnings).toContainEqual(
      expect.stringMatching(
        /^1 file\(s\) whose name is not valid UTF-8 \(git shows "caf\\351\.txt"\).*drift cannot follow/,
      ),
    );
  });

  it('the pre-command hook, before a command that deletes it, names it too', async () => {
    const p = project();
    writeFileSync(p.at(LATIN1_NAME), 'latin\n');
    const input = JSON.stringify({
      session_id: 's1',
      cwd: p.root,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'rm caf*.txt' },
    });
    const hooked = await runCli(['hook', 'PreToolUse'], { cwd: p.root, env: p.env, input });
    expect(hooked.code).toBe(0);
    expect(hooked.stderr).toMatch(/skipped 1 file\(s\) whose name is not valid UTF-8.*"caf\\351\.txt"/);
  });

  it("the prompt hook's notes name it, and nothing reaches stdout", async () => {
    const p = project();
    writeFileSync(p.at(LATIN1_NAME), 'latin\n');
    const input = JSON.stringify({ session_id: 's1', cwd: p.root, prompt: 'one' });
    const hooked = await p.hook(input);
    expect(hooked.code).toBe(0);
    expect(hooked.stdout).toBe('');
    expect(hooked.stderr).toMatch(/skipped 1 file\(s\) whose name is not valid UTF-8.*"caf\\351\.txt"/);
  });

  it('an ignored one that snapshotIncludeIgnored asks for is listed as skipped too', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a\n' }, ignore: '.claude-checkpoint*\nsecrets/\n' });
    mkdirSync(path.join(root, 'secrets'));
    writeFileSync(path.join(root, 'secrets', 'ok.txt'), 'ok\n');
    writeFileSync(Buffer.concat([Buffer.from(`${root}/secrets/`), LATIN1_NAME]), 'latin\n');
    const env = {
      CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
      CHECKPOINT_SNAPSHOT_INCLUDE_IGNORED: 'secrets/',
    };
    const taken = await runCli(['snapshot', '--json', '--root', root], { cwd: root, env });
    const parsed = JSON.parse(taken.stdout) as { snapshot: { skipped: { invalidNames?: string[] } } };
    expect(parsed.snapshot.skipped.invalidNames).toEqual(['"secrets/caf\\351.txt"']);
  });
});

describe('the brief with a file whose name is not valid UTF-8 (trial 4, item 1)', () => {
  it('names it as not followed and never says no file changed, before and after an edit', async () => {
    const p = project();
    writeFileSync(p.at(LATIN1_NAME), 'one\n');
    expect((await p.cli('save', '--goal', 'Ship the café page')).code).toBe(0);
    writeFileSync(p.at(LATIN1_NAME), 'two\n');

    const brief = await p.cli('brief');
    expect(brief.code).toBe(0);
    expect(brief.stdout).toContain(
      'Not followed (a name that is not valid UTF-8), re-read before editing: `"caf\\351.txt"`',
    );
    expect(brief.stdout).toContain('No other file changed after the checkpoint');
    expect(brief.stdout).not.toContain('can be trusted as is');

    expect((await p.cli('status')).stdout).toContain(
      'Drift: no other file changed since the save, 1 not followed (a name that is not valid UTF-8)',
    );
    const json = JSON.parse((await p.cli('brief', '--json')).stdout) as { drift: { unfollowed?: string[] } };
    expect(json.drift.unfollowed).toEqual(['"caf\\351.txt"']);
  });
});
