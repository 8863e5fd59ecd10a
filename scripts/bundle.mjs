#!/usr/bin/env node
// Bundles the server, the CLI and the hooks' entry for the Claude Code plugin, which runs from what is
// committed (no install, no build). `--check` rebuilds in memory and fails if anything committed differs
// from what the source builds to.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
const dist = path.join(root, 'plugin', 'dist');

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
// The hooks: one CommonJS bundle (hook-main.cjs; each event's code still runs only when its event
// fires) started by hook.cjs, the loader that runs it through V8's code cache (src/hook-loader.ts).
// CommonJS, because a fresh process per hook then skips the ES module loader's start-up.
const cjs = { ...common, format: 'cjs', banner: {} };
for (const [from, to] of [
  ['src/hook.ts', 'hook-main.cjs'],
  ['src/hook-loader.ts', 'hook.cjs'],
]) {
  const result = await build({ ...cjs, entryPoints: [path.join(root, from)] });
  outputs.set(to, result.outputFiles[0].text);
}
// Hook commands written by earlier versions name hook.mjs: it stays, handing over to hook.cjs.
outputs.set(
  'hook.mjs',
  "import { createRequire } from 'node:module';\ncreateRequire(import.meta.url)('./hook.cjs');\n",
);

/** Every file now in plugin/dist, relative to it. */
const committedFiles = () =>
  readdirSync(dist, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dist, path.join(entry.parentPath ?? entry.path, entry.name)));

if (check) {
  const stale = [];
  for (const [file, code] of outputs) {
    let committed = '';
    try {
      committed = readFileSync(path.join(dist, file), 'utf8');
    } catch {}
    if (committed !== code) stale.push(`plugin/dist/${file}`);
  }
  for (const file of committedFiles())
    if (!outputs.has(file)) stale.push(`plugin/dist/${file} (no longer built)`);
  if (stale.length > 0) {
    process.stderr.write(
      `The committed plugin bundle is stale: ${stale.join(', ')}.\nRun \`npm run bundle\` and commit the result.\n`,
    );
    process.exit(1);
  }
  process.stdout.write('plugin bundle is up to date\n');
} else {
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(dist, { recursive: true });
  for (const [file, code] of outputs) {
    writeFileSync(path.join(dist, file), code);
    process.stdout.write(`plugin/dist/${file} (${(code.length / 1024).toFixed(0)} KB)\n`);
  }
}
