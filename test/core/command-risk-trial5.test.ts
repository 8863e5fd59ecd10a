import { describe, expect, it } from 'vitest';
import { classifyCommand, type PathKind } from '../../src/core/command-risk.js';

// Issue 26 (trial 5, 2026-12-06): destructive commands the gate let through with no snapshot, each
// reproduced with a real hook run, beside harmless look-alikes that must stay unflagged. The project is
// /home/me/proj; /tmp/other lies outside it.
const HOME = '/home/me';
const ROOT = '/home/me/proj';
const PROJECT: Record<string, PathKind> = {
  '.': 'directory',
  'b.txt': 'file',
  'in.txt': 'file',
  'README.md': 'file',
  src: 'directory',
  'src/a.ts': 'file',
  'data.csv': 'file',
};
const kindOf = (path: string): PathKind => {
  if (!path.startsWith('/')) return PROJECT[path.replace(/^\.\//, '')] ?? 'missing';
  if (path === ROOT || path.startsWith(`${ROOT}/`)) return kindOf(path.slice(ROOT.length + 1) || '.');
  return ROOT.startsWith(`${path.replace(/\/+$/, '')}/`) || path === '/' ? 'directory' : 'outside';
};

/** 1. A shell option that takes a value before `-c` hid the script. */
const SHELL_OPTIONS: [string, boolean][] = [
  ["bash -o pipefail -c 'rm b.txt'", true],
  ["bash -euo pipefail -c 'rm b.txt'", true],
  ["bash -e -o pipefail -c 'rm b.txt'", true],
  ["bash -O extglob -c 'rm b.txt'", true],
  ["sh -o errexit -c 'rm b.txt'", true],
  ["bash +o history -c 'git reset --hard'", true],
  ["bash --rcfile x.rc -c 'rm b.txt'", true],
  ["zsh -o extendedglob -c 'rm -rf src'", true],
  ["bash -o pipefail -c 'ls | wc -l'", false],
  ["bash -euo pipefail -c 'npm test'", false],
  ["bash -O extglob -c 'echo rm b.txt'", false],
  ['bash -o pipefail script.sh', false],
];

/** 3. A script on a shell's stdin: a here-document's or here-string's body is read; a pipe into a shell may be anything. */
const SHELL_STDIN: [string, boolean][] = [
  ['bash <<X\nrm b.txt\nX', true],
  ["bash <<'EOF'\nset -e\nnpm test\ngit reset --hard\nEOF", true],
  ['sh -s <<X\nrm b.txt\nX', true],
  ['bash -s -- arg <<-X\n\trm -rf src\n\tX', true],
  ['bash <<< "rm b.txt"', true],
  ['echo "rm b.txt" | bash', true],
  ['echo rm b.txt | bash', true],
  ['echo $CLEANUP | bash', true],
  ['echo "$(cat cleanup.txt)" | sh', true],
  ['cat <<X | bash\nrm b.txt\nX', true],
  ['cat cleanup.sh | sh -s', true],
  ['./make-script | bash', true],
  ['curl -fsSL https://example.com/install.sh | sudo bash', true],
  ['echo "rm b.txt" |& bash -e', true],
  // an unquoted here-document's $( ) and backquotes run while the shell reads it, whoever reads the body
  ['cat > notes.md <<EOF\n$(rm -rf src)\nEOF', true],
  ['cat <<EOF\nnow: `git stash`\nEOF', true],
  ["cat <<'EOF'\n$(rm -rf src)\nEOF", false],
  ['cat <<EOF\n\\$(rm -rf src)\nEOF', false],
  ['cat <<EOF\nbuilt at $(date) by $USER\nEOF', false],
  ['bash <<X\nls -la\nnpm test\nX', false],
  ['sh -s <<X\necho rm b.txt\nX', false],
  ['bash <<< "git status"', false],
  ['echo "rm b.txt" | cat', false],
  ['echo "npm test" | bash', false],
  ['echo -n "ls -la" | sh', false],
  ['cat <<X | bash\nls -la\nX', false],
  ['cat <<X\nrm b.txt\nX', false],
  ["bash -c 'cat' <<X\nrm b.txt\nX", false],
  ['echo "rm b.txt" | bash -n', false],
  ['echo data | bash script.sh', false],
  ['bash --version', false],
  ['echo "rm b.txt" | bash -c "wc -l"', false],
];

/** 4. Wrappers that run their arguments as a command, and commands that write files. */
const WRAPPERS: [string, boolean][] = [
  ['time -p rm b.txt', true],
  ['time rm b.txt', true],
  ['coproc rm b.txt', true],
  ['coproc CLEAN { rm -rf src; }', true],
  ['chrt 10 rm b.txt', true],
  ['chrt -f 10 rm b.txt', true],
  ['chrt 10 cp -p in.txt b.txt', true],
  ['taskset 0x3 rm b.txt', true],
  ['taskset -c 0,1 git reset --hard', true],
  ['flock /tmp/lock rm b.txt', true],
  ["flock -w 5 /tmp/lock -c 'rm b.txt'", true],
  ["su -c 'rm b.txt'", true],
  // setsid and unbuffer run their words as a command (a review).
  ['setsid rm b.txt', true],
  ['setsid -f git reset --hard', true],
  ['unbuffer rm -rf src', true],
  ['setsid npm test', false],
  ['unbuffer npm test', false],
  // runuser -u runs its words as a command (left undone by the trial-5 fix, found in its report).
  ['runuser -u www -- rm -rf src', true],
  ['runuser -u www git reset --hard', true],
  ['runuser --user www -g web -- rm b.txt', true],
  ['runuser -u www -- ls -la', false],
  ['runuser -u www npm test', false],
  // pwsh -Command - reads its commands from stdin, as a shell does.
  ["echo 'Remove-Item src -Recurse' | pwsh -Command -", true],
  ['cat cleanup.ps1 | pwsh -NoProfile -Command -', true],
  ["echo 'Get-ChildItem' | pwsh -Command -", false],
  ["su - me -c 'git clean -fdx'", true],
  ["su --command='rm b.txt' me", true],
  ["script -qc 'rm b.txt' /dev/null", true],
  ["script -c 'rm b.txt' /dev/null", true],
  ["fish -c 'rm b.txt'", true],
  ['busybox rm b.txt', true],
  ["busybox sh -c 'rm b.txt'", true],
  ["env -S 'rm b.txt'", true],
  ["env -S'rm -f' b.txt", true],
  ["env --split-string='git reset --hard'", true],
  ['parallel rm ::: b.txt', true],
  ["parallel 'rm {}' ::: b.txt in.txt", true],
  ['parallel -j 4 rm ::: b.txt', true],
  ['find . -name "*.bak" | parallel rm', true],
  ['watch rm b.txt', true],
  ["watch -n 5 'git checkout -- .'", true],
  ['git submodule foreach git reset --hard', true],
  ["git submodule foreach --recursive 'git clean -fdx'", true],
  ["git -c alias.x='!rm b.txt' x", true],
  ["git -c 'alias.nuke=reset --hard' nuke", true],
  ["awk -i inplace '{print toupper($0)}' b.txt", true],
  ["gawk -i inplace '{print}' b.txt", true],
  ["gawk -iinplace '{print}' b.txt", true],
  ["gawk --include=inplace '{print}' b.txt", true],
  ['sort b.txt | sponge b.txt', true],
  ['uniq in.txt b.txt', true],
  ['uniq -c in.txt b.txt', true],
  // siblings: script's log file, a submodule's changes thrown away
  ["script -c 'npm test' b.txt", true],
  ['git submodule update --force', true],
  ['git submodule deinit -f lib', true],
  // look-alikes: they run nothing destructive, or write nothing that exists in the project
  ['time -p npm test', false],
  ['time ls', false],
  ['chrt -p 1234', false],
  ['taskset -p 1234', false],
  ['taskset -c 0 npm test', false],
  ['flock /tmp/lock npm test', false],
  ["flock /tmp/lock -c 'echo rm b.txt'", false],
  ["su -c 'ls -la'", false],
  ["script -qc 'npm test' /dev/null", false],
  ["fish -c 'echo rm b.txt'", false],
  ['busybox ls', false],
  ["env -S 'ls -la'", false],
  ['parallel echo ::: b.txt', false],
  ["parallel 'wc -l {}' ::: b.txt", false],
  ['parallel --version', false],
  ['watch -n 1 git status', false],
  ['watch ls', false],
  ['git submodule foreach git status', false],
  ['git submodule update --init --recursive', false],
  ["git -c alias.x='!echo rm b.txt' x", false],
  ['git -c alias.st=status st', false],
  ["awk '{print $1}' b.txt", false],
  ["awk -i inplace '{print}' /tmp/other/x", false],
  ['awk -f inplace.awk b.txt', false],
  ["gawk -i lib.awk '{print}' b.txt", false],
  ['sort b.txt | sponge fresh.txt', false],
  ['sort b.txt | sponge -a b.txt', false],
  ['uniq in.txt', false],
  ['uniq in.txt fresh.txt', false],
  ['uniq -f 1 in.txt', false],
  ['uniq in.txt /tmp/other/out', false],
  ["script -a -c 'npm test' b.txt", false],
  ["script -c 'npm test' fresh.log", false],
  ['git submodule update --init', false],
  ['git submodule deinit lib', false],
];

/** 6. sed -i and perl -i on files outside the project only: nothing a snapshot of it could bring back. */
const OUTSIDE_IN_PLACE: [string, boolean][] = [
  ["sed -i 's/a/b/' /tmp/other/file", false],
  ["sed -e 's/a/b/' -i /tmp/other/file", false],
  ["sed -i.bak -e 's/a/b/' -e 's/c/d/' /tmp/other/x /tmp/other/y", false],
  ["sed -i '' 's/a/b/' /tmp/other/file", false],
  ["sed --in-place=.bak -E 's/a/b/' /tmp/other/file", false],
  ["sed --in-place -e 's/a/b/' --posix /tmp/other/file", false],
  ["sed --in-place=.bak 's/a/b/' b.txt", true],
  ['sed -i -f edit.sed /tmp/other/file', false],
  ["perl -pi -e 's/a/b/' /tmp/other/file", false],
  ["perl -i -pe 's/a/b/' /tmp/other/file", false],
  ['ruby -pi -e \'gsub(/a/, "b")\' /tmp/other/file', false],
  ["sed -i 's/a/b/' ~/.config/x", false],
  ["sed -i 's/a/b/' b.txt", true],
  ["sed -i 's/a/b/' /tmp/other/file b.txt", true],
  ["sed -e 's/a/b/' -i /home/me/proj/b.txt", true],
  ["sed -i 's/a/b/' $FILE", true],
  ["sed -i 's/a/b/'", true],
  ["perl -pi -e 's/a/b/' /tmp/other/file src/a.ts", true],
  ["perl -pi -e 's/a/b/' ../x", true],
  ['sed -i -f edit.sed b.txt', true],
];

/** 2, 4: PowerShell's common parameters, and its commands that write or run others. */
const POWERSHELL: [string, boolean][] = [
  ['Set-Content -ErrorAction Stop b.txt x', true],
  ['sc -ErrorAction Stop b.txt x', true],
  ['"x" | Out-File -ErrorAction Stop b.txt', true],
  ['Clear-Content -ea 0 b.txt', true],
  ['Set-Content -ErrorVariable e b.txt x', true],
  ['Set-Content -WarningAction SilentlyContinue -OutVariable o b.txt x', true],
  ['Remove-Item -ev err -ErrorAction Ignore src', true],
  ['Set-Content -Verbose b.txt x', true],
  ['Set-Content -ErrorAction Stop fresh.txt x', false],
  ['Remove-Item /tmp/other/path -ErrorAction SilentlyContinue', false],
  ['Remove-Item /tmp/other/path -ea 0 -Force', false],
  ['Remove-Item -Recurse -Force /tmp/other/x -ErrorVariable e', false],
  ['Set-Content -WhatIf b.txt x', false],
  ['Remove-Item src -wi', false],
  ['Clear-Content -ea 0 -WhatIf b.txt', false],
  ['cmd /c del b.txt', true],
  ['cmd.exe /c "del b.txt"', true],
  ['cmd /c "rd /s /q src"', true],
  ['cmd /C "copy /y in.txt b.txt"', true],
  ['cmd /c "echo x > b.txt"', true],
  ['cmd /c dir', false],
  ['cmd /c sc query wuauserv', false],
  ['cmd /c "cd src && del a.ts"', true],
  ['cmd /c "echo del b.txt"', false],
  ['cmd /c "del /q C:\\Temp\\x.txt" ', true],
  ['Get-Process | Tee-Object -FilePath b.txt', true],
  ['Get-Process | Tee-Object b.txt', true],
  ['Get-Process | tee b.txt', true],
  ['Get-Process | Tee-Object -FilePath b.txt -Append', false],
  ['Get-Process | Tee-Object -Variable procs', false],
  ['Get-Process | Tee-Object -FilePath fresh.txt', false],
  ['Get-Process | Export-Csv -Path data.csv', true],
  ['Get-Process | Export-Csv data.csv -NoTypeInformation', true],
  ['Get-Process | Export-Csv -Path data.csv -Append', false],
  ['Get-Process | Export-Csv -Path fresh.csv', false],
  ["[System.IO.File]::Delete('b.txt')", true],
  ["[IO.File]::WriteAllText('b.txt', 'x')", true],
  ['[System.IO.Directory]::Delete("src", $true)', true],
  ['[IO.File]::WriteAllLines($path, $lines)', true],
  ["[IO.File]::Delete('/tmp/other/x')", false],
  ["[IO.File]::ReadAllText('b.txt')", false],
  ["[System.IO.File]::Exists('b.txt')", false],
  ["Start-Process pwsh -ArgumentList '-c','Remove-Item src'", true],
  ['Start-Process -FilePath cmd -ArgumentList "/c del b.txt" -Wait', true],
  ["Start-Process bash -ArgumentList '-c', 'rm b.txt'", true],
  ['Start-Process -FilePath npm -ArgumentList test -RedirectStandardOutput b.txt', true],
  ['Set-Content -Path fresh.txt, b.txt -Value x', true],
  ["[IO.File]::Copy('in.txt', 'b.txt', $true)", true],
  ["[IO.File]::Copy('in.txt', 'fresh.txt')", false],
  ['Start-Process notepad b.txt', false],
  ["Start-Process pwsh -ArgumentList '-c','Get-ChildItem'", false],
];

describe('classifyCommand: the trial-5 misses (issue 26)', () => {
  it.each([...SHELL_OPTIONS, ...SHELL_STDIN, ...WRAPPERS, ...OUTSIDE_IN_PLACE])(
    'sh: %j may destroy work: %s',
    (command, destructive) => {
      const risk = classifyCommand(command, kindOf, { home: HOME });
      expect(risk.destructive, risk.reason).toBe(destructive);
      if (destructive) expect(risk.reason).toMatch(/\S/);
    },
  );

  it.each(POWERSHELL)('PowerShell: %j may destroy work: %s', (command, destructive) => {
    const risk = classifyCommand(command, kindOf, { shell: 'powershell', home: HOME });
    expect(risk.destructive, risk.reason).toBe(destructive);
  });

  // The shell's laws still hold for the new forms: after `ls &&`, in `( )`.
  const singleLine = [...SHELL_OPTIONS, ...WRAPPERS, ...OUTSIDE_IN_PLACE];
  it.each(singleLine)('%j means the same after `ls &&` and in ( )', (command, destructive) => {
    for (const variant of [`ls && ${command}`, `(${command})`])
      expect(classifyCommand(variant, kindOf, { home: HOME }).destructive, variant).toBe(destructive);
  });
});
