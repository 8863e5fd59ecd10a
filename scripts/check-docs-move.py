#!/usr/bin/env python3
"""One-off check for issue 27: every paragraph, list item, table row and code line of the old README
(given as a file) appears in README.md or docs/ (exactly, after normalising whitespace and link targets),
or else is reported with the share of its words found in the closest new block, for review by hand.
Usage: git show 5462fc4:README.md > /tmp/old.md && python3 scripts/check-docs-move.py /tmp/old.md [--all]"""
import glob, re, sys, os

def norm(text):
    text = re.sub(r'\]\([^)]*\)', ']', text)          # link targets change when text moves
    text = re.sub(r'^\s*(?:[-*]|\d+\.)\s+', '', text)  # list markers
    text = re.sub(r'^#+\s+', '', text)                 # heading levels change
    return re.sub(r'\s+', ' ', text).strip()

def units(text):
    out, block, fence = [], [], False
    def flush():
        if block: out.append(' '.join(block)); block.clear()
    for line in text.split('\n'):
        if line.startswith('```'):
            flush(); fence = not fence; continue
        if fence:
            if line.strip(): out.append(line)
            continue
        if not line.strip() or line.startswith('#') or line.lstrip().startswith('|'):
            flush()
            if line.strip() and not re.match(r'^\s*\|[-| :]+\|\s*$', line): out.append(line)
            continue
        if re.match(r'^\s*(?:[-*]|\d+\.)\s', line): flush()
        block.append(line.strip())
    flush()
    return [u for u in (norm(u) for u in out) if u]

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
old = units(open(sys.argv[1]).read())
new_files = [os.path.join(root, 'README.md')] + sorted(glob.glob(os.path.join(root, 'docs/**/*.md'), recursive=True))
new_units = [u for f in new_files for u in units(open(f).read())]
haystack = '\n'.join(new_units)
words = lambda s: re.findall(r'[\w.%~/-]+', s.lower())
missing = []
for u in old:
    if u in haystack: continue
    w = words(u)
    best = max(new_units, key=lambda n: len(set(w) & set(words(n))))
    share = len(set(w) & set(words(best))) / max(1, len(set(w)))
    missing.append((share, u, best))
print(f'{len(old)} blocks in the old README; {len(old) - len(missing)} found verbatim; {len(missing)} edited or missing')
for share, u, best in sorted(missing):
    if share < 1 or '--all' in sys.argv:
        print(f'\n[{share:.0%}] OLD: {u[:400]}\n      NEW: {best[:400]}')
