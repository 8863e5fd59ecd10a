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
});
