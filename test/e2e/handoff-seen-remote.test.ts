import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../helpers/cli.js';
import { git, writeTree } from '../helpers/fixtures.js';
import { bareRemote, cli, type Machine, machine } from '../helpers/handoff.js';

beforeAll(assertBuilt);

/**
 * This machine's record of the handoffs it pushed or pulled belongs to the remote's URL, not its name. A
 * trial: after `git remote rename origin upstream` (the usual fork workflow), this machine's own handoff
 * was refused as "another machine pushed a handoff named 'main' to upstream", and only --force got by.
 */

/** The store's record of seen handoffs (one per store). */
function seenFile(m: Machine): string {
  const found = execFileSync('find', [m.env.CHECKPOINT_STORE_DIR as string, '-name', 'handoffs-seen.json'], {
    encoding: 'utf8',
  }).trim();
  expect(found).not.toBe('');
  return found;
}

describe("a remote renamed or reached under another spelling keeps this machine's handoffs its own", () => {
  it('push, push, git remote rename origin upstream, push: goes through, and so does a push after a pull there', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    writeTree(a.root, { 'src/app.ts': 'A1\n' });
    expect((await cli(a, 'handoff', 'push')).code).toBe(0);
    writeTree(a.root, { 'src/app.ts': 'A2\n' });
    expect((await cli(a, 'handoff', 'push')).code).toBe(0);
    git(a.root, 'remote', 'rename', 'origin', 'upstream');
    writeTree(a.root, { 'src/app.ts': 'A3\n' });
    const renamed = await cli(a, 'handoff', 'push');
    expect(renamed.stderr).not.toContain('another machine');
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(renamed.stdout).toContain('to upstream');

    // B pulls it under the name origin, renames origin too, and pushes over it: its own pull counts.
    const b = machine(`file://${bare}`, 'Bob');
    expect((await cli(b, 'handoff', 'pull', '--yes')).code).toBe(0);
    git(b.root, 'remote', 'rename', 'origin', 'upstream');
    writeTree(b.root, { 'src/app.ts': 'B\n' });
    const pushedBack = await cli(b, 'handoff', 'push');
    expect(pushedBack.code, pushedBack.stderr).toBe(0);
    // A has not seen B's: still refused as someone else's, under the new name too.
    const refused = await cli(a, 'handoff', 'push');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('changed since this machine last pushed or pulled it');
  });

  it('a remote spelled through an insteadOf shorthand and then by its full URL is one remote', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    git(a.root, 'config', `url.file://${path.dirname(bare)}/.insteadOf`, 'short:');
    git(a.root, 'remote', 'set-url', 'origin', `short:${path.basename(bare)}`);
    expect((await cli(a, 'handoff', 'push')).code).toBe(0);
    git(a.root, 'remote', 'set-url', 'origin', `file://${bare}`);
    writeTree(a.root, { 'src/app.ts': 'A2\n' });
    const pushed = await cli(a, 'handoff', 'push');
    expect(pushed.code, pushed.stderr).toBe(0);
    // The record holds the URL git resolves, the same for both spellings.
    expect(readFileSync(seenFile(a), 'utf8')).toContain(`file://${bare}`);
    expect(readFileSync(seenFile(a), 'utf8')).not.toContain('short:');
  });

  it('origin set to a new address of the same repository: the handoff there is the one this machine pushed, so its own', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    expect((await cli(a, 'handoff', 'push')).code).toBe(0);
    // Another URL for the same repository (as https to ssh): a plain path instead of file://.
    git(a.root, 'remote', 'set-url', 'origin', bare);
    writeTree(a.root, { 'src/app.ts': 'A2\n' });
    const pushed = await cli(a, 'handoff', 'push');
    expect(pushed.code, pushed.stderr).toBe(0);
    // And someone else's push there since is still refused, at either address.
    const b = machine(`file://${bare}`, 'Bob');
    expect((await cli(b, 'handoff', 'pull', '--yes')).code).toBe(0);
    expect((await cli(b, 'handoff', 'push')).code).toBe(0);
    git(a.root, 'remote', 'set-url', 'origin', `file://${bare}`);
    const refused = await cli(a, 'handoff', 'push');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('changed since this machine last pushed or pulled it');
  });

  it('origin set to another repository holding a handoff of that name: that one is not this machine’s', async () => {
    const first = bareRemote().bare;
    const second = bareRemote().bare;
    const a = machine(`file://${first}`, 'Alice');
    const c = machine(`file://${second}`, 'Carol');
    expect((await cli(a, 'handoff', 'push')).code).toBe(0);
    expect((await cli(c, 'handoff', 'push')).code).toBe(0);
    git(a.root, 'remote', 'set-url', 'origin', `file://${second}`);
    const refused = await cli(a, 'handoff', 'push');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "the handoff named 'main' on origin is not one this machine pushed or pulled at this remote's address",
    );
    // A machine that never pushed or pulled a 'main' anywhere is told it is another machine's.
    const d = machine(`file://${second}`, 'Dan');
    const theirs = await cli(d, 'handoff', 'push');
    expect(theirs.code).toBe(1);
    expect(theirs.stderr).toContain(
      "another machine pushed a handoff named 'main' to origin, which this machine has not pushed or pulled",
    );
  });

  it('origin set to a new address of the same repository, its handoff pushed over since: the refusal says what this machine did', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    expect((await cli(a, 'handoff', 'push')).code).toBe(0);
    git(a.root, 'remote', 'set-url', 'origin', bare);
    const b = machine(`file://${bare}`, 'Bob');
    expect((await cli(b, 'handoff', 'pull', '--yes')).code).toBe(0);
    writeTree(b.root, { 'src/app.ts': 'B\n' });
    expect((await cli(b, 'handoff', 'push')).code).toBe(0);
    writeTree(a.root, { 'src/app.ts': 'A2\n' });
    const refused = await cli(a, 'handoff', 'push');
    expect(refused.code).toBe(1);
    // Not "which this machine has not pushed or pulled": it pushed it, under the old URL.
    expect(refused.stderr).not.toContain('has not pushed or pulled');
    expect(refused.stderr).toContain(
      'this machine did push or pull a handoff of that name at another address (if that was this repository before its URL changed, someone pushed over it since)',
    );
  });

  it('after an upgrade: what an older version recorded under the remote’s name still decides, and alone', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    expect((await cli(a, 'handoff', 'push')).code).toBe(0);
    const file = seenFile(a);
    const commit = git(bare, 'rev-parse', 'refs/claude-checkpoint/handoff/main').trim();
    // Only the record by name: the handoff there is the one this machine last pushed, as that record says.
    writeFileSync(file, `${JSON.stringify({ 'origin\nrefs/claude-checkpoint/handoff/main': commit })}\n`);
    const b = machine(`file://${bare}`, 'Bob');
    expect((await cli(b, 'handoff', 'pull', '--yes')).code).toBe(0);
    writeTree(b.root, { 'src/app.ts': 'B\n' });
    expect((await cli(b, 'handoff', 'push')).code).toBe(0);
    // Pushed over since: "changed since this machine last pushed", which only the old record can say.
    writeTree(a.root, { 'src/app.ts': 'A2\n' });
    const refused = await cli(a, 'handoff', 'push');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('changed since this machine last pushed or pulled it');
  });

  it('after an upgrade: a push rewrites what an older version recorded under the remote’s name under its URL', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    expect((await cli(a, 'handoff', 'push')).code).toBe(0);
    // As versions before kept it: `<remote name>\n<ref>`.
    const file = seenFile(a);
    const commit = git(bare, 'rev-parse', 'refs/claude-checkpoint/handoff/main').trim();
    writeFileSync(file, `${JSON.stringify({ 'origin\nrefs/claude-checkpoint/handoff/main': commit })}\n`);
    writeTree(a.root, { 'src/app.ts': 'A2\n' });
    const pushed = await cli(a, 'handoff', 'push');
    expect(pushed.code, pushed.stderr).toBe(0);
    // Rewritten under the URL, the record by name gone.
    const seen = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    expect(Object.keys(seen)).toEqual([`url:file://${bare}\nrefs/claude-checkpoint/handoff/main`]);
  });

  it('drop after a rename forgets the handoff: nothing is left of it in the record', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    expect((await cli(a, 'handoff', 'push')).code).toBe(0);
    git(a.root, 'remote', 'rename', 'origin', 'upstream');
    expect((await cli(a, 'handoff', 'drop', 'main', '--yes')).code).toBe(0);
    expect(JSON.parse(readFileSync(seenFile(a), 'utf8'))).toEqual({});
  });
});
