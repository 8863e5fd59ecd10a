import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyCommand, type PathKind } from '../../src/core/command-risk.js';

// Command lines as agents and people type them in real shells (Claude Code's Bash tool transcripts, git's
// docs, coreutils' man pages), each with what it does to the working tree. Written before the classifier.

/** A project as the hook sees it: paths relative to the command's folder. */
const PROJECT: Record<string, PathKind> = {
  'README.md': 'file',
  'notes.txt': 'file',
  'out.log': 'file',
  src: 'directory',
  'src/a.ts': 'file',
  build: 'directory',
  'build/app.js': 'file',
  pkg: 'directory',
  'pkg/index.ts': 'file',
  'pkg/README.md': 'file',
  docs: 'directory',
  'docs/README.md': 'file',
  '.env': 'file',
};
const kindOf = (path: string): PathKind => PROJECT[path.replace(/^\.\//, '')] ?? 'missing';

/** [command line, may it destroy work?] */
const TABLE: [string, boolean][] = [
  // plainly harmless
  ['ls -la', false],
  ['cat README.md', false],
  ['git status', false],
  ['git status --porcelain=v1', false],
  ['git diff HEAD~1 -- src/a.ts', false],
  ['git log --oneline -n 20', false],
  ['npm test', false],
  ['npm run build && npm test', false],
  ['grep -rn "TODO" src', false],
  ['pwd; ls src | wc -l', false],
  // look-alikes: the word appears, the command does not run it
  ['echo rm -rf /', false],
  ['grep rm x', false],
  ['grep -r "git reset --hard" docs', false],
  ['echo "rm -rf src" > /dev/null', false],
  ["git commit -m 'rm -rf the old build script'", false],
  ['cat > /dev/null', false],
  ['printf "%s\\n" "git clean -fdx"', false],
  ['git stash list', false],
  ['git stash show -p stash@{0}', false],
  ['git checkout -b feature/login', false],
  ['git checkout main', false],
  ['git restore --staged src/a.ts', false],
  ['git reset HEAD~1 --soft', false],
  ['git clean -n -d', false],
  ['echo done >> out.log', false],
  ['npm test 2>&1 | tail -20', false],
  ['ls 2>/dev/null', false],
  ['echo hi > new-file.txt', false],
  ['cp src/a.ts src/b.ts', false],
  ['mv notes.txt notes-old.txt', false],
  ['cp -n src/a.ts README.md', false],
  ['sed -n 1,20p src/a.ts', false],
  ["perl -ne 'print if /x/' src/a.ts", false],
  ['find . -name "*.ts" -print', false],
  ['rsync -av src/ /tmp/backup/', false],
  ["git log --format='%H' | xargs -n1 echo", false],
  ["bash -c 'ls -la && git status'", false],
  ['tee -a out.log < README.md', false],
  ['command -v rm', false],
  // destructive
  ['rm -rf src', true],
  ['rm notes.txt', true],
  ['rmdir build', true],
  ['unlink notes.txt', true],
  ['shred -u .env', true],
  ['git checkout -- .', true],
  ['git checkout .', true],
  ['git checkout -- src/a.ts', true],
  ['git restore src/a.ts', true],
  ['git restore --source=HEAD~2 --worktree -- .', true],
  ['git reset --hard', true],
  ['git reset --hard origin/main', true],
  ['git reset --merge ORIG_HEAD', true],
  ['git clean -fdx', true],
  ['git clean -xdf', true],
  ['git clean -f -d', true],
  ['git stash', true],
  ['git stash push -m wip', true],
  ['git stash -u', true],
  ['git stash drop', true],
  ['git stash clear', true],
  ['git switch -f main', true],
  ['git switch --discard-changes main', true],
  ['find . -name "*.orig" -delete', true],
  ['find build -type f -exec rm {} \\;', true],
  ["sed -i 's/foo/bar/g' src/a.ts", true],
  ["sed -i.bak -e 's/a/b/' README.md", true],
  ["perl -pi -e 's/foo/bar/' src/a.ts", true],
  ["perl -i -pe 's/x/y/' README.md", true],
  ['truncate -s 0 out.log', true],
  ['dd if=/dev/zero of=notes.txt bs=1k count=1', true],
  ['rsync -a --delete src/ build/', true],
  ['echo hi > README.md', true],
  ['echo hi >| README.md', true],
  ['npm test 1> out.log', true],
  ['mv notes.txt README.md', true],
  ['cp src/a.ts README.md', true],
  ['mv pkg/README.md docs', true],
  // tricky forms
  ['cd src && rm a.ts', true],
  ['npm test && git reset --hard HEAD', true],
  ['npm test || git checkout -- .', true],
  ['make; rm -rf build', true],
  ['git status | cat; git clean -fd', true],
  ['sleep 1 & rm -rf build', true],
  ['(cd pkg && rm -rf node_modules)', true],
  ["bash -c 'rm -rf build'", true],
  ['sh -c "git checkout -- ."', true],
  ['git -C pkg checkout -- .', true],
  ['git -C pkg status', false],
  ['FOO=1 BAR=2 rm -rf build', true],
  ['sudo rm -rf /var/tmp/cache', true],
  ['env NODE_ENV=test rm -f out.log', true],
  ['command rm notes.txt', true],
  ['find . -name "*.tmp" | xargs rm -f', true],
  ["find . -name '*.tmp' -print0 | xargs -0 -I{} rm {}", true],
  ['"rm" -rf build', true],
  ['\\rm -rf build', true],
  ['/bin/rm -rf build', true],
  ['echo $(rm -rf build)', true],
  ['git --no-pager -c color.ui=false reset --hard', true],
  ["git log --oneline | grep -v 'reset --hard'", false],
  ['cat <<EOF > /dev/null\nrm -rf src\nEOF', false],
  ['cat > README.md <<EOF\nnew text\nEOF', true],
  ['ls # rm -rf src', false],
  // Claude Code's own commit form: a here-document inside $( ), with an apostrophe in the body
  ["git commit -m \"$(cat <<'EOF'\nFix the user's rm -rf bug\nEOF\n)\"", false],
  ['if [ -f x ]; then rm x; fi', true],
  ["for f in *.ts; do sed -i 's/a/b/' $f; done", true],
];

/** Held out: never looked at while tuning the classifier; its accuracy is reported, not asserted per line. */
const HELD_OUT: [string, boolean][] = [
  ['git clean -dffx', true],
  ['git checkout HEAD -- README.md', true],
  ['xargs -a files.txt rm', true],
  ['timeout 10 rm -rf build', true],
  ["find src -name '*.js' -exec sed -i 's/a/b/' {} +", true],
  ['cd pkg; git stash', true],
  ["zsh -c 'git reset --hard'", true],
  ['cp -r src build', false],
  ['echo x 2> README.md', true],
  ['git show HEAD:src/a.ts', false],
  ['rg "rm -rf" -n', false],
  ['git stash apply', false],
  ['git branch -a', false],
  ['ls -la > listing.txt', false],
  ["awk '{print $1}' out.log | sort | uniq -c", false],
  ['npx vitest run test/a.test.ts 2>&1 | tee run.log', false],
];

describe('classifyCommand', () => {
  it.each(TABLE)('%j may destroy work: %s', (command, destructive) => {
    const risk = classifyCommand(command, kindOf);
    expect(risk.destructive, risk.reason).toBe(destructive);
    if (destructive) expect(risk.reason).toMatch(/\S/);
  });

  it('takes a target it cannot check for one that exists: mv, cp and > may overwrite', () => {
    expect(classifyCommand('mv a b').destructive).toBe(true);
    expect(classifyCommand('echo x > y').destructive).toBe(true);
    expect(classifyCommand('echo x >> y').destructive).toBe(false);
    expect(classifyCommand('ls').destructive).toBe(false);
  });

  it('says what it found, naming the command', () => {
    expect(classifyCommand('npm test && git reset --hard').reason).toMatch(/git reset --hard/);
    expect(classifyCommand('rm -rf src').reason).toMatch(/rm/);
  });

  it('reads an unterminated quote or substitution as far as it goes, never throwing', () => {
    expect(classifyCommand("echo 'unterminated").destructive).toBe(false);
    expect(classifyCommand('rm -rf "build').destructive).toBe(true);
    expect(classifyCommand('echo $(ls').destructive).toBe(false);
    expect(classifyCommand('').destructive).toBe(false);
  });

  it('held-out table: at least 80% right (reported, see the test output)', () => {
    const wrong = HELD_OUT.filter(
      ([command, destructive]) => classifyCommand(command, kindOf).destructive !== destructive,
    );
    const accuracy = (HELD_OUT.length - wrong.length) / HELD_OUT.length;
    console.log(
      `held-out accuracy: ${HELD_OUT.length - wrong.length}/${HELD_OUT.length}; wrong: ${JSON.stringify(wrong)}`,
    );
    expect(accuracy).toBeGreaterThanOrEqual(0.8);
  });

  // Laws of the shell, checked on every line of the table: running a line after another command, inside
  // `bash -c '…'` or in a subshell does not change what it does to the tree.
  const singleLine = TABLE.filter(([command]) => !command.includes('\n'));
  it.each(singleLine)('%j means the same after `ls &&`, in bash -c and in ( )', (command, destructive) => {
    const quoted = `'${command.replaceAll("'", "'\\''")}'`;
    for (const variant of [`ls && ${command}`, `bash -c ${quoted}`, `(${command})`])
      expect(classifyCommand(variant, kindOf).destructive, variant).toBe(destructive);
  });

  it('never throws, whatever the line', () => {
    const shellish = fc.string({
      unit: fc.constantFrom(...'ab rm-f>|&;()\'"`$<{}\\\n#=*'.split('')),
      maxLength: 60,
    });
    fc.assert(
      fc.property(fc.oneof(fc.string(), shellish), (line) => {
        expect(typeof classifyCommand(line, kindOf).destructive).toBe('boolean');
      }),
      { numRuns: 2000 },
    );
  });

  it('single-quoted text is data: echo of any quoted text destroys nothing', () => {
    fc.assert(
      fc.property(
        fc.string().filter((text) => !text.includes("'")),
        (text) => {
          expect(classifyCommand(`echo '${text}'`, kindOf).destructive).toBe(false);
        },
      ),
    );
  });
});

// Issue 26 (trial 4): commands the gate missed, PowerShell's, and false alarms on paths outside the
// project. The project is /home/me/proj (its paths as PROJECT), the home folder /home/me.
const HOME = '/home/me';
const ROOT = '/home/me/proj';
const projectKindOf = (path: string): PathKind => {
  if (path === '.') return 'directory';
  if (!path.startsWith('/')) return kindOf(path);
  if (path === ROOT || path.startsWith(`${ROOT}/`)) return kindOf(path.slice(ROOT.length + 1) || '.');
  // A folder that holds the project is no more outside than the project.
  return ROOT.startsWith(`${path.replace(/\/+$/, '')}/`) || path === '/' ? 'directory' : 'outside';
};

/** [command line, may it destroy work?], run by a POSIX shell. */
const TRIAL4_SH: [string, boolean][] = [
  ['git checkout-index -f -a', true],
  ['git checkout-index --force -- src/a.ts', true],
  ['git checkout-index -a', false],
  ['git read-tree -u --reset HEAD', true],
  ['git read-tree -m -u HEAD', true],
  ['git read-tree HEAD', false],
  ['git mv -f notes.txt README.md', true],
  ['git mv notes.txt README.md', false],
  ['git mv -f notes.txt fresh.txt', false],
  ['ln -sf src/a.ts README.md', true],
  ['ln -f notes.txt README.md', true],
  ['ln -sf /etc/README.md', true],
  ['ln -s src/a.ts link.ts', false],
  ['ln -sf src/a.ts link.ts', false],
  ['ln -s src/a.ts README.md', false],
  ['rsync -a src/ ./', true],
  ['rsync -a src/ build/', true],
  ['rsync -a src/ backup/', false],
  ['rsync -av src/ /tmp/backup/', false],
  ['rsync -a src/ host:/srv/app/', false],
  ['rsync -an src/ ./', false],
  ['rsync -a --ignore-existing src/ build/', false],
  ['tar -xf a.tar', true],
  ['tar xzf a.tgz', true],
  ['tar -xzf a.tgz -C /tmp/x', false],
  ['tar --extract --file=a.tar', true],
  ['tar -czf a.tgz src', false],
  ['tar -tf a.tar', false],
  ['unzip -o a.zip', true],
  ['unzip -qo a.zip -d pkg', true],
  ['unzip a.zip', false],
  ['unzip -o a.zip -d /tmp/x', false],
  ['install -m 644 src/a.ts README.md', true],
  ['install -d build/x', false],
  ['install -m 755 build/app.js /usr/local/bin/app', false],
  ['install -m 644 src/a.ts fresh.ts', false],
  ['sort -o notes.txt notes.txt', true],
  ['sort -onotes.txt notes.txt', true],
  ['sort --output=notes.txt notes.txt', true],
  ['sort -o sorted.txt notes.txt', false],
  ['sort notes.txt', false],
  ['curl -o README.md https://example.com/readme', true],
  ['curl -sSL -o page.html https://example.com', false],
  ['wget -O README.md https://example.com/readme', true],
  ["pwsh -c 'Remove-Item -Recurse src'", true],
  ['powershell -Command "Remove-Item src"', true],
  ['pwsh -NoProfile -Command Get-ChildItem', false],
  ['pwsh -File build.ps1', false],
  ['pwsh -EncodedCommand UgBlAG0AbwB2AGUALQBJAHQAZQBtACAAcwByAGMA', true],
  // targets outside the project: nothing a snapshot of it could bring back
  ['rm /tmp/tmpfile', false],
  ['rm -rf $HOME/whatever', false],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's own ${HOME}, not a template
  ['rm -rf ${HOME}/whatever', false],
  ['rm -rf ~/.cache/z', false],
  ['rm -f /tmp/*.log', false],
  ['rm -f /tmp/build-$ID.log', false],
  ['cd /tmp && rm -rf x', false],
  ['find /tmp/cache -name "*.o" -delete', false],
  ['git -C /tmp/other reset --hard', false],
  ['echo x > /tmp/log', false],
  ['truncate -s 0 /tmp/x', false],
  ['cp src/a.ts /tmp/a.ts', false],
  // ... but any target that may be inside keeps the snapshot
  ['rm -rf ~', true],
  ['rm -rf $HOME', true],
  ['rm -rf /home', true],
  ['rm -rf /', true],
  ['rm -rf /home/me/proj/src', true],
  ['rm -rf ~/proj/build', true],
  ['rm -rf ../x', true],
  ['rm -rf $DIR/x', true],
  ['rm -rf /home/*/proj', true],
  ['rm /tmp/x notes.txt', true],
  ['rm -rf build', true],
  ['cd .. && rm -rf proj', true],
  ['find . -delete', true],
  ['find /tmp src -delete', true],
  // a quoted `~` is a folder named `~` in the project, and a quoted `$HOME` no variable at all
  ['rm -rf "~/.cache/z"', true],
  ["rm -rf '~'/x", true],
  ['rm -rf \\~/x', true],
  ["rm -rf '$HOME/whatever'", true],
  ['echo x > "~/log"', true],
];

/** [command line, may it destroy work?], run by PowerShell (Copilot CLI's powershell tool). */
const TRIAL4_PWSH: [string, boolean][] = [
  ['Remove-Item -Recurse -Force src', true],
  ['Remove-Item -Path src\\a.ts', true],
  ['Remove-Item -LiteralPath "notes.txt","out.log"', true],
  ['rm src/a.ts', true],
  ['del README.md', true],
  ['ri -r build', true],
  ['Remove-Item /tmp/x -Force', false],
  ['Remove-Item ~/.cache/z -Recurse', false],
  ['Remove-Item src -Recurse -WhatIf', false],
  ['Get-ChildItem *.log | Remove-Item', true],
  ['Get-ChildItem src | ForEach-Object { Remove-Item $_.FullName }', true],
  ['cd src; Remove-Item a.ts', true],
  ["Invoke-Expression 'Remove-Item src'", true],
  ['Move-Item notes.txt README.md -Force', true],
  ['Move-Item -Path notes.txt -Destination fresh.txt', false],
  ['Move-Item -Path notes.txt -Destination docs', false],
  ['Move-Item pkg\\README.md docs', true],
  ['Copy-Item src\\a.ts README.md', true],
  ['Copy-Item src\\a.ts src\\b.ts', false],
  ['Set-Content README.md "x"', true],
  ['Set-Content -Path new.txt -Value x', false],
  ['sc -Path notes.txt -Value x', true],
  ['"x" | Out-File notes.txt', true],
  ['"x" | Out-File -FilePath notes.txt -Append', false],
  ['"x" | Out-File -FilePath fresh.txt', false],
  ['Clear-Content out.log', true],
  ['New-Item -ItemType File -Force README.md', true],
  ['New-Item -ItemType Directory -Force src', false],
  ['New-Item -ItemType File fresh.txt', false],
  ['echo hi > README.md', true],
  ['Get-Process > procs.txt', false],
  ['npm test 2>&1 > $null', false],
  ['echo hi >> README.md', false],
  ['git reset --hard', true],
  ['git.exe checkout -- .', true],
  ['git status; git log -n 5', false],
  ["bash -c 'rm -rf build'", true],
  ['Get-ChildItem -Recurse src; Get-Content README.md', false],
  ['Write-Host "rm -rf src"', false],
  ["Write-Output 'Remove-Item src'", false],
  ['# Remove-Item src', false],
  ['npm run build', false],
];

describe('classifyCommand: the trial-4 gaps (issue 26)', () => {
  it.each(TRIAL4_SH)('sh: %j may destroy work: %s', (command, destructive) => {
    const risk = classifyCommand(command, projectKindOf, { home: HOME });
    expect(risk.destructive, risk.reason).toBe(destructive);
  });

  it.each(TRIAL4_PWSH)('PowerShell: %j may destroy work: %s', (command, destructive) => {
    const risk = classifyCommand(command, projectKindOf, { shell: 'powershell', home: HOME });
    expect(risk.destructive, risk.reason).toBe(destructive);
    if (destructive) expect(risk.reason).toMatch(/\S/);
  });

  it('the harmless table is still harmless, and the destructive one destructive, in a project', () => {
    // The one line of the table whose every target lies outside the project.
    const outside = new Set(['sudo rm -rf /var/tmp/cache']);
    for (const [command, destructive] of TABLE)
      expect(classifyCommand(command, projectKindOf, { home: HOME }).destructive, command).toBe(
        destructive && !outside.has(command),
      );
  });

  it('never throws on PowerShell lines, whatever they hold', () => {
    const pwshish = fc.string({
      unit: fc.constantFrom(...'ab rm-f>|&;(){}\'"`$#<,\\\n'.split('')),
      maxLength: 60,
    });
    fc.assert(
      fc.property(fc.oneof(fc.string(), pwshish), (line) => {
        expect(typeof classifyCommand(line, projectKindOf, { shell: 'powershell' }).destructive).toBe(
          'boolean',
        );
      }),
      { numRuns: 2000 },
    );
  });
});

// Issue 26: `patch` and `git apply` rewrite files of the tree and were not seen; nor were the `--abort`
// and `--skip` of a merge, rebase, cherry-pick, revert or am, which throw away a half-done resolution
// (a rebase's, any change in the tree), nor `git merge-file`, `ed`, `ex` and `ruby -i`, which write in place.
// The project is /home/me/proj, /tmp/other lies outside it.
const PATCHES: [string, boolean][] = [
  ['patch -p1 < fix.diff', true],
  ['patch -R -p1 < fix.diff', true],
  ['patch src/a.ts fix.diff', true],
  ['patch -i fix.diff', true],
  ['patch -Np1 -i fix.diff', true],
  ['patch --input=fix.diff --strip=1', true],
  ['git diff HEAD~1 | patch -p1 -R', true],
  ['patch -d src -p0 < fix.diff', true],
  ['patch -d /tmp/other src/a.ts fix.diff', false],
  ['patch -o README.md src/a.ts fix.diff', true],
  ['patch -oREADME.md src/a.ts fix.diff', true],
  ['patch --output=notes.txt -i fix.diff', true],
  ['patch -o fresh.ts src/a.ts fix.diff', false],
  ['patch -o - src/a.ts fix.diff', false],
  ['patch --output=/tmp/other/a.ts src/a.ts fix.diff', false],
  ['patch --dry-run -p1 < fix.diff', false],
  ['patch -C -p1 < fix.diff', false],
  ['patch --check -p1 -i fix.diff', false],
  ['patch -d /tmp/other -p1 < fix.diff', false],
  ['patch /tmp/other/x.c fix.diff', false],
  ['patch -Np 1 /tmp/other/x.c fix.diff', false],
  ['cd /tmp/other && patch -p1 < fix.diff', false],
  ['patch --version', false],
  ['git apply fix.diff', true],
  ['git apply -R fix.diff', true],
  ['git apply --index fix.diff', true],
  ['git apply -3 fix.diff', true],
  ['git apply --reject --whitespace=fix fix.diff', true],
  ['git diff stash@{0} | git apply', true],
  ['git apply --stat --apply fix.diff', true],
  ['git apply --check fix.diff', false],
  ['git apply --stat fix.diff', false],
  ['git apply --numstat --summary fix.diff', false],
  ['git apply --cached fix.diff', false],
  ['git apply --cached --index fix.diff', false],
  ['git -C /tmp/other apply fix.diff', false],
  ['git merge-file src/a.ts base.ts theirs.ts', true],
  ['git merge-file -L ours -L base -L theirs src/a.ts base.ts theirs.ts', true],
  ['git merge-file -p src/a.ts base.ts theirs.ts', false],
  ['git merge-file --stdout src/a.ts base.ts theirs.ts', false],
  ['git merge-file fresh.ts base.ts theirs.ts', false],
  ['git merge-file /tmp/other/a /tmp/other/b /tmp/other/c', false],
  ['git merge --abort', true],
  ['git rebase --abort', true],
  ['git rebase --skip', true],
  ['git cherry-pick --abort', true],
  ['git cherry-pick --skip', true],
  ['git revert --abort', true],
  ['git revert --skip', true],
  ['git am --abort', true],
  ['git am --skip', true],
  // git refuses to write over local changes in each of these; the commits they move past stay in the reflog
  ['git am 0001-fix.patch', false],
  ['git am -3 < series.mbox', false],
  ['git merge main', false],
  ['git rebase main', false],
  ['git rebase --autostash origin/main', false],
  ['git pull', false],
  ['git pull --rebase origin main', false],
  ['git cherry-pick abc123', false],
  ['git revert HEAD', false],
  ['git merge --continue', false],
  ['git rebase --continue', false],
  ['git am --continue', false],
  ['git am --quit', false],
  ['git rebase --quit', false],
  ['git stash pop', false],
  ['git reset --keep HEAD~1', false],
  ['ed -s src/a.ts < edit.ed', true],
  ["ex -sc '%s/a/b/g|x' README.md", true],
  ["ex -s -c '%s/a/b/g' -c wq notes.txt", true],
  ['ed -s fresh.txt < make.ed', false],
  ['ed -s /tmp/other/x < edit.ed', false],
  ['ruby -pi -e \'gsub(/a/, "b")\' src/a.ts', true],
  ['ruby -i.bak -pe \'gsub(/a/, "b")\' README.md', true],
  ["ruby -ne 'puts $_' src/a.ts", false],
  ["ruby -e 'puts 1'", false],
  // A review's findings: an option's value taken for a file, a script's own -i, a folder's letter.
  ['git merge-file --marker-size 10 src/a.ts base.ts theirs.ts', true],
  ['patch --backup /tmp/other/x.c fix.diff', false],
  ['patch --ed /tmp/other/x.c fix.diff', false],
  ['patch -x 1 src/a.ts fix.diff', true],
  ['ruby tool.rb -i src/a.ts', false],
  ['perl tool.pl -i src/a.ts', false],
  ["ruby -X/tmp/dir -e 'puts 1'", false],
  ["perl -e 'print 1' -i src/a.ts", true],
  ["perl -I lib -pi -e 's/a/b/' src/a.ts", true],
];

describe('classifyCommand: patch, git apply and their siblings (issue 26)', () => {
  it.each(PATCHES)('%j may destroy work: %s', (command, destructive) => {
    const risk = classifyCommand(command, projectKindOf, { home: HOME });
    expect(risk.destructive, risk.reason).toBe(destructive);
    // The reason names the command that runs (the last of a pipeline).
    if (destructive) expect(risk.reason).toContain(command.split(' | ').pop()?.split(' ')[0]);
    const quoted = `'${command.replaceAll("'", "'\\''")}'`;
    for (const variant of [`ls && ${command}`, `bash -c ${quoted}`, `(${command})`])
      expect(classifyCommand(variant, projectKindOf, { home: HOME }).destructive, variant).toBe(destructive);
  });
});
