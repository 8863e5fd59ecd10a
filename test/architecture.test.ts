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
    const allowed = (specifier: string) =>
      specifier === 'zod' || specifier === 'node:path' || specifier.startsWith('./');
    const offenders = importsOf('core').filter(({ specifier }) => !allowed(specifier));
    expect(offenders).toEqual([]);
    for (const file of readdirSync(path.join(SRC, 'core'))) {
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
