#!/usr/bin/env node
// Installs the pinned Claude Code CLI (about 380 MB) into the git-ignored .cache/claude-code, once.
// It is not a dev dependency on purpose: only the plugin tests need it. Prints the binary's path.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLAUDE_CODE_VERSION = '2.1.332';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const prefix = path.join(root, '.cache', 'claude-code');
const binary = path.join(prefix, 'node_modules', '.bin', 'claude');

const works = () => {
  try {
    return execFileSync(binary, ['--version'], {
      encoding: 'utf8',
      env: { ...process.env, HOME: prefix },
    }).includes(CLAUDE_CODE_VERSION);
  } catch {
    return false;
  }
};

if (!existsSync(binary) || !works()) {
  mkdirSync(prefix, { recursive: true });
  process.stderr.write(
    `Installing @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} into ${prefix} (once)…\n`,
  );
  execFileSync(
    'npm',
    [
      'install',
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--prefix',
      prefix,
      `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`,
    ],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  if (!works()) {
    process.stderr.write(
      `Claude Code ${CLAUDE_CODE_VERSION} did not install a working binary at ${binary}\n`,
    );
    process.exit(1);
  }
}
process.stdout.write(`${binary}\n`);
