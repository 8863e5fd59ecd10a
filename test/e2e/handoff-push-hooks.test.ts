import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../helpers/cli.js';
import { git, tempDir, writeTree } from '../helpers/fixtures.js';
import { allRefs, bareRemote, cli, type Machine, machine } from '../helpers/handoff.js';

beforeAll(assertBuilt);

/**
 * What a handoff's push runs and answers as `git push` would: the project's own pre-push hook (issue 26,
 * trial item 3), and a remote's own refusal told as the remote's, not as another machine's handoff (item
 * 7). Real clones of a real bare remote, real hooks.
 */

// Built at run time so that no scanner flags this file.
const KEY = `AKIA${'QYLPMN5HHHFPZAM2'}`;

// A private key as a scanner would print it: its marker lines and its body, each on a line of its own.
const PEM_BODY = [
  `b3BlbnNzaC1rZXktdjEAAAAA${'BG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2g'}`,
  `tZWQyNTUxOQAAACB${'hY29uc3Qga2V5ID0gIm5vdCBhIHJlYWwga2V5Ig'}`,
];
const PEM = [
  `-----BEGIN OPENSSH ${'PRIVATE'} KEY-----`,
  ...PEM_BODY,
  `-----END OPENSSH ${'PRIVATE'} KEY-----`,
];
const echoLines = (lines: string[], to = '') => lines.map((line) => `echo '${line}'${to}`).join('\n');

const handoffRefs = (bare: string) =>
  execFileSync('git', ['for-each-ref', 'refs/claude-checkpoint'], { cwd: bare, encoding: 'utf8' });

function writeHook(file: string, body: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
}

/** Where git looks for the project's hooks: .git/hooks, or a folder named by core.hooksPath (husky's way). */
const placements: Array<[string, string, (m: Machine) => string]> = [
  ['.git/hooks/pre-push', 'hooktest', (m) => path.join(m.root, '.git', 'hooks', 'pre-push')],
  [
    'core.hooksPath',
    'hooktest-path',
    (m) => {
      git(m.root, 'config', 'core.hooksPath', '.githooks');
      return path.join(m.root, '.githooks', 'pre-push');
    },
  ],
];

describe("handoff push runs the project's pre-push hook, as git push does", () => {
  let bare: string;
  beforeAll(() => {
    ({ bare } = bareRemote());
  });

  it.each(placements)(
    'a pre-push hook in %s that refuses stops the push, and says why',
    async (_, name, hookAt) => {
      const a = machine(`file://${bare}`, 'Alice');
      // A scanner that prints what it found: the message reaches a model through push_handoff, redacted.
      writeHook(
        hookAt(a),
        // The key is put together when the hook runs: the hook's own file travels with a handoff too.
        `echo "policy: no pushes from this clone today"\necho "found ${KEY.slice(0, 4)}$(echo ${KEY.slice(4)}) in config/aws.ts" >&2\nexit 1`,
      );
      // The same hook stops the user's own push.
      expect(() => git(a.root, 'push', '-q', 'origin', 'HEAD:refs/heads/hooktest')).toThrow();
      writeTree(a.root, { 'src/app.ts': 'export const app = 2;\n' });
      const before = allRefs(bare);
      const refused = await cli(a, 'handoff', 'push', '--name', name);
      expect(refused.code, refused.stdout).toBe(1);
      expect(refused.stderr).toContain('pre-push hook');
      expect(refused.stderr).toContain('policy: no pushes from this clone today');
      expect(refused.stderr).toContain('nothing was pushed');
      expect(refused.stderr).toContain('--no-verify');
      expect(refused.stderr).toContain('in config/aws.ts');
      expect(refused.stderr).not.toContain(KEY);
      expect(refused.stderr).not.toContain('another machine');
      expect(allRefs(bare)).toBe(before);
      // As with git push, --no-verify is the person's own choice to push without it.
      const skipped = await cli(a, 'handoff', 'push', '--name', name, '--no-verify');
      expect(skipped.code, skipped.stderr).toBe(0);
      expect(handoffRefs(bare)).toContain(`refs/claude-checkpoint/handoff/${name}\n`);
    },
  );

  it("a private key the hook prints is redacted whole, body lines too; the hook's own 'To ...' line stays", async () => {
    const a = machine(`file://${bare}`, 'Alice');
    writeHook(
      path.join(a.root, '.git', 'hooks', 'pre-push'),
      `echo "To skip this, ask the security team"\n${echoLines(PEM, ' >&2')}\nexit 1`,
    );
    const refused = await cli(a, 'handoff', 'push', '--name', 'hook-pem');
    expect(refused.code, refused.stdout).toBe(1);
    expect(refused.stderr).toContain('pre-push hook');
    expect(refused.stderr).toContain('To skip this, ask the security team');
    for (const line of PEM_BODY) expect(refused.stderr).not.toContain(line.slice(0, 16));
    expect(refused.stderr).not.toContain('BEGIN OPENSSH');
  });

  it("the hook is given what git push gives it, and can read the handoff's commit (a pre-push scanner works)", async () => {
    const a = machine(`file://${bare}`, 'Alice');
    const seen = path.join(tempDir('hook-seen-'), 'seen.txt');
    // A scanner's way: read each pushed commit's files; fail if an object is missing.
    writeHook(
      path.join(a.root, '.git', 'hooks', 'pre-push'),
      [
        `echo "args $1 $2" >> '${seen}'`,
        'while read local_ref local_oid remote_ref remote_oid; do',
        `  echo "ref $local_oid $remote_ref $remote_oid" >> '${seen}'`,
        `  git show --format=%s --name-only "$local_oid" >> '${seen}' || exit 1`,
        `  git cat-file -p "$local_oid:src/new.ts" >> '${seen}' || exit 1`,
        'done',
      ].join('\n'),
    );
    writeTree(a.root, { 'src/new.ts': 'export const made = "here";\n' });
    const pushed = await cli(a, 'handoff', 'push', '--name', 'hook-reads', '--json');
    expect(pushed.code, pushed.stderr).toBe(0);
    const { commit } = JSON.parse(pushed.stdout) as { commit: string };
    const log = readFileSync(seen, 'utf8');
    expect(log).toContain(`args origin file://${bare}`);
    expect(log).toContain(
      `ref ${commit} refs/claude-checkpoint/handoff/hook-reads ${'0'.repeat(commit.length)}`,
    );
    expect(log).toContain('claude-checkpoint handoff hook-reads');
    expect(log).toContain('export const made = "here";');
  });

  it('handoff drop runs it too (git push --delete does), and --no-verify skips it', async () => {
    const a = machine(`file://${bare}`, 'Alice');
    expect((await cli(a, 'handoff', 'push', '--name', 'drop-hook')).code).toBe(0);
    writeHook(
      path.join(a.root, '.git', 'hooks', 'pre-push'),
      'while read l lo r ro; do echo "refusing to touch $r" >&2; done\nexit 1',
    );
    const refused = await cli(a, 'handoff', 'drop', 'drop-hook', '--yes');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('refusing to touch refs/claude-checkpoint/handoff/drop-hook');
    expect(refused.stderr).toContain('nothing was deleted');
    expect(handoffRefs(bare)).toContain('drop-hook');
    const skipped = await cli(a, 'handoff', 'drop', 'drop-hook', '--yes', '--no-verify');
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(handoffRefs(bare)).not.toContain('drop-hook');
  });
});

describe("a remote that refuses the push is reported as the remote's refusal, with its own words", () => {
  it("push, push --force and drop show the remote's reason, never another machine's handoff", async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    expect((await cli(a, 'handoff', 'push', '--name', 'ro2')).code).toBe(0);
    writeHook(
      path.join(bare, 'hooks', 'pre-receive'),
      'echo "handoffs are read-only on this server (ask ops)" >&2\nexit 1',
    );
    const before = allRefs(bare);
    writeTree(a.root, { 'src/app.ts': 'export const app = 3;\n' });
    for (const args of [
      ['handoff', 'push', '--name', 'ro1'],
      ['handoff', 'push', '--name', 'ro1', '--force'],
      ['handoff', 'push', '--name', 'ro2'],
      ['handoff', 'drop', 'ro2', '--yes'],
    ]) {
      const result = await cli(a, ...args);
      const said = `${args.join(' ')}: ${result.stderr}`;
      expect(result.code, said).toBe(1);
      expect(result.stderr, said).toContain("remote 'origin' refused");
      expect(result.stderr, said).toContain('pre-receive hook declined');
      expect(result.stderr, said).toContain('handoffs are read-only on this server (ask ops)');
      expect(result.stderr, said).toMatch(/nothing was (pushed|deleted)/);
      expect(result.stderr, said).not.toMatch(/another machine pushed|changed since|someone pushed/);
      expect(result.stderr.trim().split('\n'), said).toHaveLength(1);
    }
    expect(allRefs(bare)).toBe(before);
  });

  it("the remote's words reach the terminal with their control characters escaped", async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    writeHook(
      path.join(bare, 'hooks', 'pre-receive'),
      "printf 'read-only \\033[2J\\033]0;owned\\007 here\\n' >&2\nexit 1",
    );
    const result = await cli(a, 'handoff', 'push', '--name', 'esc');
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain('read-only');
    expect(result.stderr).not.toContain('\u001b');
    expect(result.stderr).not.toContain('\u0007');
    expect(result.stderr).toContain('\\033[2J');
  });

  it("a private key in the remote's refusal is redacted whole, body lines too", async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    writeHook(
      path.join(bare, 'hooks', 'pre-receive'),
      `echo "To skip this, ask ops" >&2\n${echoLines(PEM, ' >&2')}\nexit 1`,
    );
    const refused = await cli(a, 'handoff', 'push', '--name', 'remote-pem');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("remote 'origin' refused");
    expect(refused.stderr).toContain('To skip this, ask ops');
    for (const line of PEM_BODY) expect(refused.stderr).not.toContain(line.slice(0, 16));
    expect(refused.stderr).not.toContain('BEGIN OPENSSH');
  });
});
