import { defineConfig } from 'vitest/config';

// The plugin tests against the real Claude Code CLI: run by `npm run test:claude-code`, after the
// main suite, because they need the 380 MB CLI that scripts/install-claude-code.mjs fetches.
export default defineConfig({
  test: {
    include: ['test/claude-code/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    maxWorkers: 1,
  },
});
