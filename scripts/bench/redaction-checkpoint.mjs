// The bench's 64 KB checkpoint for redaction: every field of a checkpoint filled to its limit with the
// redaction corpus's texts, one line in ten a secret (the rest benign, most of them about secrets).
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The checkpoint's fields, in order, from the corpus in `project` and the limits of its build. */
export function redactionCheckpointFields(project, LIMITS) {
  const corpus = JSON.parse(readFileSync(path.join(project, 'test/fixtures/redaction-corpus.json'), 'utf8'));
  let line = 0;
  const nextLine = () => {
    line++;
    return line % 10 === 9
      ? corpus.positives[(line * 7) % corpus.positives.length].text
      : corpus.benign[line % corpus.benign.length].text;
  };
  const fill = (maxChars) => {
    let text = nextLine();
    while (text.length < maxChars) text += ` ${nextLine()}`;
    return text.slice(0, maxChars);
  };
  const shape = [
    [1, LIMITS.goalChars],
    [LIMITS.tasks, LIMITS.taskDescriptionChars],
    [1, LIMITS.summaryChars],
    [LIMITS.nextSteps, LIMITS.nextStepChars],
    [LIMITS.decisions, LIMITS.decisionChars],
    [LIMITS.recentCommands, 600],
    [LIMITS.recentCommands, 200],
    [LIMITS.modifiedFiles, LIMITS.noteChars],
  ];
  const fields = [];
  let bytes = 0;
  for (const [count, maxChars] of shape)
    for (let i = 0; i < count && bytes < 64 * 1024; i++) {
      const text = fill(maxChars);
      fields.push(text);
      bytes += Buffer.byteLength(text);
    }
  return { fields, bytes };
}
