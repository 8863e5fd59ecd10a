#!/usr/bin/env node
// Bundles the server, the CLI and the hooks' entry for the Claude Code plugin, which runs from what is
// committed (no install, no build). `--check` rebuilds in memory and fails if anything committed differs
// from what the source builds to. `--package` (part of `npm run build`) builds the npm package's entries
// instead: dist/cli.cjs, the loader its CLI's bin names, dist/cli-start.cjs, the start it runs, which
// runs dist/cli-main.cjs, the CLI (see src/cli-loader.ts and src/cli-start.ts), and dist/index.js, the MCP
// server in one file.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transform } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
const dist = path.join(root, 'plugin', 'dist');

/**
 * ASCII only: esbuild escapes other characters in strings but not in regular expressions, and one such
 * character makes Node read the whole file as UTF-16, several times slower. `\uXXXX` means the same in
 * a string, a regular expression, an identifier and a comment.
 */
const ascii = (code) =>
  code.replace(/[^\0-\x7f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * A bundle run through V8's code cache (src/store/code-cache.ts) starts with its build id, which keys the
 * cache: V8 itself only checks a cache against the source's length.
 */
const withBuildId = (code, { isWrapped = false, isPadded = false } = {}) => {
  const body = code.replace(/^#!.*\n/, '');
  const id = `// build ${createHash('sha256').update(body).digest('hex').slice(0, 16)}\n`;
  if (!isWrapped) return `${id}${body}`;
  const wrapped = `${id}${MODULE_WRAPPER_START}${body}${MODULE_WRAPPER_END}`;
  const padding = YOUNG_STRING_MAX - wrapped.length - 4;
  return isPadded && padding > 0
    ? `${id}${MODULE_WRAPPER_START}${body}\n/*${' '.repeat(padding)}*/${MODULE_WRAPPER_END}`
    : wrapped;
};

/**
 * The code cache runs a bundle as a function (src/store/code-cache.ts): one written as that function
 * already is run as it is, where wrapping its text in one at every start copied it whole, for a bundle
 * under 128 KB into V8's young generation, which `status` then had to collect (issue 26). The whole CLI
 * (dist/cli-main.cjs) stays a plain CommonJS file: tests run it alone, and V8 keeps a text its size apart.
 */
const MODULE_WRAPPER_START = '(function (exports, require, module, __filename, __dirname) {';
const MODULE_WRAPPER_END = '\n})';
const PREWRAPPED = new Set(['cli-fast.cjs', 'cli-snapshot.cjs', 'cli-start.cjs']);
/**
 * V8 allocates a string of up to 128 KB in its young generation, and a larger one apart (its large
 * object space, which a scavenge does not copy): the code cache's bundle must be read as a string, and a
 * bundle under that size, read so at every start, filled the young generation enough for `status` to
 * collect it during its run (issue 26: about 2M instructions, 1.5% of the command). Such a bundle ends
 * with a comment that takes it past the line (132 KB); V8 reads no comment back from its code cache.
 * The commands' bundles only: the start's (28 KB) costs less to read as it is than padded (`list` and
 * `--help` measured 0.5-0.7M instructions more so).
 */
const YOUNG_STRING_MAX = 132 * 1024;
const PADDED = new Set(['cli-fast.cjs', 'cli-snapshot.cjs']);

/**
 * Node's modules that are not part of its own start-up load when first used, not when a module that
 * imports them loads: commander imports node:child_process (and with it net, dgram and the streams) for
 * executable subcommands this CLI has none of, and each command's modules import what only some of their
 * functions use. Every export is a getter that loads the module on first access.
 */
const LAZY_BUILTINS = [
  'child_process',
  'crypto',
  'zlib',
  'fs/promises',
  'os',
  'readline',
  'net',
  'stream/consumers',
  // The CLI's loader gives its bundles its own require(): node:module loads parts of the ES module loader.
  'module',
];
const lazyBuiltinsOf = (names) => ({
  name: 'lazy-builtins',
  setup(build) {
    const filter = new RegExp(`^(node:)?(${names.join('|')})$`);
    build.onResolve({ filter }, (args) => {
      const name = args.path.replace(/^node:/, '');
      // The getters' own require() is the real module.
      if (args.namespace === 'lazy-builtin') return { path: `node:${name}`, external: true };
      return { path: name, namespace: 'lazy-builtin' };
    });
    build.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, async (args) => {
      const keys = Object.keys(await import(`node:${args.path}`)).filter((key) => key !== 'default');
      return {
        contents: `let real;\nconst load = () => (real ??= require(${JSON.stringify(`node:${args.path}`)}));\nfor (const key of ${JSON.stringify(keys)})\n  Object.defineProperty(exports, key, { get: () => load()[key], enumerable: true });\n`,
        loader: 'js',
      };
    });
  },
});
const lazyBuiltins = lazyBuiltinsOf(LAZY_BUILTINS);

/**
 * esbuild's __toESM copies every property of a module into a new object for each module that imports it
 * as a default or a namespace (fifty import node:path so): one copy per module is enough, since nothing
 * writes to them.
 */
const sharedToESM = (code) => {
  const helper = 'var __toESM=(mod,isNodeMode,target)=>(';
  if (code.split(helper).length !== 2)
    throw new Error("esbuild's __toESM helper changed: update sharedToESM");
  return code.replace(
    helper,
    'var __toESMs=[new WeakMap,new WeakMap],__toESM=(mod,isNodeMode)=>{if(mod==null||typeof mod!="object"&&typeof mod!="function")return __toESM1(mod,isNodeMode);const seen=__toESMs[isNodeMode?1:0];let made=seen.get(mod);return made||seen.set(mod,made=__toESM1(mod,isNodeMode)),made},__toESM1=(mod,isNodeMode,target)=>(',
  );
};

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

// CommonJS, for what runs as a fresh process each time (a hook, a command): it then skips the ES
// module loader's start-up.
const cjs = { ...common, format: 'cjs', banner: {} };

if (process.argv.includes('--package')) {
  // The CLI's own dependencies stay in node_modules, loaded by the commands that use them, except
  // commander, which every command starts with, @inquirer/core, which require() cannot load on Node 20, and
  // @noble/hashes, which hashes a command's small inputs in place of loading node:crypto (src/git/hash.ts).
  const { dependencies } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const bundled = new Set(['commander', '@inquirer/core', 'fast-string-truncated-width', '@noble/hashes']);
  const external = Object.keys(dependencies).filter((name) => !bundled.has(name));
  const out = path.join(root, 'dist');
  // The loader prints the general help itself (src/cli/help-text.ts): the whole CLI's, as its parser
  // prints it off a terminal, taken from the plain modules tsc just built (test/e2e/cli-short-path.test.ts
  // compares them).
  const help = execFileSync(process.execPath, [path.join(out, 'cli.js'), '--help'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // No import() left in the bundles run through vm.Script (the code cache): an import() fails there on
  // Node 20 ("A dynamic import callback was not specified"); the external packages it could name are
  // CommonJS, and Node's built-ins load with require() as well.
  const cached = { external, plugins: [lazyBuiltins], supported: { 'dynamic-import': false } };
  for (const [from, to, options] of [
    ['src/cli.ts', 'cli-main.cjs', cached],
    ['src/cli-fast.ts', 'cli-fast.cjs', cached],
    ['src/cli-snapshot.ts', 'cli-snapshot.cjs', cached],
    [
      'src/cli-start.ts',
      'cli-start.cjs',
      {
        plugins: [lazyBuiltins],
        define: { CLI_HELP_TEXT: JSON.stringify(help) },
        supported: { 'dynamic-import': false },
      },
    ],
    ['src/cli-loader.ts', 'cli.cjs', { plugins: [lazyBuiltins] }],
  ]) {
    const result = await build({ ...cjs, ...options, entryPoints: [path.join(root, from)] });
    // Then short names: less to read, and less for V8 to load from the cache (the plain modules,
    // dist/cli.js, keep theirs for debugging).
    const { code: short } = await transform(sharedToESM(result.outputFiles[0].text), {
      format: 'cjs',
      minify: true,
      legalComments: 'none',
      target: 'node20',
    });
    const code = ascii(short);
    if (to !== 'cli.cjs' && /\bimport\(/.test(code))
      throw new Error(`${to} holds an import(), which fails when run through the code cache`);
    writeFileSync(
      path.join(out, to),
      to === 'cli.cjs'
        ? code
        : withBuildId(code, { isWrapped: PREWRAPPED.has(to), isPadded: PADDED.has(to) }),
    );
  }
  chmodSync(path.join(out, 'cli.cjs'), 0o755);
  // The server, with its dependencies, as the plugin's server.mjs: as ES modules, the SDK's and zod's
  // files and our own take Node longer to find and compile than the SDK alone (issue 26's start-up
  // target). dist/server.js, the plain modules it is built from, stays for debugging.
  const server = await build({ ...common, entryPoints: [path.join(root, 'src/server.ts')] });
  writeFileSync(path.join(out, 'index.js'), ascii(server.outputFiles[0].text));
  chmodSync(path.join(out, 'index.js'), 0o755);
  process.exit(0);
}

/**
 * The checker of a person's redaction patterns (redos-detector) is a bundle of its own beside the others,
 * loaded only when a redaction file has patterns: in the hooks' bundle it would cost every hook its
 * reading (issue 26).
 */
const CHECKER_BUNDLE = 'redos-detector.cjs';
const separateChecker = {
  name: 'separate-checker',
  setup(build) {
    build.onResolve({ filter: /^redos-detector$/ }, () => ({ path: `./${CHECKER_BUNDLE}`, external: true }));
  },
};

/** Every output file: path under plugin/dist → content. */
const outputs = new Map();
{
  const result = await build({
    ...common,
    format: 'cjs',
    banner: {},
    entryPoints: [path.join(root, 'node_modules', 'redos-detector', 'dist', 'redos-detector.mjs')],
  });
  outputs.set(CHECKER_BUNDLE, ascii(result.outputFiles[0].text));
}
for (const [from, to] of [
  ['src/server.ts', 'server.mjs'],
  ['src/cli.ts', 'cli.mjs'],
]) {
  const result = await build({ ...common, plugins: [separateChecker], entryPoints: [path.join(root, from)] });
  outputs.set(to, ascii(result.outputFiles[0].text));
}
// The hooks: one CommonJS bundle (hook-main.cjs; each event's code still runs only when its event
// fires) started by hook.cjs, the loader that runs it through V8's code cache (src/hook-loader.ts).
// The destructive-command gate is a third, hook-gate.cjs, which the loader loads (through the cache)
// for pre-command events only.
for (const [from, to] of [
  ['src/hook.ts', 'hook-main.cjs'],
  ['src/hook-gate.ts', 'hook-gate.cjs'],
  ['src/hook-front.ts', 'hook-front.cjs'],
  ['src/hook-loader.ts', 'hook.cjs'],
]) {
  const result = await build({
    ...cjs,
    // The entry loads node:vm and node:module only for a hook nobody took (the front, through the code
    // cache): a relayed hook skips them, and the parts of the ES module loader node:module brings. The
    // bundles load Node's other modules when first used, as the CLI's do: a hook that runs its event in its
    // own process runs git on libuv's handles, and loading node:child_process (with net and the streams)
    // for a spawn it never makes was about a tenth of a snapshotting hook with hosts off (issue 26).
    plugins: [separateChecker, to === 'hook.cjs' ? lazyBuiltinsOf([...LAZY_BUILTINS, 'vm']) : lazyBuiltins],
    // No import() in what runs through the code cache (see the package's bundles above).
    supported: { 'dynamic-import': false },
    entryPoints: [path.join(root, from)],
  });
  let code = ascii(sharedToESM(result.outputFiles[0].text));
  // The entry runs on every hook, and a script Node runs is compiled afresh each time (no code cache):
  // short names, for less to read and parse.
  if (to === 'hook.cjs')
    code = ascii(
      (await transform(code, { format: 'cjs', minify: true, legalComments: 'none', target: 'node20' })).code,
    );
  outputs.set(to, to === 'hook.cjs' ? code : withBuildId(code));
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
