#!/usr/bin/env node
// Bundles the server and the CLI into two self-contained files for the Claude Code plugin, which runs
// from what is committed (no install, no build). `--check` rebuilds in memory and fails if the committed
// bundle differs from what the source builds to.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
const entries = [
  { from: 'src/index.ts', to: 'plugin/dist/server.mjs' },
  { from: 'src/cli.ts', to: 'plugin/dist/cli.mjs' },
];

const stale = [];
for (const entry of entries) {
  const result = await build({
    entryPoints: [path.join(root, entry.from)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    // CommonJS dependencies bundled into ESM still call require(): give them one.
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    logLevel: 'warning',
  });
  const code = result.outputFiles[0].text;
  const target = path.join(root, entry.to);
  if (check) {
    let committed = '';
    try {
      committed = readFileSync(target, 'utf8');
    } catch {}
    if (committed !== code) stale.push(entry.to);
  } else {
    writeFileSync(target, code);
    process.stdout.write(`${entry.to} (${(code.length / 1024).toFixed(0)} KB)\n`);
  }
}
if (stale.length > 0) {
  process.stderr.write(
    `The committed plugin bundle is stale: ${stale.join(', ')}.\nRun \`npm run bundle\` and commit the result.\n`,
  );
  process.exit(1);
}
if (check) process.stdout.write('plugin bundle is up to date\n');
