#!/usr/bin/env node
// Installs the pinned agent CLIs the real-session tests drive, each into the git-ignored .cache/agents/<name>,
// once. Not dev dependencies on purpose: only those tests need them. Prints one line per agent.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { installPinned, npmInstall, repoRoot as root } from './install-pinned.mjs';

export const AGENT_CLIS = {
  gemini: { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
  // A native binary of about 400 MB, in a platform package of the registry.
  codex: { pkg: '@openai/codex', version: '0.169.0', bin: 'codex' },
  // Also a native binary (about 190 MB), in a platform package of the registry.
  copilot: { pkg: '@github/copilot', version: '1.0.102', bin: 'copilot' },
  // Native binaries too (about 350 MB with its baseline build), in platform packages of the registry.
  opencode: { pkg: 'opencode-ai', version: '1.18.33', bin: 'opencode' },
};
for (const [name, cli] of Object.entries(AGENT_CLIS)) {
  const binary = installPinned({ prefix: path.join(root, '.cache', 'agents', name), ...cli });
  process.stdout.write(`${name}: ${binary}\n`);
}

// OpenCode runs `npm install` of its plugin package (@opencode-ai/plugin, of its own version) in every
// fresh HOME. The tests point npm at this cache (test/agents/opencode.test.ts), filled here once, so no
// session waits for the registry.
const opencodeNpmCache = path.join(root, '.cache', 'agents', 'opencode', 'npm-cache');
if (!existsSync(path.join(opencodeNpmCache, '_cacache'))) {
  const scratch = mkdtempSync(path.join(tmpdir(), 'opencode-plugin-'));
  try {
    npmInstall(scratch, `@opencode-ai/plugin@${AGENT_CLIS.opencode.version}`, ['--cache', opencodeNpmCache]);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
process.stdout.write(`opencode plugin package: ${opencodeNpmCache}\n`);
