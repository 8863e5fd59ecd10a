import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Needs the real Claude Code CLI: see vitest.agents.config.ts.
    exclude: ['test/claude-code/**', 'test/agents/**', 'node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup-env.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Git-heavy suites spawn many processes; two workers match the 2-core machines we run on.
    maxWorkers: 2,
  },
});
