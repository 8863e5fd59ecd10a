import { defineConfig } from 'vitest/config';

// Tests against real agent CLIs (Claude Code, Gemini CLI), installed by scripts/install-*.mjs into
// .cache/: run by `npm run test:agents`, after the main suite.
export default defineConfig({
  test: {
    include: ['test/claude-code/**/*.test.ts', 'test/agents/**/*.test.ts'],
    globalSetup: ['test/global-setup-agents.ts'],
    setupFiles: ['test/setup-env.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    maxWorkers: 2,
  },
});
