import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { GENERATOR } from '../src/version.js';

it('writes the package version into every checkpoint', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  expect(GENERATOR).toEqual({ name: pkg.name, version: pkg.version });
});
