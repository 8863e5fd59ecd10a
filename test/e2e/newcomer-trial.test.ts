import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cliProject } from '../helpers/cli.js';
import { git } from '../helpers/fixtures.js';
import { bareRemote, machine, cli as onMachine } from '../helpers/handoff.js';
import { connect } from '../helpers/mcp.js';

/** What a read-only newcomer trial of the product found (2026-12-07), each pinned as it was reproduced. */

beforeAll(assertBuilt);

describe('an empty string option is refused, not taken for its default (item 1)', () => {
  it.each([
    [['handoff', 'push', '--remote', ''], '--remote must name a git remote'],
    [['handoff', 'pull', '--remote', ''], '--remote must name a git remote'],
    [['handoff', 'list', '--remote', ''], '--remote must name a git remote'],
    [['handoff', 'drop', 'x', '--remote', '', '--yes'], '--remote must name a git remote'],
    [['diff', 'latest', '--against', ''], '--against must name a snapshot'],
  ])('%j', async (args, message) => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    expect((await onMachine(a, 'snapshot')).code).toBe(0);
    const refused = await onMachine(a, ...args);
    expect(refused.stderr).toContain(`claude-checkpoint: ${message}: got ''`);
    expect(refused.code).toBe(2);
    expect(git(bare, 'for-each-ref', 'refs/claude-checkpoint')).toBe('');
  });
});

describe('handoff errors read as sentences on both surfaces, with their own field names (items 3 and 11)', () => {
  it('pull_handoff and handoff pull of a handoff that is not there', async () => {
    const { bare } = bareRemote();
    const a = machine(`file://${bare}`, 'Alice');
    const { call } = await connect({ deps: { env: a.env } });
    const named = await call('pull_handoff', { projectRoot: a.root, name: 'nosuch' });
    expect(named.text).toBe(
      "name: no handoff 'nosuch' on remote 'origin': a person can see the handoffs there with `claude-checkpoint handoff list`",
    );
    const byBranch = await call('pull_handoff', { projectRoot: a.root });
    expect(byBranch.text).toBe(
      "name: no handoff 'main' on remote 'origin' (without name, the handoff of the current branch): a person can see the handoffs there with `claude-checkpoint handoff list`; to pull another, pass name",
    );
    expect((await onMachine(a, 'handoff', 'pull')).stderr).toBe(
      "claude-checkpoint: --name: no handoff 'main' on remote 'origin' (without --name, the handoff of the current branch): see the handoffs there with `claude-checkpoint handoff list`; to pull another, pass --name\n",
    );
  });

  it('a detached HEAD names --name at the CLI, name over MCP', async () => {
    const { root, env, cli } = cliProject();
    git(root, 'checkout', '-q', '--detach');
    expect((await cli('handoff', 'push')).stderr).toBe(
      'claude-checkpoint: --name: HEAD is detached, so there is no branch to name the handoff after: pass --name\n',
    );
    const { call } = await connect({ deps: { env } });
    expect((await call('push_handoff', { projectRoot: root })).text).toBe(
      'name: HEAD is detached, so there is no branch to name the handoff after: pass name',
    );
  });

  it('a branch that cannot name a handoff names --name at the CLI', async () => {
    const { root, cli } = cliProject();
    git(root, 'switch', '-q', '-c', 'fix+1');
    expect((await cli('handoff', 'push')).stderr).toMatch(
      /^claude-checkpoint: --name: the current branch 'fix\+1' cannot name a handoff .*: pass --name\n$/,
    );
  });
});
