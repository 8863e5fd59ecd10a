#!/usr/bin/env node
// Whether two builds of the detector redact every text of every redaction corpus the same, byte for byte,
// with the same findings (spans and rules): for a change meant to alter speed only. Compares outputs;
// never prints a held-out text. The bench's 64 KB checkpoint too, as one document. Usage: node scripts/redaction-same-output.mjs <old project> [new project]
// (each a directory with dist/ built; the new one defaults to this project).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { redactionCheckpointFields } from './bench/redaction-checkpoint.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [oldRoot, newRoot = path.join(here, '..')] = process.argv.slice(2);
if (!oldRoot) {
  console.error('usage: node scripts/redaction-same-output.mjs <old project> [new project]');
  process.exit(2);
}
const load = async (root) => ({
  redact: await import(path.resolve(root, 'dist/core/redact.js')),
  detect: await import(path.resolve(root, 'dist/core/secrets/detect.js')),
});
const [before, after] = [await load(oldRoot), await load(newRoot)];

const fixtures = path.join(here, '../test/fixtures');
const texts = [];
for (const file of readdirSync(fixtures).filter((name) => /^redaction-corpus.*\.json$/.test(name))) {
  const corpus = JSON.parse(readFileSync(path.join(fixtures, file), 'utf8'));
  const items = [...(corpus.benign ?? []), ...(corpus.positives ?? [])].map((item) => item.text);
  for (const [at, text] of items.entries()) texts.push({ where: `${file} #${at}`, text });
  // Many texts in one, as a checkpoint's long fields hold them: rules then meet each other's matches.
  for (let at = 0; at < items.length; at += 25)
    for (const glue of ['\n', ' '])
      texts.push({ where: `${file} #${at}..${at + 24} joined`, text: items.slice(at, at + 25).join(glue) });
}

// One document of every text of a corpus (a Redactor judges each value once in it).
const documents = [];
for (const file of readdirSync(fixtures).filter((name) => /^redaction-corpus.*\.json$/.test(name))) {
  const corpus = JSON.parse(readFileSync(path.join(fixtures, file), 'utf8'));
  documents.push({
    where: `${file} as one document`,
    texts: [...(corpus.benign ?? []), ...(corpus.positives ?? [])].map((item) => item.text),
  });
}

// The bench's checkpoint (scripts/bench/redaction-checkpoint.mjs), with the new build's limits.
const { LIMITS } = await import(path.resolve(newRoot, 'dist/core/limits.js'));
documents.push({
  where: "the bench's 64 KB checkpoint",
  texts: redactionCheckpointFields(path.join(here, '..'), LIMITS).fields,
});

let differ = 0;
for (const { where, texts: fields } of documents) {
  const redact = (module) => {
    const redactor = new module.redact.Redactor();
    return JSON.stringify([fields.map((field) => redactor.text(field)), redactor.count]);
  };
  if (redact(before) !== redact(after)) {
    differ++;
    console.log(`differs: ${where}`);
  }
}
for (const { where, text } of texts) {
  const a = JSON.stringify([before.redact.redactText(text), before.detect.findSecrets(text)]);
  const b = JSON.stringify([after.redact.redactText(text), after.detect.findSecrets(text)]);
  if (a !== b) {
    differ++;
    if (differ <= 20) console.log(`differs: ${where}`);
  }
}
console.log(`${texts.length} texts and ${documents.length} documents, ${differ} with a different output`);
process.exit(differ === 0 ? 0 : 1);
