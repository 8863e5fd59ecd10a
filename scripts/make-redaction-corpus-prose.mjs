#!/usr/bin/env node
// Builds test/fixtures/redaction-corpus-prose.json (issue 26, audit item 9): passwords written in prose
// and chat, and prose that speaks of passwords without one. Every shape and value names where it comes
// from: published test cases of tools that look for passwords in messages, and sentences of public docs.
// The benign docs lines are read from a local mirror of keepassxreboot/keepassxc at the commit below
// (`node scripts/make-redaction-corpus-prose.mjs <git dir>`); without one the committed corpus stays.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const KEEPASSXC = { repo: 'keepassxreboot/keepassxc', commit: '95bae8377c88f46fda565e09fee25d7ba684fe9e' };
const WATCHMAN = 'PaperMtn watchman rule passwords.yaml (test_cases)';
const TELEGRAM =
  'telegram downloader test_password_extraction (pass_yes/pass_no) and its 03_Passwords test plan';
const PROSELINT = 'amperser/proselint security.password (examples_fail and its patterns)';
const CHAT_MEMORY = 'a chat memory store test (append_session_turn)';

/** Shapes of a password in prose or chat, each as its source writes it; {v} is the value. */
const SHAPES = [
  ['The password is {v}', WATCHMAN],
  ['Password: {v}', WATCHMAN],
  ['password: {v}', 'a Telegram webhook test ("text": "password: WeakPassword123")'],
  ['password : {v}', TELEGRAM],
  ['dummytext Password = {v}', TELEGRAM],
  ["'emoji' pass: {v}", TELEGRAM],
  ['The password is {v}.', PROSELINT],
  ['My password is {v}.', PROSELINT],
  ["the password's {v}", PROSELINT],
  ["my password's {v}", PROSELINT],
  ['password {v}', PROSELINT],
  ['my password is {v} and api_key is sk-abcdefghijklmnop', CHAT_MEMORY],
  ['remember my password is {v}', 'an assistant NLP test ("remember my password is 12345")'],
];

/**
 * Values: the sources' own (a chosen password, a word and a number, a plain word, a placeholder), and
 * values drawn with a fixed seed in the shapes people choose (words, digits and a symbol; random runs).
 * A plain word or number, or a placeholder, is counted apart: the detector keeps those on purpose.
 */
const SOURCE_VALUES = [
  ['WeakPassword123', 'secret', WATCHMAN],
  ['my234strong09ipass++', 'secret', TELEGRAM],
  ['hunter2', 'secret', CHAT_MEMORY],
  ['qwerty', 'plain', TELEGRAM],
  ['alahomora', 'plain', TELEGRAM],
  ['123456', 'plain', PROSELINT],
  ['secret123', 'plain', 'a demo phrase list ("my password is secret123")'],
  ['PASSWORD', 'plain', PROSELINT],
];

let seed = 26;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = (chars, n) =>
  Array.from({ length: n }, () => chars[Math.floor(random() * chars.length)]).join('');
const WORDS = [
  'Summer',
  'Winter',
  'Dragon',
  'Monkey',
  'Sunshine',
  'Shadow',
  'Falcon',
  'Orange',
  'Tiger',
  'Rocket',
];
const generated = [];
for (let i = 0; i < 30; i++) {
  const kind = i % 3;
  generated.push(
    kind === 0
      ? pick('ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789', 12)
      : kind === 1
        ? `${WORDS[Math.floor(random() * WORDS.length)]}${pick('0123456789', 2 + (i % 3))}${pick('!@#$%&*', 1)}`
        : `${pick('abcdefghijkmnopqrstuvwxyz', 3)}${pick('0123456789', 3)}${pick('!#%+-_', 1)}${pick('ABCDEFGHJKLMNPQRSTUVWXYZ', 3)}`,
  );
}

const secrets = [];
for (const [shape, shapeSource] of SHAPES) {
  const values = [
    ...SOURCE_VALUES,
    ...generated.map((value) => [
      value,
      'secret',
      'drawn with a fixed seed in chosen passwords\u2019 shapes',
    ]),
  ];
  for (const [value, kind, valueSource] of values)
    secrets.push({
      text: shape.replace('{v}', value),
      secret: value,
      kind,
      source: `${shapeSource}; value: ${valueSource}`,
    });
}

/** Prose about passwords with none in it: the sources' own negative cases and sentences found in public text. */
const BENIGN_QUOTED = [
  ['You need a strong password', WATCHMAN],
  ['Smoke phrase with nothing flagged.', PROSELINT],
  ['P@$$word: the_strong_password', TELEGRAM],
  ['My password is rejected.', 'a support-ticket service test'],
  ['My password is more that 6 chars', 'a jQuery validation message'],
  [
    "I'm not sure it's *exactly* spaced to the width of the characters but my password is significantly longer than 30 characters and the gui reflects within 1 character",
    'an issue comment',
  ],
  ['You must also wait until you have the root password if you are using Rackspace,', 'a deployment README'],
  [
    'go on with the default options, except for the root password that should always be changed.',
    'an install guide',
  ],
  ['Reset the root password for the managed warehouse.', 'an API client docstring'],
  [
    'This command prompts you to enter the root password you set during the secure installation process.',
    'a MySQL tutorial',
  ],
  ['It is automatically set when the root password is entered.', 'a Vagrant README'],
  ['Then it will ask for the root password we created during installion.', 'a blog post'],
  ['Type in the new password for the admin and root users', 'an appliance setup guide'],
  [
    'We **strongly** recommended changing the default password for the admin user immediately.',
    'an operator README',
  ],
  ['Sets the password for the admin user account.', 'a scripts README'],
  ['The following curl command changes the password for the admin user.', 'a BMC guide'],
];

const benign = BENIGN_QUOTED.map(([text, source]) => ({ text, source }));
const gitDir = process.argv[2];
if (gitDir) {
  const files = execFileSync('git', ['-C', gitDir, 'ls-tree', '-r', '--name-only', KEEPASSXC.commit], {
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => /^(docs\/.*\.(adoc|md)|README\.md|CHANGELOG\.md)$/.test(file));
  const seen = new Set();
  for (const file of files) {
    const text = execFileSync('git', ['-C', gitDir, 'show', `${KEEPASSXC.commit}:${file}`], {
      encoding: 'utf8',
    });
    for (const raw of text.split('\n')) {
      const line = raw
        .trim()
        .replace(/^[*+. -]+/, '')
        .trim();
      if (line.length < 12 || line.length > 400 || !/pass|\bpw\b|\bpwd\b/i.test(line) || seen.has(line))
        continue;
      seen.add(line);
      benign.push({ text: line, source: `${KEEPASSXC.repo}@${KEEPASSXC.commit.slice(0, 12)}:${file}` });
    }
  }
} else throw new Error('usage: make-redaction-corpus-prose.mjs <git dir of keepassxreboot/keepassxc>');

/** The fixed split of every corpus here: the first hex digit of sha256(text), 0–7 tuning, 8–f held out. */
const part = (text) =>
  Number.parseInt(createHash('sha256').update(text).digest('hex')[0], 16) < 8 ? 'tuning' : 'held-out';
const corpus = {
  about:
    'Passwords in prose and chat, and prose about passwords without one (issue 26, audit item 9). Split by the first hex digit of sha256(text): 0-7 tuning, 8-f held out.',
  secrets: secrets.map((item) => ({ ...item, part: part(item.text) })),
  benign: benign.map((item) => ({ ...item, part: part(item.text) })),
};
writeFileSync(
  path.join(root, 'test', 'fixtures', 'redaction-corpus-prose.json'),
  `${JSON.stringify(corpus, null, 1)}\n`,
);
process.stdout.write(`${corpus.secrets.length} secrets, ${corpus.benign.length} benign texts\n`);
