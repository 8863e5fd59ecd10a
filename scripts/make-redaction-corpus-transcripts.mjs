#!/usr/bin/env node
// Writes test/fixtures/redaction-corpus-transcripts.json, the eighth redaction corpus (issue 26): what
// coding agents actually wrote, from their published transcripts and trajectories, each item naming its
// repository, commit and file (or commit). Run against local snapshots of the repositories (the `fetch` of
// this project's tooling put them in one folder, `<owner>+<name>/repo` each; name it as the first
// argument or in CORPUS_MIRRORS).
//
//   Benign (must come out unchanged), kind `command` (a command an agent ran) or `decision` (its
//   reasoning, decision or summary text), from repositories no earlier corpus used:
//   - SWE-agent/SWE-agent: the published demonstration and test trajectories (`*.traj`): each step's
//     `thought` (decision) and `action` (command: shell commands and SWE-agent's own `open`, `edit`,
//     `find_file`, …); SWE-agent/mini-swe-agent: its test trajectories' assistant messages (the
//     THOUGHT text, and the command of its bash block);
//   - All-Hands-AI/OpenHands: the events of its published trajectories (the multi-SWE-bench example
//     output, the runtime tests' recorded trajectories, the resolver's mock output): `run` commands, and
//     the `thought`, `message`, `think` and `finish` texts; and the commit messages of commits an
//     OpenHands agent co-authored (`Co-authored-by: openhands`), subject and body lines;
//   - Aider-AI/aider: its chat history fixture (`tests/fixtures/chat-history.md`, real aider sessions) and
//     its example chat transcripts (`aider/website/examples`): the assistant's reply lines (decision), the
//     commands it ran (`> Running …`) and the lines of the shell blocks it proposed (command); and the
//     commit messages aider wrote (author `… (aider)`), subject and body lines.
//   Secrets (must be redacted): values generated at random (fixed seed) in the formats the providers
//   document (FORMATS: GitHub, GitLab, AWS, Google, Slack, Stripe secret and restricted keys and webhook
//   secrets, OpenAI, Anthropic, npm, PyPI, Twilio, SendGrid, database URLs with a password, PEM and
//   OpenSSH private keys, JWTs, and passwords a person chose), each written into the shape of one benign
//   text of this corpus (SHAPES: a command's `NAME=value`, a `curl` command given an Authorization
//   header, a URL given userinfo, a decision text's code span), the benign text named in its source.
//   Publishable keys are no secrets: Stripe's `pk_live_`/`pk_test_` keys are written into the same shapes
//   as benign texts of their own family (`publishable-key`), counted apart from what agents wrote.
//   Firebase web configs' `apiKey` is public too, but has the Google API key's format: only a Firebase
//   config around it tells them apart, and no agent text here holds one, so none is generated.
//
// Rules fixed before the detector ran on any item:
//   - benign texts of 12 to 600 characters (a multi-line command up to 1,500), deduplicated, none an
//     earlier corpus holds; a decision text is one line (a paragraph) of a thought or reply, longer ones
//     cut at sentence ends into pieces of up to 600 characters; a reply's lines in code fences are code,
//     not decisions, and are left out (a shell fence's lines are commands);
//   - two strata per family, `cue` (CUE, as in the fourth corpus) and `plain`; at most LIMITS of each per
//     family, chosen by a salted sha256 of the text; no benign text is dropped for looking like a secret;
//   - each secret is generated once per format and shape from the seeded generator; its shape is chosen
//     by the sha256 of the secret among the shapes its format fits, and its benign text by the sha256 of
//     the secret among that shape's candidates;
//   - a generated value that is a placeholder by the sixth corpus's rule is generated again (never one).
// The split into tuning and held-out parts is by sha256(text): first hex digit 0-7 tuning, 8-f held out.
import {
  ALNUM,
  B64,
  B64URL,
  commitMessageLines,
  DIGITS,
  HEX,
  LOWER,
  seededRandom,
  sha,
  startCorpus,
  UPPER,
  writeCorpus,
} from './redaction-corpus-common.mjs';

// Texts and secrets of the earlier corpora: none is used again.
const { repo, earlier, benign, collector } = startCorpus('redaction-corpus-transcripts.json');

// ── Benign ────────────────────────────────────────────────────────────────────────────────────────────
const LIMITS = {
  'sweagent-thought': { cue: 2000, plain: 2000 },
  'sweagent-action': { cue: 2000, plain: 2000 },
  'openhands-thought': { cue: 2000, plain: 2000 },
  'openhands-command': { cue: 2000, plain: 2000 },
  'openhands-commit': { cue: 350, plain: 250 },
  'aider-reply': { cue: 900, plain: 600 },
  'aider-command': { cue: 2000, plain: 2000 },
  'aider-commit': { cue: 600, plain: 400 },
};
const found = collector(LIMITS);

/** A decision text's pieces: its lines, a line over 600 characters cut at sentence ends. */
function decisionPieces(text) {
  const pieces = [];
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (!line) continue;
    if (line.length <= 600) {
      pieces.push(line);
      continue;
    }
    let piece = '';
    for (const sentence of line.split(/(?<=[.!?])\s+(?=[A-Z`"'(])/)) {
      if (piece && piece.length + sentence.length + 1 > 600) {
        pieces.push(piece);
        piece = '';
      }
      piece = piece ? `${piece} ${sentence}` : sentence;
    }
    if (piece) pieces.push(piece);
  }
  return pieces;
}
const pushDecision = (family, text, source) => {
  for (const piece of decisionPieces(text)) found.push(family, 'decision', piece, source, 600);
};
const pushCommand = (family, text, source) => {
  const command = text.replace(/^\s*\n|\s+$/g, '');
  found.push(family, 'command', command, source, command.includes('\n') ? 1500 : 600);
};

// SWE-agent: each step's thought and action; mini-swe-agent: THOUGHT text and its one bash block.
const swe = repo('SWE-agent/SWE-agent');
for (const [file, text] of swe.read(swe.files().filter((file) => file.endsWith('.traj')))) {
  const traj = JSON.parse(text);
  const steps = traj.trajectory?.length
    ? traj.trajectory.map((step) => ({ thought: step.thought, action: step.action }))
    : (traj.history ?? [])
        .filter((message) => message.role === 'assistant')
        .map((message) => ({ thought: message.thought ?? message.content, action: message.action }));
  steps.forEach((step, index) => {
    const source = `${swe.source(file)} step ${index + 1}`;
    if (typeof step.thought === 'string') pushDecision('sweagent-thought', step.thought, source);
    if (typeof step.action === 'string' && step.action.trim())
      pushCommand('sweagent-action', step.action, source);
  });
}
const mini = repo('SWE-agent/mini-swe-agent');
for (const [file, text] of mini.read(mini.files().filter((file) => file.endsWith('.traj.json')))) {
  const traj = JSON.parse(text);
  const messages = Array.isArray(traj) ? traj : (traj.messages ?? []);
  messages.forEach((message, index) => {
    if (message.role !== 'assistant' || typeof message.content !== 'string') return;
    const source = `${mini.source(file)} message ${index + 1}`;
    const fence = /```[\w-]*\n([\s\S]*?)\n```/.exec(message.content);
    pushDecision(
      'sweagent-thought',
      message.content.replace(/```[\w-]*\n[\s\S]*?\n```/g, '').replace(/^THOUGHT:\s*/m, ''),
      source,
    );
    if (fence) pushCommand('sweagent-action', fence[1], source);
  });
}

// OpenHands: the events of its published trajectories, and commits an OpenHands agent co-authored.
const oh = repo('All-Hands-AI/OpenHands');
const ohFiles = oh
  .files()
  .filter(
    (file) =>
      file === 'evaluation/benchmarks/multi_swe_bench/examples/output.jsonl' ||
      file === 'tests/unit/resolver/mock_output/output.jsonl' ||
      /^tests\/runtime\/trajs\/[^/]+\.json$/.test(file),
  );
function openHandsEvents(value, visit) {
  if (Array.isArray(value)) for (const item of value) openHandsEvents(item, visit);
  else if (value && typeof value === 'object') {
    if (typeof value.action === 'string') visit(value);
    for (const [key, item] of Object.entries(value))
      if (key === 'history' || Array.isArray(item)) openHandsEvents(item, visit);
  }
}
for (const [file, text] of oh.read(ohFiles)) {
  const records = file.endsWith('.jsonl')
    ? text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [JSON.parse(text)];
  records.forEach((record, recordIndex) => {
    let index = 0;
    openHandsEvents(record, (event) => {
      index++;
      if (event.source === 'user' || event.source === 'environment') return;
      const args = event.args ?? {};
      const source = `${oh.source(file)} record ${recordIndex + 1} event ${index}`;
      if (event.action === 'run' && typeof args.command === 'string' && args.command.trim())
        pushCommand('openhands-command', args.command, source);
      for (const field of ['thought', 'final_thought'])
        if (typeof args[field] === 'string') pushDecision('openhands-thought', args[field], source);
      if (event.action === 'message' && event.source === 'agent' && typeof args.content === 'string')
        pushDecision('openhands-thought', args.content, source);
      const reply = event.tool_call_metadata?.model_response?.choices?.[0]?.message?.content;
      if (typeof reply === 'string') pushDecision('openhands-thought', reply, source);
    });
  });
}
const TRAILER = /^[\w-]+(?:-[\w-]+)*:\s/;
const commitLines = (r, family, logArgs) => {
  for (const [line, source] of commitMessageLines(r, logArgs))
    if (!TRAILER.test(line)) found.push(family, 'decision', line, source, 600);
};
commitLines(oh, 'openhands-commit', ['-n', '20000', '-i', '--grep=^Co-authored-by: openhands']);

// aider: the replies and commands of its chat history and example transcripts, and the commits it wrote.
const aider = repo('Aider-AI/aider');
const SHELL_FENCE = /^(?:bash|sh|shell|console|zsh)$/;
const aiderFiles = aider
  .files()
  .filter(
    (file) => file === 'tests/fixtures/chat-history.md' || /^aider\/website\/examples\/.+\.md$/.test(file),
  );
for (const [file, text] of aider.read(aiderFiles)) {
  const source = aider.source(file);
  const isTranscript = file.endsWith('chat-history.md') ? () => true : null;
  let inTranscript = isTranscript !== null;
  let inReply = false;
  let fence = null;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\s+$/, '');
    const where = `${source} line ${i + 1}`;
    if (!isTranscript) {
      if (/<div class="chat-transcript"/.test(line)) inTranscript = true;
      else if (/^<\/div>/.test(line)) inTranscript = false;
    }
    if (!inTranscript) continue;
    const opening = /^\s*(```+|~~~+)\s*([\w-]*)/.exec(line);
    if (opening) {
      fence = fence === null ? opening[2].toLowerCase() : null;
      continue;
    }
    if (fence !== null) {
      if (inReply && SHELL_FENCE.test(fence) && line.trim()) pushCommand('aider-command', line.trim(), where);
      continue;
    }
    if (/^#### /.test(line) || /^# aider chat started/.test(line)) {
      inReply = /^#### /.test(line);
      continue;
    }
    const running = /^> Running (.+)$/.exec(line);
    if (running) {
      pushCommand('aider-command', running[1], where);
      continue;
    }
    if (/^>/.test(line)) continue;
    // A reply's prose: not a file name alone (the line before a SEARCH/REPLACE block's fence).
    if (inReply && line.trim() && !/^\S+$/.test(line.trim())) pushDecision('aider-reply', line, where);
  }
}
commitLines(aider, 'aider-commit', ['-n', '20000', '--author=(aider)']);
found.flush();

// ── Secrets ───────────────────────────────────────────────────────────────────────────────────────────
const { random, pick, between } = seededRandom(20261208);
const b64url = (text) => Buffer.from(text).toString('base64url');
const WORDS = [
  'harbor',
  'maple',
  'orbit',
  'velvet',
  'copper',
  'lantern',
  'summit',
  'willow',
  'falcon',
  'river',
];
/** A password a person chose: a capitalized word, a symbol, digits, a word, in some order. */
const chosenPassword = () => {
  const word = WORDS[between(0, WORDS.length - 1)];
  const other = WORDS[between(0, WORDS.length - 1)];
  const parts = [
    word[0].toUpperCase() + word.slice(1),
    pick('!#%&*+-.?@^_~', 1),
    pick(DIGITS, between(2, 4)),
    other.slice(0, between(3, other.length)),
  ];
  return random() < 0.5 ? parts.join('') : [parts[2], parts[0], parts[3], parts[1]].join('');
};
const host = () =>
  `${pick(LOWER, between(4, 8))}.${pick(['internal', 'svc.cluster.local', 'example-corp.net'], 1)}`;

/**
 * The formats, as the providers document them: prefix, length and alphabet. `slot` says which shapes a
 * value fits: `token` (a bearer token or an env value), `password` (a value a name must give away),
 * `url` (a whole URL), `multiline` (a PEM or OpenSSH block).
 */
const FORMATS = {
  'GitHub personal access token (classic)': ['token', 'GITHUB_TOKEN', () => `ghp_${pick(ALNUM, 36)}`],
  'GitHub fine-grained token': [
    'token',
    'GH_TOKEN',
    () => `github_pat_${pick(`${UPPER}${DIGITS}`, 22)}_${pick(ALNUM, 59)}`,
  ],
  'GitHub OAuth token': ['token', 'GITHUB_OAUTH_TOKEN', () => `gho_${pick(ALNUM, 36)}`],
  'GitHub app installation token': ['token', 'GITHUB_TOKEN', () => `ghs_${pick(ALNUM, 36)}`],
  'GitLab personal access token': ['token', 'GITLAB_TOKEN', () => `glpat-${pick(`${ALNUM}_-`, 20)}`],
  'AWS access key id and secret': [
    'aws',
    'AWS_SECRET_ACCESS_KEY',
    () => `AKIA${pick(`${UPPER}234567`, 16)}`,
    () => pick(B64, 40),
  ],
  'AWS secret access key': ['password', 'AWS_SECRET_ACCESS_KEY', () => pick(B64, 40)],
  'Google API key': ['token', 'GOOGLE_API_KEY', () => `AIza${pick(B64URL, 35)}`],
  'Google OAuth client secret': ['token', 'GOOGLE_CLIENT_SECRET', () => `GOCSPX-${pick(B64URL, 28)}`],
  'Slack bot token': [
    'token',
    'SLACK_BOT_TOKEN',
    () => `xoxb-${pick(DIGITS, between(10, 13))}-${pick(DIGITS, between(10, 13))}-${pick(ALNUM, 24)}`,
  ],
  'Slack user token': [
    'token',
    'SLACK_TOKEN',
    () =>
      `xoxp-${pick(DIGITS, between(10, 13))}-${pick(DIGITS, between(10, 13))}-${pick(DIGITS, 13)}-${pick(HEX, 32)}`,
  ],
  'Slack webhook URL': [
    'webhook',
    'SLACK_WEBHOOK_URL',
    () =>
      `https://hooks.slack.com/services/T${pick(`${UPPER}${DIGITS}`, 10)}/B${pick(`${UPPER}${DIGITS}`, 10)}/${pick(ALNUM, 24)}`,
  ],
  'Stripe secret key': ['token', 'STRIPE_SECRET_KEY', () => `sk_live_${pick(ALNUM, between(24, 99))}`],
  'Stripe test secret key': ['token', 'STRIPE_SECRET_KEY', () => `sk_test_${pick(ALNUM, between(24, 99))}`],
  'Stripe restricted key': ['token', 'STRIPE_API_KEY', () => `rk_live_${pick(ALNUM, between(24, 99))}`],
  'Stripe webhook signing secret': ['token', 'STRIPE_WEBHOOK_SECRET', () => `whsec_${pick(ALNUM, 32)}`],
  'OpenAI project key': [
    'token',
    'OPENAI_API_KEY',
    () => `sk-proj-${pick(B64URL, 74)}T3BlbkFJ${pick(B64URL, 74)}`,
  ],
  'OpenAI legacy key': ['token', 'OPENAI_API_KEY', () => `sk-${pick(ALNUM, 20)}T3BlbkFJ${pick(ALNUM, 20)}`],
  'Anthropic API key': ['token', 'ANTHROPIC_API_KEY', () => `sk-ant-api03-${pick(B64URL, 93)}AA`],
  'npm access token': ['token', 'NPM_TOKEN', () => `npm_${pick(ALNUM, 36)}`],
  'PyPI API token': [
    'token',
    'TWINE_PASSWORD',
    () => `pypi-AgEIcHlwaS5vcmc${pick(B64URL, between(60, 120))}`,
  ],
  'Twilio API key secret': ['password', 'TWILIO_API_SECRET', () => pick(ALNUM, 32)],
  'Twilio auth token': ['password', 'TWILIO_AUTH_TOKEN', () => pick(HEX, 32)],
  'SendGrid API key': ['token', 'SENDGRID_API_KEY', () => `SG.${pick(B64URL, 22)}.${pick(B64URL, 43)}`],
  'PostgreSQL URL with a password': [
    'url',
    'DATABASE_URL',
    () => `postgres://app:${chosenPassword()}@${host()}:5432/app`,
  ],
  'MySQL URL with a password': [
    'url',
    'DATABASE_URL',
    () => `mysql://root:${chosenPassword()}@${host()}:3306/shop`,
  ],
  'MongoDB URL with a password': [
    'url',
    'MONGODB_URI',
    () => `mongodb+srv://admin:${pick(ALNUM, 16)}@cluster0.${pick(LOWER, 5)}.mongodb.net/prod`,
  ],
  'Redis URL with a password': ['url', 'REDIS_URL', () => `redis://:${pick(ALNUM, 24)}@${host()}:6379/0`],
  'RSA private key (PEM)': [
    'multiline',
    'PRIVATE_KEY',
    () =>
      `-----BEGIN RSA PRIVATE KEY-----\nMIIEow${pick(B64, 58)}\n${Array.from({ length: 6 }, () => pick(B64, 64)).join('\n')}\n-----END RSA PRIVATE KEY-----`,
  ],
  'OpenSSH private key': [
    'multiline',
    'SSH_PRIVATE_KEY',
    () =>
      `-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA${pick(B64, 46)}\n${Array.from({ length: 4 }, () => pick(B64, 70)).join('\n')}\n-----END OPENSSH PRIVATE KEY-----`,
  ],
  JWT: [
    'token',
    'AUTH_TOKEN',
    () =>
      `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url(`{"sub":"${pick(DIGITS, 8)}","name":"${pick(LOWER, 6)}","iat":${between(1600000000, 1800000000)}}`)}.${pick(B64URL, 43)}`,
  ],
  'password a person chose': ['password', 'DB_PASSWORD', chosenPassword],
};
/** Public by design: written into the same shapes, benign. */
const PUBLISHABLE = {
  'Stripe publishable key': [
    'token',
    'STRIPE_PUBLISHABLE_KEY',
    () => `pk_live_${pick(ALNUM, between(24, 99))}`,
  ],
  'Stripe test publishable key': [
    'token',
    'NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY',
    () => `pk_test_${pick(ALNUM, between(24, 99))}`,
  ],
};

/** A value written in a secret's place that is no secret (the sixth corpus's rule, in short). */
const isPlaceholder = (value) =>
  new Set(value).size <= 5 || /EXAMPLE|x{4,}|X{4,}|0{6,}|([A-Za-z0-9])\1{7}/.test(value);

// Shapes: a benign text of this corpus and where a value goes into it. Each is a rule over the benign
// texts; its candidates are every benign text it matches.
const one = (text) => !text.includes('\n');
const SHAPES = {
  // A command that sets a variable (`NAME=value cmd`, `export NAME=value`): the name becomes the
  // secret's and the value the secret.
  'command assignment': {
    kind: 'command',
    slots: ['token', 'password', 'url', 'webhook', 'aws'],
    match: (text) =>
      one(text) && /(?:^|[\s;&]|export\s)([A-Z][A-Z0-9_]{1,40})=("[^"]*"|'[^']*'|\S+)/.test(text),
    write: (text, name, value) =>
      text.replace(
        /(^|[\s;&]|export\s)([A-Z][A-Z0-9_]{1,40})=("[^"]*"|'[^']*'|\S+)/,
        (_m, before) => `${before}${name}=${value}`,
      ),
  },
  // A curl command: the secret sent as a bearer token in an Authorization header.
  'curl with an Authorization header': {
    kind: 'command',
    slots: ['token'],
    match: (text) => one(text) && /^curl\s/.test(text),
    write: (text, _name, value) => text.replace(/^curl\s/, `curl -H "Authorization: Bearer ${value}" `),
  },
  // A command with an http(s) URL: the password as the URL's userinfo.
  'URL with userinfo': {
    kind: 'command',
    slots: ['password'],
    match: (text) => one(text) && /https?:\/\/[\w.-]+/.test(text) && !/https?:\/\/[^\s/]*@/.test(text),
    write: (text, _name, value) =>
      text.replace(/(https?:\/\/)([\w.-]+)/, (_m, scheme, at) => `${scheme}deploy:${value}@${at}`),
  },
  // A curl command to a URL: a webhook URL in its place.
  'curl to a URL': {
    kind: 'command',
    slots: ['webhook'],
    match: (text) => one(text) && /^curl\s.*https?:\/\/\S+/.test(text),
    write: (text, _name, value) => text.replace(/https?:\/\/[^\s"']+/, value),
  },
  // A command that writes a file from a heredoc: the key block as what is written.
  heredoc: {
    kind: 'command',
    slots: ['multiline'],
    match: (text) => /<<-?\s*(['"]?)(\w+)\1[^\n]*\n[\s\S]*?\n\s*\2\s*(?:\n|$)/.test(text),
    write: (text, _name, value) =>
      text.replace(
        /(<<-?\s*(['"]?)(\w+)\2[^\n]*\n)[\s\S]*?(\n\s*\3\s*(?:\n|$))/,
        (_m, open, _q, _w, close) => `${open}${value}${close}`,
      ),
  },
  // A decision text with a code span: the span replaced by the secret, bare (formats that say what they
  // are) or set to the name an agent gives it.
  'decision code span': {
    kind: 'decision',
    slots: ['token', 'url', 'webhook', 'multiline', 'aws'],
    match: (text) => /`[^`\s]{2,60}`/.test(text),
    write: (text, _name, value) => text.replace(/`[^`\s]{2,60}`/, `\`${value}\``),
  },
  'decision code span, named': {
    kind: 'decision',
    slots: ['token', 'password', 'url', 'webhook', 'aws'],
    match: (text) => /`[^`\s]{2,60}`/.test(text),
    write: (text, name, value) => text.replace(/`[^`\s]{2,60}`/, `\`${name}=${value}\``),
  },
};
const candidates = Object.fromEntries(
  Object.entries(SHAPES).map(([shape, spec]) => [
    shape,
    benign
      .filter((item) => item.kind === spec.kind && spec.match(item.text))
      .sort((a, b) => sha(a.text).localeCompare(sha(b.text))),
  ]),
);
const byHash = (key, list) => list[Number.parseInt(sha(key).slice(0, 8), 16) % list.length];

/**
 * What must not be left of a generated value: of a URL with a password, the password (the host, user
 * and database name are no secret); of a webhook URL, its path after `/services/`; else all of it.
 * (Fixed after the first measurement: the whole URL was the secret, so a redacted password still
 * counted as a leak through the URL's scheme and host.)
 */
function secretOf(slot, value) {
  if (slot === 'url') return /^[a-z+]+:\/\/[^:/@]*:([^@]+)@/.exec(value)?.[1] ?? value;
  if (slot === 'webhook') return value.split('/services/')[1] ?? value;
  return value;
}

const positives = [];
const publishable = [];
const PER_FORMAT = 14;
function write(format, [slot, name, ...generators], into) {
  const shapes = Object.keys(SHAPES).filter(
    (shape) => SHAPES[shape].slots.includes(slot) && candidates[shape].length,
  );
  for (let n = 0; n < PER_FORMAT; n++) {
    let values;
    do values = generators.map((generate) => generate());
    while (values.some(isPlaceholder));
    const generated = values.at(-1);
    const shape = byHash(`shape\0${generated}`, shapes);
    const item = byHash(`text\0${generated}`, candidates[shape]);
    const secret = secretOf(slot, generated);
    // An AWS key id and its secret: the id as the name's value in the shape, then the secret beside it.
    const value = slot === 'aws' ? `${values[0]} AWS_SECRET_ACCESS_KEY=${values[1]}` : generated;
    const written = SHAPES[shape].write(item.text, slot === 'aws' ? 'AWS_ACCESS_KEY_ID' : name, value);
    if (written === item.text || earlier.has(written)) continue;
    into.push({
      text: written,
      secret,
      format,
      kind: SHAPES[shape].kind,
      shape,
      source: `${item.source} (shape of that ${item.kind}; generated value)`,
    });
  }
}
for (const [format, spec] of Object.entries(FORMATS)) write(format, spec, positives);
for (const [format, spec] of Object.entries(PUBLISHABLE)) write(format, spec, publishable);
for (const item of publishable)
  benign.push({
    text: item.text,
    source: item.source,
    kind: item.kind,
    family: 'publishable-key',
    stratum: 'cue',
    format: item.format,
  });

writeCorpus(
  'redaction-corpus-transcripts.json',
  "Eighth redaction corpus (issue 26): what coding agents wrote, from published transcripts and trajectories: SWE-agent's and mini-swe-agent's trajectories (thoughts and actions), OpenHands' published trajectories (commands, thoughts, messages) and commits an OpenHands agent co-authored, aider's chat history and example transcripts (replies, commands) and the commits aider wrote. Secrets: values generated (fixed seed) in the providers' documented formats, written into the shapes of those benign texts; Stripe publishable keys (pk_) written the same way as benign. No source an earlier corpus used; see scripts/make-redaction-corpus-transcripts.mjs for the rules, all fixed before the detector ran. Split by the first hex digit of sha256(text): 0-7 tuning, 8-f held out.",
  benign,
  positives,
);
