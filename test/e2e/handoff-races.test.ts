import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../helpers/cli.js';
import { git, tempDir, writeTree } from '../helpers/fixtures.js';
import { bareRemote, cli, type Machine, machine } from '../helpers/handoff.js';

beforeAll(assertBuilt);

/**
 * A handoff dropped by another machine while this one is between listing the remote and fetching from it
 * (trial of issue 26, item 11). Made exact rather than timed: the remote is reached through a wrapper of
 * `git upload-pack` (remote.origin.uploadpack) that, at the given call, deletes the refs first, as the
 * other machine's `handoff drop` would have.
 */
function dropAtCall(
  m: Machine,
  bare: string,
  call: number,
  refs: string[],
  /** Instead of deleting: the commit each ref is pushed over with. */
  overWith?: string,
): void {
  const dir = tempDir('upload-pack-');
  const counter = path.join(dir, 'calls');
  writeFileSync(counter, '0');
  const wrapper = path.join(dir, 'upload-pack');
  writeFileSync(
    wrapper,
    [
      '#!/bin/sh',
      `n=$(($(cat '${counter}') + 1)); echo $n > '${counter}'`,
      `if [ $n -eq ${call} ]; then`,
      ...refs.map((ref) =>
        overWith
          ? `  git --git-dir='${bare}' update-ref '${ref}' ${overWith}`
          : `  git --git-dir='${bare}' update-ref -d '${ref}'`,
      ),
      'fi',
      'exec git upload-pack "$@"',
    ].join('\n'),
  );
  chmodSync(wrapper, 0o755);
  git(m.root, 'config', 'remote.origin.uploadpack', wrapper);
  onCalls.set(m.root, counter);
}

const onCalls = new Map<string, string>();
const calls = (m: Machine) => Number(readFileSync(onCalls.get(m.root) ?? '', 'utf8'));

describe('a handoff dropped while it is being read', () => {
  let bare: string;
  beforeAll(() => {
    ({ bare } = bareRemote());
  });

  it('pull: says the handoff is gone (bad input, exit 2), never that the remote is out of reach', async () => {
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    writeTree(a.root, { 'src/app.ts': 'from A\n' });
    expect((await cli(a, 'handoff', 'push', '--name', 'racedrop')).code).toBe(0);
    // Call 1 lists the handoff; call 2, the fetch, finds it dropped.
    dropAtCall(b, bare, 2, ['refs/claude-checkpoint/handoff/racedrop']);
    const result = await cli(b, 'handoff', 'pull', '--name', 'racedrop', '--dry-run');
    expect(calls(b)).toBeGreaterThanOrEqual(2);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain("handoff 'racedrop'");
    // In the CLI's words: the flag, not the MCP field.
    expect(result.stderr).toContain("--name: handoff 'racedrop' was dropped");
    expect(result.stderr).not.toContain('claude-checkpoint: name:');
    expect(result.stderr).toContain('dropped');
    expect(result.stderr).not.toContain('could not reach');
  });

  it('list: the handoffs still there are listed, the one dropped meanwhile is not', async () => {
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    expect((await cli(a, 'handoff', 'push', '--name', 'stays')).code).toBe(0);
    expect((await cli(a, 'handoff', 'push', '--name', 'goes')).code).toBe(0);
    dropAtCall(b, bare, 2, ['refs/claude-checkpoint/handoff/goes']);
    const result = await cli(b, 'handoff', 'list', '--json');
    expect(result.code, result.stderr).toBe(0);
    const names = (JSON.parse(result.stdout).handoffs as Array<{ name: string }>).map((h) => h.name);
    expect(names).toContain('stays');
    expect(names).not.toContain('goes');
  });

  // Helper task left3, item 2: a handoff another machine pushed over between the listing (ls-remote) and
  // the fetch was left out of the list: its listed commit never came. It is listed, as it is now.
  it('list: a handoff pushed over meanwhile is listed, with its new commit', async () => {
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    expect((await cli(a, 'save', '--goal', 'first goal')).code).toBe(0);
    expect((await cli(a, 'handoff', 'push', '--name', 'listmoved')).code).toBe(0);
    expect((await cli(a, 'save', '--goal', 'second goal')).code).toBe(0);
    const newer = JSON.parse((await cli(a, 'handoff', 'push', '--name', 'listmoved-2', '--json')).stdout)
      .commit as string;
    // Call 1 lists it at its first commit; before call 2, the fetch, it is pushed over.
    dropAtCall(b, bare, 2, ['refs/claude-checkpoint/handoff/listmoved'], newer);
    const result = await cli(b, 'handoff', 'list', '--json');
    expect(result.code, result.stderr).toBe(0);
    const listed = JSON.parse(result.stdout).handoffs as Array<{
      name: string;
      commit: string;
      goal: string;
    }>;
    expect(listed.find((h) => h.name === 'listmoved')).toMatchObject({ commit: newer, goal: 'second goal' });
    expect(listed.map((h) => h.name)).toContain('listmoved-2');
  });

  it('list: a handoff pushed over again while it is read again is listed too (the retry fetches it)', async () => {
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    expect((await cli(a, 'save', '--goal', 'one')).code).toBe(0);
    expect((await cli(a, 'handoff', 'push', '--name', 'twice')).code).toBe(0);
    expect((await cli(a, 'save', '--goal', 'two')).code).toBe(0);
    const second = JSON.parse((await cli(a, 'handoff', 'push', '--name', 'twice-2', '--json')).stdout)
      .commit as string;
    // A commit B's first fetch never brings: made in A's store, pushed over "twice" by the wrapper.
    expect((await cli(a, 'save', '--goal', 'three')).code).toBe(0);
    const third = JSON.parse((await cli(a, 'handoff', 'push', '--name', 'twice-3', '--json')).stdout)
      .commit as string;
    git(bare, 'update-ref', '-d', 'refs/claude-checkpoint/handoff/twice-3');
    // Pushed over before the fetch (call 2) and again before it is listed again (call 3).
    const dir = tempDir('upload-pack-');
    const counter = path.join(dir, 'calls');
    writeFileSync(counter, '0');
    const wrapper = path.join(dir, 'upload-pack');
    const ref = 'refs/claude-checkpoint/handoff/twice';
    writeFileSync(
      wrapper,
      [
        '#!/bin/sh',
        `n=$(($(cat '${counter}') + 1)); echo $n > '${counter}'`,
        `if [ $n -eq 2 ]; then git --git-dir='${bare}' update-ref '${ref}' ${second}; fi`,
        `if [ $n -eq 3 ]; then git --git-dir='${bare}' update-ref '${ref}' ${third}; fi`,
        'exec git upload-pack "$@"',
      ].join('\n'),
    );
    chmodSync(wrapper, 0o755);
    git(b.root, 'config', 'remote.origin.uploadpack', wrapper);
    const result = await cli(b, 'handoff', 'list', '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(Number(readFileSync(counter, 'utf8'))).toBeGreaterThanOrEqual(4);
    const listed = JSON.parse(result.stdout).handoffs as Array<{
      name: string;
      commit: string;
      goal: string;
    }>;
    expect(listed.find((h) => h.name === 'twice')).toMatchObject({ commit: third, goal: 'three' });
  });

  it('pull of a handoff pushed over meanwhile: says it changed, and changes nothing', async () => {
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    writeTree(a.root, { 'src/app.ts': 'first\n' });
    expect((await cli(a, 'handoff', 'push', '--name', 'racepush')).code).toBe(0);
    writeTree(a.root, { 'src/app.ts': 'second\n' });
    const newer = JSON.parse((await cli(a, 'handoff', 'push', '--name', 'racepush-2', '--json')).stdout)
      .commit as string;
    dropAtCall(b, bare, 2, ['refs/claude-checkpoint/handoff/racepush'], newer);
    const result = await cli(b, 'handoff', 'pull', '--name', 'racepush', '--yes');
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain("handoff 'racepush' on remote 'origin' changed while this command ran");
    expect(readFileSync(path.join(b.root, 'src/app.ts'), 'utf8')).toBe('export const app = 1;\n');
  });

  it('drop of a handoff another machine dropped first: "no handoff", not "someone pushed it again"', async () => {
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    expect((await cli(a, 'handoff', 'push', '--name', 'dropped-twice')).code).toBe(0);
    // B lists it (upload-pack), then its delete reaches a remote where A's drop went first.
    const dir = tempDir('receive-pack-');
    const wrapper = path.join(dir, 'receive-pack');
    writeFileSync(
      wrapper,
      `#!/bin/sh\ngit --git-dir='${bare}' update-ref -d refs/claude-checkpoint/handoff/dropped-twice\nexec git receive-pack "$@"\n`,
    );
    chmodSync(wrapper, 0o755);
    git(b.root, 'config', 'remote.origin.receivepack', wrapper);
    const result = await cli(b, 'handoff', 'drop', 'dropped-twice', '--yes');
    expect(result.stdout).toContain(
      "No handoff 'dropped-twice' on origin: see the handoffs there with `claude-checkpoint handoff list`.",
    );
    expect(result.stderr).not.toContain('someone pushed it again');
    expect(result.code).toBe(1);
  });
});

// Review 6, item 2: a ref under refs/claude-checkpoint/handoff/ at a tag or a blob was taken for a
// handoff pushed over, and failed the whole list ("changed twice"); so did one handoff still moving.
describe('handoff refs that name no handoff, and one that keeps moving', () => {
  it('list leaves out a ref at a tag or a blob; pull of one says it is not a handoff', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    expect((await cli(a, 'save', '--goal', 'good goal')).code).toBe(0);
    expect((await cli(a, 'handoff', 'push', '--name', 'good')).code).toBe(0);
    git(a.root, 'tag', '-a', 'v1', '-m', 'x');
    git(a.root, 'push', '-q', 'origin', 'v1:refs/claude-checkpoint/handoff/tagged');
    writeFileSync(path.join(a.root, 'note.txt'), 'not a commit\n');
    const blob = git(a.root, 'hash-object', '-w', 'note.txt').trim();
    git(a.root, 'push', '-q', 'origin', `${blob}:refs/claude-checkpoint/handoff/blobbed`);

    const listed = await cli(b, 'handoff', 'list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const names = (JSON.parse(listed.stdout).handoffs as Array<{ name: string }>).map((h) => h.name);
    expect(names).toEqual(['good']);

    for (const name of ['tagged', 'blobbed']) {
      const pulled = await cli(b, 'handoff', 'pull', '--name', name, '--yes');
      expect(pulled.code).not.toBe(0);
      expect(pulled.stderr).toContain(`'${name}' on remote 'origin' is not a handoff`);
      expect(pulled.stderr).not.toContain('pushed it again');
    }
  });

  it('list leaves out a handoff still pushed over after it is read again, with a notice, and lists the rest', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    const b = machine(`file://${bare}`, 'Bob');
    expect((await cli(a, 'save', '--goal', 'stays')).code).toBe(0);
    expect((await cli(a, 'handoff', 'push', '--name', 'stays')).code).toBe(0);
    expect((await cli(a, 'handoff', 'push', '--name', 'moving')).code).toBe(0);
    // Commits B never fetched: pushed, then their refs deleted from the remote.
    const commits: string[] = [];
    for (const n of [3, 4, 5]) {
      expect((await cli(a, 'save', '--goal', `goal ${n}`)).code).toBe(0);
      commits.push(
        JSON.parse((await cli(a, 'handoff', 'push', '--name', `moving-${n}`, '--json')).stdout).commit,
      );
      git(bare, 'update-ref', '-d', `refs/claude-checkpoint/handoff/moving-${n}`);
    }
    // Pushed over before the fetch (call 2), before it is listed again (call 3), before the second fetch (call 4).
    const dir = tempDir('upload-pack-');
    const counter = path.join(dir, 'calls');
    writeFileSync(counter, '0');
    const wrapper = path.join(dir, 'upload-pack');
    const ref = 'refs/claude-checkpoint/handoff/moving';
    writeFileSync(
      wrapper,
      [
        '#!/bin/sh',
        `n=$(($(cat '${counter}') + 1)); echo $n > '${counter}'`,
        ...commits.map(
          (commit, index) =>
            `if [ $n -eq ${index + 2} ]; then git --git-dir='${bare}' update-ref '${ref}' ${commit}; fi`,
        ),
        'exec git upload-pack "$@"',
      ].join('\n'),
    );
    chmodSync(wrapper, 0o755);
    git(b.root, 'config', 'remote.origin.uploadpack', wrapper);

    const listed = await cli(b, 'handoff', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^stays {2}/m);
    expect(listed.stdout).not.toMatch(/^moving /m);
    expect(listed.stdout).toContain(
      "Note: handoff 'moving' on remote 'origin' is left out: it changed twice while this command read it (someone is pushing it again); run it again to see it.",
    );
  });
});
