#!/usr/bin/env node
// Bundles the server, the CLI and the hooks' entry for the Claude Code plugin, which runs from what is
// committed (no install, no build). The hooks' entry is split by event (plugin/dist/hook.mjs plus
// plugin/dist/hooks/*.mjs), so a hook loads only what its event needs. `--check` rebuilds in memory and
// fails if anything committed differs from what the source builds to.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
const dist = path.join(root, 'plugin', 'dist');
const chunksDir = path.join(dist, 'hooks');

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  write: false,
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  // ESM builds first: jsonc-parser's UMD build loads its parts with a require() no bundler can follow.
  mainFields: ['module', 'main'],
  // CommonJS dependencies bundled into ESM still call require(): give them one.
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  logLevel: 'warning',
};

/** Every output file: path under plugin/dist → content. */
const outputs = new Map();
for (const [from, to] of [
  ['src/index.ts', 'server.mjs'],
  ['src/cli.ts', 'cli.mjs'],
]) {
  const result = await build({ ...common, entryPoints: [path.join(root, from)] });
  outputs.set(to, result.outputFiles[0].text);
}
const hooks = await build({
  ...common,
  entryPoints: { hook: path.join(root, 'src/hook.ts') },
  splitting: true,
  outdir: dist,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'hooks/[name]-[hash]',
  // The banner's `require` once per chunk would clash with the entry's; the hook code needs none.
  banner: {},
});
for (const file of hooks.outputFiles) outputs.set(path.relative(dist, file.path), file.text);

const committedChunks = () => {
  try {
    return readdirSync(chunksDir).map((name) => path.join('hooks', name));
  } catch {
    return [];
  }
};

if (check) {
  const stale = [];
  for (const [file, code] of outputs) {
    let committed = '';
    try {
      committed = readFileSync(path.join(dist, file), 'utf8');
    } catch {}
    if (committed !== code) stale.push(`plugin/dist/${file}`);
  }
  for (const file of committedChunks())
    if (!outputs.has(file)) stale.push(`plugin/dist/${file} (no longer built)`);
  if (stale.length > 0) {
    process.stderr.write(
      `The committed plugin bundle is stale: ${stale.join(', ')}.\nRun \`npm run bundle\` and commit the result.\n`,
    );
    process.exit(1);
  }
  process.stdout.write('plugin bundle is up to date\n');
} else {
  rmSync(chunksDir, { recursive: true, force: true });
  mkdirSync(chunksDir, { recursive: true });
  for (const [file, code] of outputs) {
    writeFileSync(path.join(dist, file), code);
    process.stdout.write(`plugin/dist/${file} (${(code.length / 1024).toFixed(0)} KB)\n`);
  }
}
