// Installs one pinned npm package into a git-ignored folder of .cache/, once, for the tests that drive a
// real agent CLI (install-claude-code.mjs, install-agents.mjs). Not dev dependencies on purpose: only
// those tests need them.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** `npm install` of `spec` into `prefix`, nothing saved or audited; `extra` adds flags. */
export function npmInstall(prefix, spec, extra = []) {
  execFileSync(
    'npm',
    [
      'install',
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--prefix',
      prefix,
      ...extra,
      spec,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
}

/**
 * The binary `bin` of `pkg@version` under `prefix`, installed there first unless it is there and says
 * that version; exits the process when the install gives no working binary.
 */
export function installPinned({ prefix, pkg, version, bin }) {
  const binary = path.join(prefix, 'node_modules', '.bin', bin);
  const works = () => {
    try {
      return execFileSync(binary, ['--version'], {
        encoding: 'utf8',
        env: { ...process.env, HOME: prefix },
      }).includes(version);
    } catch {
      return false;
    }
  };
  if (!existsSync(binary) || !works()) {
    mkdirSync(prefix, { recursive: true });
    process.stderr.write(`Installing ${pkg}@${version} into ${prefix} (once)…\n`);
    npmInstall(prefix, `${pkg}@${version}`);
    if (!works()) {
      process.stderr.write(`${pkg}@${version} did not install a working binary at ${binary}\n`);
      process.exit(1);
    }
  }
  return binary;
}
