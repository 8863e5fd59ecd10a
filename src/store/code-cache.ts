// Runs one of our CommonJS bundles (the hooks', the CLI's) through V8's code cache. Every hook and
// command is a fresh `node` process, and compiling the bundle and every function it calls was a third of
// a hook's cost; with the cache, V8 reads that work back instead. Node 22 has this built in
// (module.enableCompileCache); this does the same on Node 20.
//
// The cache lives in the store's base folder (private, 0700), one file per bundle and event or command,
// keyed by Node's version and the bundle's build id (its first line, written by scripts/bundle.mjs). V8
// checks a cache against the source's length and the flags only, so the key must change whenever the
// bundle's content does: npm gives every file of a package the same time, so a size and a time would not.
// A mismatch V8 notices costs one normal start and writes a fresh cache. Anything wrong with the cache
// only ever costs speed.
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { ensureStoreFolders } from './store-folder.js';

const MAX_CACHE_BYTES = 16 * 1024 * 1024;
/** The first line of a bundle scripts/bundle.mjs built: `// build <hex digest of the rest>`. */
const BUILD_LINE = /^\/\/ build ([0-9a-f]{8,64})\n/;

export interface CachedBundle {
  /** The CommonJS bundle to run. */
  bundle: string;
  /** Which cache file family: `hook` or `cli` (the prefix of its files, and of the stale ones it drops). */
  kind: string;
  /** The event or command: each keeps its own cache, holding the functions it compiles. */
  name: string;
  /**
   * The store's base folder, where the cache goes; `null` with the cache off (codeCacheBase in
   * store-base.ts reads the setting: this module reads none, for the hooks' entry).
   */
  cacheBase: string | null;
  /**
   * The bundle's `require`, which must resolve from the bundle's folder: a CommonJS loader in that folder
   * passes its own, sparing node:module, whose loading loads parts of the ES module loader (about 0.4 ms
   * of a command's start). Without it, one is made for the bundle.
   */
  requireBeside?: NodeJS.Require | undefined;
}

/**
 * Runs `bundle` as a CommonJS module, its compiled code read from and, after a process that ended with
 * exit code 0 and found no usable cache, written to the store's cache folder. `false`, having run
 * nothing, when the bundle cannot be read: the caller decides what runs instead.
 */
export function runCachedBundle(options: CachedBundle): boolean {
  return loadCachedBundle(options) !== null;
}

/** As runCachedBundle, for a bundle that exports something: its exports, or `null` when it cannot be read. */
export function loadCachedBundle({
  bundle,
  kind,
  name,
  cacheBase,
  requireBeside,
}: CachedBundle): Record<string, unknown> | null {
  let source: string;
  try {
    source = readFileSync(bundle, 'utf8').replace(/^#!.*/, '');
  } catch {
    return null;
  }
  const cacheFile = cacheBase === null ? undefined : cachePath(bundle, source, kind, name, cacheBase);
  const cachedData = cacheFile ? readCache(cacheFile) : undefined;
  const script = new vm.Script(asFunction(source), {
    filename: bundle,
    ...(cachedData ? { cachedData } : {}),
  });
  if (cacheFile && (!cachedData || script.cachedDataRejected)) {
    // After the run, so the cache holds the functions it compiled along the way too.
    process.once('exit', (code) => {
      if (code === 0) writeCache(cacheFile, kind, script.createCachedData());
    });
  }
  const loaded: { exports: Record<string, unknown> } = { exports: {} };
  const bundleRequire = requireBeside ?? createRequire(bundle);
  script.runInThisContext()(loaded.exports, bundleRequire, loaded, bundle, path.dirname(bundle));
  return loaded.exports;
}

/** How a CommonJS module's code is run: as this function's body (scripts/bundle.mjs writes the same). */
const MODULE_WRAPPER_START = '(function (exports, require, module, __filename, __dirname) {';
const MODULE_WRAPPER_END = '\n})';

/**
 * The bundle's code as a function expression. scripts/bundle.mjs writes the CLI's short paths' bundles
 * so already, after their build line: wrapped here, the text is copied whole into a new string, which
 * for a bundle under 128 KB (V8 keeps a larger string apart) fills V8's young generation: `status` then
 * collected it during its run (issue 26, about 2M instructions).
 */
function asFunction(source: string): string {
  const build = BUILD_LINE.exec(source.slice(0, 100));
  const start = build ? build[0].length : 0;
  return source.startsWith(MODULE_WRAPPER_START, start) && source.endsWith(MODULE_WRAPPER_END)
    ? source
    : `${MODULE_WRAPPER_START}${source}${MODULE_WRAPPER_END}`;
}

function cachePath(
  bundle: string,
  source: string,
  kind: string,
  name: string,
  cacheBase: string,
): string | undefined {
  try {
    const stats = statSync(bundle);
    const build = BUILD_LINE.exec(source.slice(0, 100))?.[1] ?? `${stats.size}-${Math.trunc(stats.mtimeMs)}`;
    const safeName = name.replace(/[^A-Za-z]/g, '').slice(0, 40) || 'none';
    const key = `${safeName}-${process.version}-${process.arch}-${build}`;
    return path.join(cacheBase, 'cache', `${kind}-${key}.v8`);
  } catch {
    return undefined;
  }
}

function readCache(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    // Compiled code is only ever read from the store's own cache folder, not through a link in its place.
    if (!lstatSync(path.dirname(file), { throwIfNoEntry: false })?.isDirectory()) return undefined;
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > MAX_CACHE_BYTES) return undefined;
    return readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Writes the cache atomically (temp file, exclusive, never through a symlink) and drops stale ones. */
function writeCache(file: string, kind: string, data: Buffer): void {
  const dir = path.dirname(file);
  const temp = `${file}.tmp-${process.pid}`;
  try {
    // Security: the base and its cache folder are real folders, never a link that would have the clean-up
    // below delete another folder's files (safety audit of 2026-12-07, item 3).
    ensureStoreFolders([path.dirname(dir), dir]);
    const fd = openSync(
      temp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      writeFileSync(fd, data);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
    // Caches of other versions: one not read for a week is left over from an upgrade.
    const weekAgo = Date.now() - 7 * 24 * 3_600_000;
    for (const name of readdirSync(dir)) {
      const other = path.join(dir, name);
      if (name.startsWith(`${kind}-`) && other !== file && statSync(other).atimeMs < weekAgo)
        unlinkSync(other);
    }
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // nothing was written
    }
  }
}
