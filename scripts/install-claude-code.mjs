#!/usr/bin/env node
// Installs the pinned Claude Code CLI (about 380 MB) into the git-ignored .cache/claude-code, once.
// It is not a dev dependency on purpose: only the plugin tests need it. Prints the binary's path.
import path from 'node:path';
import { installPinned, repoRoot } from './install-pinned.mjs';

export const CLAUDE_CODE_VERSION = '2.1.332';

const binary = installPinned({
  prefix: path.join(repoRoot, '.cache', 'claude-code'),
  pkg: '@anthropic-ai/claude-code',
  version: CLAUDE_CODE_VERSION,
  bin: 'claude',
});
process.stdout.write(`${binary}\n`);
