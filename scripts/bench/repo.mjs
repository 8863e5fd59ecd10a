// Deterministic synthetic repositories for the benchmark, cached between runs under .cache/bench/.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const SIZES = {
  S: { files: 1_000, ignored: 500 },
  M: { files: 10_000, ignored: 5_000 },
  L: { files: 100_000, ignored: 20_000 },
  // About 4 GB: the same mix of files, each 0.4 times as large. Never in CI (see index.mjs).
  XL: { files: 1_000_000, ignored: 20_000, sizeScale: 0.4 },
};

/** A small, fast, seeded PRNG (mulberry32): the same repository on every machine. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function git(cwd, ...args) {
  return execFileSync('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', ...args], {
    cwd,
    // Generation only: glibc's malloc otherwise returns and takes back memory for each object git writes.
    env: { ...process.env, MALLOC_TOP_PAD_: String(4 * 1024 * 1024) },
    encoding: 'utf8',
    maxBuffer: 1024 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Realistic sizes: mostly small sources, some medium, a few large files. */
function fileSize(random) {
  const roll = random();
  if (roll < 0.7) return 200 + Math.floor(random() * 3000);
  if (roll < 0.98) return 3000 + Math.floor(random() * 30_000);
  if (roll < 0.9995) return 30_000 + Math.floor(random() * 200_000);
  return 1_000_000 + Math.floor(random() * 2_000_000);
}

function content(random, size) {
  const line = `export const value${Math.floor(random() * 1e9)} = ${Math.floor(random() * 1e9)};\n`;
  return line.repeat(Math.ceil(size / line.length)).slice(0, size);
}

/** Builds (or reuses) the committed repository of a size; returns its path and its tracked file list. */
export function ensureRepo(cacheDir, sizeName) {
  const spec = SIZES[sizeName];
  const root = path.join(cacheDir, `repo-${sizeName}`);
  const ready = path.join(cacheDir, `repo-${sizeName}.ready`);
  const files = [];
  const random = prng(42 + spec.files);
  const perDir = 50;
  for (let i = 0; i < spec.files; i++) {
    const dir = `src/m${Math.floor(i / (perDir * 20))}/d${Math.floor(i / perDir) % 20}`;
    files.push({ path: `${dir}/file${i}.ts`, size: Math.floor(fileSize(random) * (spec.sizeScale ?? 1)) });
  }
  if (existsSync(ready)) return { root, files: files.map((file) => file.path) };

  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  git(root, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(root, '.gitignore'), 'node_modules/\n.claude-checkpoint*\n');
  const made = new Set();
  for (const file of files) {
    const dir = path.join(root, path.dirname(file.path));
    if (!made.has(dir)) {
      mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    writeFileSync(path.join(root, file.path), content(random, file.size));
  }
  for (let i = 0; i < spec.ignored; i++) {
    const dir = path.join(root, `node_modules/pkg${Math.floor(i / 100)}`);
    if (!made.has(dir)) {
      mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    writeFileSync(path.join(dir, `index${i}.js`), content(random, 500));
  }
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'synthetic');
  // What a user with a big repository turns on (git's own advice for many files); never an fsmonitor
  // daemon here, so the rows do not depend on one running.
  if (spec.files >= 1_000_000) {
    git(root, 'config', 'feature.manyFiles', 'true');
    git(root, 'update-index', '--index-version', '4', '--untracked-cache');
    git(root, 'status', '--porcelain');
  }
  writeFileSync(ready, `${new Date().toISOString()}\n`);
  return { root, files: files.map((file) => file.path) };
}

/** Changes `count` tracked files (and adds a few untracked ones) with content new for `round`. */
export function dirty(root, files, count, round) {
  const random = prng(1000 + round);
  const changed = [];
  const untracked = Math.max(1, Math.floor(count / 10));
  for (let i = 0; i < count - untracked; i++) {
    const file = files[Math.floor(random() * files.length)];
    writeFileSync(path.join(root, file), `// round ${round} change ${i}\n${content(random, 800)}`);
    changed.push(file);
  }
  for (let i = 0; i < untracked; i++) {
    const file = `scratch/round${round}-new${i}.ts`;
    mkdirSync(path.join(root, 'scratch'), { recursive: true });
    writeFileSync(path.join(root, file), content(random, 600));
    changed.push(file);
  }
  return changed;
}

/** Puts the repository back to its commit (tracked files) and removes untracked files, outside timing. */
export function reset(root) {
  git(root, 'checkout', '-q', '--', '.');
  rmSync(path.join(root, 'scratch'), { recursive: true, force: true });
}
