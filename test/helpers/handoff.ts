import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { runCli } from './cli.js';
import { git, tempDir, writeTree } from './fixtures.js';

/** A clone standing for one machine, with a snapshot store of its own. */
export interface Machine {
  root: string;
  env: Record<string, string>;
}

export function machine(url: string, user: string): Machine {
  const root = tempDir(`handoff-${user}-`);
  execFileSync('git', ['clone', '-q', url, root], { stdio: 'ignore' });
  git(root, 'config', 'user.name', user);
  git(root, 'config', 'user.email', `${user.toLowerCase()}@example.com`);
  return { root, env: { CHECKPOINT_STORE_DIR: tempDir(`handoff-store-${user}-`) } };
}

/** The files of the remote's first commit, by default. */
const SEED_TREE = {
  '.gitignore': '.claude-checkpoint*\n*.log\n',
  'src/app.ts': 'export const app = 1;\n',
  'src/old.ts': 'old\n',
  'README.md': '# Project\n',
};

/** A bare repository with one commit on `main` (`tree`'s files), as a project's remote. */
export function bareRemote(tree: Parameters<typeof writeTree>[1] = SEED_TREE): { bare: string } {
  const seed = tempDir('handoff-seed-');
  git(seed, 'init', '-q', '-b', 'main');
  git(seed, 'config', 'user.name', 'Seed');
  git(seed, 'config', 'user.email', 'seed@example.com');
  writeTree(seed, tree);
  git(seed, 'add', '-A');
  git(seed, 'commit', '-q', '-m', 'initial');
  const bare = path.join(tempDir('handoff-remote-'), 'project.git');
  execFileSync('git', ['clone', '-q', '--bare', seed, bare], { stdio: 'ignore' });
  return { bare };
}

export const cli = (m: Machine, ...args: string[]) => runCli(args, { cwd: m.root, env: m.env });

/** Every ref of a repository with its commit: what a remote holds. */
export const allRefs = (repo: string) =>
  execFileSync('git', ['for-each-ref'], { cwd: repo, encoding: 'utf8' });

/** The environment of a git that writes a forged commit on the remote: an identity of its own. */
export function forgerEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GIT_AUTHOR_NAME: 'x',
    GIT_AUTHOR_EMAIL: 'x@x',
    GIT_COMMITTER_NAME: 'x',
    GIT_COMMITTER_EMAIL: 'x@x',
  };
}

/**
 * Rewrites the handoff `name` on the bare remote with its metadata changed by `change`, the tree and base
 * kept, as a hostile remote (or an earlier version's push) could leave it. Returns the new commit.
 */
export function forgeHandoffMeta(
  bare: string,
  name: string,
  change: (meta: Record<string, unknown>) => Record<string, unknown>,
  /** The handoff commit to forge from (the ref's by default), for a test that forges one several ways. */
  from = `refs/claude-checkpoint/handoff/${name}`,
  /** The tree to forge it with (the original's by default): an earlier version's form of the tree. */
  tree?: string,
): string {
  const ref = `refs/claude-checkpoint/handoff/${name}`;
  const original = execFileSync('git', ['cat-file', 'commit', from], { cwd: bare, encoding: 'utf8' });
  const [headers = '', body = ''] = original.split(/\n\n(.*)/s);
  const meta = JSON.parse(body.slice(body.indexOf('\n\n') + 2)) as Record<string, unknown>;
  const forged = execFileSync(
    'git',
    ['commit-tree', tree ?? /^tree (\S+)/m.exec(headers)?.[1] ?? '', '-p', String(meta.base), '-F', '-'],
    {
      cwd: bare,
      encoding: 'utf8',
      input: `claude-checkpoint handoff ${name}\n\n${JSON.stringify(change(meta))}\n`,
      env: forgerEnv(),
    },
  ).trim();
  execFileSync('git', ['update-ref', ref, forged], { cwd: bare });
  return forged;
}

/** Metadata whose checkpoint has `goal.tasks` a string: what a push of a hand-damaged file sent as it was. */
export function withTasksDamaged(meta: Record<string, unknown>): Record<string, unknown> {
  const checkpoint = JSON.parse(String(meta.checkpoint)) as { goal: Record<string, unknown> };
  checkpoint.goal.tasks = 'oops';
  return { ...meta, checkpoint: JSON.stringify(checkpoint) };
}
