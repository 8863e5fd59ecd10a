/** Written into every checkpoint's `generator` field; a test keeps it equal to package.json's version. */
export const GENERATOR = { name: 'claude-checkpoint-mcp', version: '0.1.0' } as const;
