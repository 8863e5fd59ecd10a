import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

function importsOf(folder: string): Array<{ file: string; specifier: string }> {
  const found: Array<{ file: string; specifier: string }> = [];
  for (const file of readdirSync(path.join(SRC, folder), { recursive: true }) as string[]) {
    if (!file.endsWith('.ts')) continue;
    const text = readFileSync(path.join(SRC, folder, file), 'utf8');
    for (const match of text.matchAll(/^\s*(?:import|export)[^'"]*from\s+['"]([^'"]+)['"]/gm)) {
      found.push({ file: `${folder}/${file}`, specifier: match[1] as string });
    }
  }
  return found;
}

describe('architecture', () => {
  it('keeps the core pure: no file system, processes, clock or environment, no edge modules', () => {
    // Relative imports must stay inside core/ (core/secrets/ may reach core/ itself).
    const insideCore = (file: string, specifier: string) =>
      path.resolve(SRC, path.dirname(file), specifier).startsWith(path.join(SRC, 'core'));
    const allowed = ({ file, specifier }: { file: string; specifier: string }) =>
      specifier === 'zod' ||
      specifier === 'zod/mini' ||
      // Pure: the width of a string in terminal columns.
      specifier === 'fast-string-truncated-width' ||
      specifier === 'node:path' ||
      (specifier.startsWith('.') && insideCore(file, specifier));
    const offenders = importsOf('core').filter((entry) => !allowed(entry));
    expect(offenders).toEqual([]);
    const files = (readdirSync(path.join(SRC, 'core'), { recursive: true }) as string[]).filter((file) =>
      file.endsWith('.ts'),
    );
    for (const file of files) {
      const text = readFileSync(path.join(SRC, 'core', file), 'utf8');
      expect(text, file).not.toMatch(/process\.(env|cwd)|Date\.now\(\)|new Date\(\)/);
    }
  });

  it('lets only the MCP layer and the entry point import the MCP SDK', () => {
    const offenders = ['core', 'git', 'store', 'app']
      .flatMap(importsOf)
      .filter(({ specifier }) => specifier.startsWith('@modelcontextprotocol/'));
    expect(offenders).toEqual([]);
  });

  it('imports only run downwards: front doors, then app/, then store/, git/, transcripts/ and core/', () => {
    // The floor of each folder (DESIGN.md): a module may import its own floor or any below it.
    const FLOOR: Record<string, number> = {
      cli: 3,
      hooks: 3,
      mcp: 3,
      app: 2,
      store: 1,
      git: 1,
      transcripts: 1,
      core: 0,
    };
    const folderOf = (file: string) => path.relative(SRC, file).split(path.sep)[0] ?? '';
    const offenders = Object.keys(FLOOR)
      .flatMap(importsOf)
      .filter(({ specifier }) => specifier.startsWith('.'))
      .filter(({ file, specifier }) => {
        const from = FLOOR[folderOf(path.join(SRC, file))];
        const to = FLOOR[folderOf(path.resolve(SRC, path.dirname(file), specifier))];
        return from !== undefined && to !== undefined && to > from;
      })
      .map(({ file, specifier }) => `${file} -> ${specifier}`);
    expect(offenders).toEqual([]);
  });

  it('has no import cycle between modules (type imports and lazy imports included)', () => {
    const graph = new Map<string, string[]>();
    for (const file of readdirSync(SRC, { recursive: true }) as string[]) {
      if (!file.endsWith('.ts')) continue;
      const text = readFileSync(path.join(SRC, file), 'utf8');
      const targets = [...text.matchAll(/(?:from\s+|import\()['"](\.[^'"]+)['"]/g)].map((match) =>
        path.relative(
          SRC,
          path.resolve(SRC, path.dirname(file), (match[1] as string).replace(/\.js$/, '.ts')),
        ),
      );
      graph.set(file, targets);
    }
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...trail.slice(trail.indexOf(file)), file].join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });
});
