#!/usr/bin/env node
// Writes test/fixtures/redaction-corpus.json: secrets of many formats in the places they turn up
// (commands, prose, JSON, env files, headers, URLs), and benign look-alikes that must survive.
// Deterministic: the same corpus on every run. The tokens are random and belong to nobody.
import { writeFileSync } from 'node:fs';

let state = 20261130;
const random = () => {
  state = (Math.imul(state ^ (state >>> 15), 2246822507) + 0x9e3779b9) >>> 0;
  return state / 4294967296;
};
const pick = (chars, n) =>
  Array.from({ length: n }, () => chars[Math.floor(random() * chars.length)]).join('');
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_NUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const HEX = '0123456789abcdef';
const B64URL = `${ALNUM}-_`;
const B64 = `${ALNUM}+/`;

// Bare tokens: recognisable by their shape alone, wherever they appear.
const bare = {
  'GitHub classic PAT': () => `ghp_${pick(ALNUM, 36)}`,
  'GitHub OAuth token': () => `gho_${pick(ALNUM, 36)}`,
  'GitHub user-to-server token': () => `ghu_${pick(ALNUM, 36)}`,
  'GitHub server-to-server token': () => `ghs_${pick(ALNUM, 36)}`,
  'GitHub refresh token': () => `ghr_${pick(ALNUM, 36)}`,
  'GitHub fine-grained PAT': () => `github_pat_${pick(ALNUM, 22)}_${pick(ALNUM, 59)}`,
  'GitLab PAT': () => `glpat-${pick(B64URL, 20)}`,
  'GitLab deploy token': () => `gldt-${pick(B64URL, 20)}`,
  'GitLab runner token': () => `glrt-${pick(B64URL, 20)}`,
  'AWS access key id': () => `AKIA${pick(UPPER_NUM, 16)}`,
  'AWS temporary access key id': () => `ASIA${pick(UPPER_NUM, 16)}`,
  'Google API key': () => `AIza${pick(B64URL, 35)}`,
  'Google OAuth client secret': () => `GOCSPX-${pick(B64URL, 28)}`,
  'Google OAuth access token': () => `ya29.${pick(B64URL, 60)}`,
  'Azure AD client secret': () => `${pick(ALNUM, 3)}8Q~${pick(`${ALNUM}_~.-`, 34)}`,
  'Slack bot token': () => `xoxb-${pick('0123456789', 12)}-${pick('0123456789', 13)}-${pick(ALNUM, 24)}`,
  'Slack user token': () =>
    `xoxp-${pick('0123456789', 12)}-${pick('0123456789', 12)}-${pick('0123456789', 13)}-${pick(HEX, 32)}`,
  'Slack app token': () => `xapp-1-A${pick(UPPER_NUM, 10)}-${pick('0123456789', 13)}-${pick(HEX, 64)}`,
  'Slack webhook': () =>
    `https://hooks.slack.com/services/T${pick(UPPER_NUM, 8)}/B${pick(UPPER_NUM, 10)}/${pick(ALNUM, 24)}`,
  'Stripe live secret key': () => `sk_live_${pick(ALNUM, 24)}`,
  'Stripe restricted key': () => `rk_live_${pick(ALNUM, 24)}`,
  'Stripe test secret key': () => `sk_test_${pick(ALNUM, 24)}`,
  'OpenAI project key': () => `sk-proj-${pick(B64URL, 48)}`,
  'OpenAI legacy key': () => `sk-${pick(ALNUM, 48)}`,
  'Anthropic API key': () => `sk-ant-api03-${pick(B64URL, 93)}AA`,
  'Anthropic admin key': () => `sk-ant-admin01-${pick(B64URL, 93)}AA`,
  'Twilio API key': () => `SK${pick(HEX, 32)}`,
  'SendGrid API key': () => `SG.${pick(B64URL, 22)}.${pick(B64URL, 43)}`,
  'npm token': () => `npm_${pick(ALNUM, 36)}`,
  'PyPI token': () => `pypi-AgEIcHlwaS5vcmc${pick(B64URL, 60)}`,
  'Hugging Face token': () => `hf_${pick(ALNUM, 34)}`,
  'Discord bot token': () => `M${pick(ALNUM, 23)}.${pick(B64URL, 6)}.${pick(B64URL, 27)}`,
  'Discord webhook': () => `https://discord.com/api/webhooks/${pick('0123456789', 18)}/${pick(B64URL, 68)}`,
  'Telegram bot token': () => `${pick('0123456789', 9)}:AA${pick(B64URL, 33)}`,
  'Shopify access token': () => `shpat_${pick(HEX, 32)}`,
  'Shopify shared secret': () => `shpss_${pick(HEX, 32)}`,
  'DigitalOcean PAT': () => `dop_v1_${pick(HEX, 64)}`,
  'DigitalOcean OAuth token': () => `doo_v1_${pick(HEX, 64)}`,
  'Mailgun API key': () => `key-${pick(HEX, 32)}`,
  'Mailchimp API key': () => `${pick(HEX, 32)}-us${1 + Math.floor(random() * 20)}`,
  'Square access token': () => `sq0atp-${pick(B64URL, 22)}`,
  'Atlassian API token': () => `ATATT3xFfGF0${pick(B64URL, 180)}=${pick(HEX, 8).toUpperCase()}`,
  'Linear API key': () => `lin_api_${pick(ALNUM, 40)}`,
  'Doppler token': () => `dp.pt.${pick(ALNUM, 43)}`,
  'Postman API key': () => `PMAK-${pick(HEX, 24)}-${pick(HEX, 34)}`,
  'New Relic user key': () => `NRAK-${pick(UPPER_NUM, 27)}`,
  'Grafana service account token': () => `glsa_${pick(ALNUM, 32)}_${pick(HEX, 8)}`,
  'Sentry user token': () => `sntryu_${pick(HEX, 64)}`,
  'Databricks token': () => `dapi${pick(HEX, 32)}`,
  'Pulumi token': () => `pul-${pick(HEX, 40)}`,
  'Terraform Cloud token': () => `${pick(ALNUM, 14)}.atlasv1.${pick(B64URL, 67)}`,
  'age secret key': () => `AGE-SECRET-KEY-1${pick('QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L', 58)}`,
  'JSON Web Token': () => `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ${pick(B64URL, 40)}.${pick(B64URL, 43)}`,
};

// Secrets that only their name gives away: recognised in assignments, headers and JSON.
const named = {
  'AWS secret access key': ['AWS_SECRET_ACCESS_KEY', () => pick(B64, 40)],
  'Twilio auth token': ['TWILIO_AUTH_TOKEN', () => pick(HEX, 32)],
  'Heroku API key': [
    'HEROKU_API_KEY',
    () => `${pick(HEX, 8)}-${pick(HEX, 4)}-${pick(HEX, 4)}-${pick(HEX, 4)}-${pick(HEX, 12)}`,
  ],
  'Datadog API key': ['DD_API_KEY', () => pick(HEX, 32)],
  'Datadog application key': ['DD_APP_KEY', () => pick(HEX, 40)],
  'Cloudflare API token': ['CLOUDFLARE_API_TOKEN', () => pick(B64URL, 40)],
  'Azure storage key': ['AZURE_STORAGE_KEY', () => `${pick(B64, 86)}==`],
  'database password': ['DB_PASSWORD', () => `${pick(ALNUM, 10)}!${pick('0123456789', 3)}`],
  'generic client secret': ['OAUTH_CLIENT_SECRET', () => pick(ALNUM, 32)],
  'generic session token': ['SESSION_TOKEN', () => pick(B64URL, 48)],
};

const positives = [];
const add = (format, context, text, secret) => positives.push({ format, context, text, secret });

// For webhook URLs the secret is the last path segment; the rest of the URL is public.
const secretOf = (value) => (value.startsWith('https://') ? value.slice(value.lastIndexOf('/') + 1) : value);
for (const [format, make] of Object.entries(bare)) {
  const t = () => make();
  let s = t();
  add(format, 'command', `export SOME_VALUE=${s} && ./deploy.sh`, secretOf(s));
  s = t();
  add(format, 'prose', `I pasted ${s} into the config by mistake, please rotate it.`, secretOf(s));
  s = t();
  add(format, 'json', `{"name": "svc", "credential": "${s}", "region": "eu"}`, secretOf(s));
  s = t();
  add(format, 'env', `SERVICE_CREDENTIAL=${s}`, secretOf(s));
  s = t();
  add(format, 'header', `curl -H "X-Custom-Auth: ${s}" https://api.example.com/v1`, secretOf(s));
}
for (const [format, [name, make]] of Object.entries(named)) {
  let s = make();
  add(format, 'command', `${name}=${s} npm run start`, s);
  s = make();
  add(format, 'env', `export ${name}="${s}"`, s);
  s = make();
  add(format, 'json', `{"${name.toLowerCase()}": "${s}"}`, s);
  s = make();
  add(format, 'yaml', `  ${name.toLowerCase()}: ${s}`, s);
  s = make();
  add(format, 'header', `${name.replaceAll('_', '-')}: ${s}`, s);
}
// Structural forms of the original tool's list.
for (let i = 0; i < 5; i++) {
  const pass = `${pick(ALNUM, 12)}${i}`;
  add('URL credentials', 'url', `psql postgres://app_user:${pass}@db.internal:5432/app`, pass);
  const bearer = pick(B64URL, 40);
  add('Bearer header', 'header', `curl -H "Authorization: Bearer ${bearer}" https://api.example.com`, bearer);
  const basic = pick(B64, 28);
  add('Basic header', 'header', `Authorization: Basic ${basic}`, basic);
  const flag = `${pick(ALNUM, 14)}${i}`;
  add('password flag', 'command', `mysql -u root --password=${flag} app`, flag);
  const tokenFlag = pick(ALNUM, 30);
  add('token flag', 'command', `vault login --token ${tokenFlag}`, tokenFlag);
  const query = pick(ALNUM, 32);
  add(
    'token in a URL query',
    'url',
    `GET https://api.example.com/items?page=2&access_token=${query}&sort=asc`,
    query,
  );
}
const pemBody = () => Array.from({ length: 6 }, () => pick(B64, 64)).join('\n');
for (const kind of [
  'RSA PRIVATE KEY',
  'OPENSSH PRIVATE KEY',
  'EC PRIVATE KEY',
  'PRIVATE KEY',
  'ENCRYPTED PRIVATE KEY',
]) {
  const body = pemBody();
  add(
    `PEM ${kind}`,
    'file',
    `key.pem:\n-----BEGIN ${kind}-----\n${body}\n-----END ${kind}-----\n`,
    body.split('\n')[2],
  );
  const body2 = pemBody();
  add(
    `PEM ${kind}`,
    'json',
    `{"private_key": "-----BEGIN ${kind}-----\\n${body2.replaceAll('\n', '\\n')}\\n-----END ${kind}-----\\n"}`,
    body2.split('\n')[1],
  );
}

const sha = () => pick(HEX, 40);
const uuid = () => `${pick(HEX, 8)}-${pick(HEX, 4)}-4${pick(HEX, 3)}-a${pick(HEX, 3)}-${pick(HEX, 12)}`;
const benign = [
  ...Array.from({ length: 10 }, () => `git checkout ${sha()}`),
  ...Array.from({ length: 5 }, () => `Merge commit ${sha()} into main`),
  ...Array.from({ length: 5 }, () => `git rebase -i ${pick(HEX, 7)}`),
  ...Array.from({ length: 8 }, () => `request id ${uuid()} failed`),
  ...Array.from({ length: 5 }, () => `"integrity": "sha512-${pick(B64, 86)}=="`),
  ...Array.from({ length: 5 }, () => `docker pull node@sha256:${pick(HEX, 64)}`),
  ...Array.from({ length: 3 }, () => `"resolved": "https://registry.npmjs.org/zod/-/zod-4.6.7.tgz#${sha()}"`),
  'src/auth/session.ts',
  '/home/me/code/my-app/src/components/TokenInput.tsx',
  'npm i @modelcontextprotocol/server zod commander',
  'import { createHash } from "node:crypto";',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell placeholder, on purpose
  'GITHUB_TOKEN=${GITHUB_TOKEN} gh pr list',
  'API_KEY=$API_KEY npm start',
  'OPENAI_API_KEY=<your-key> python app.py',
  'PASSWORD=xxxx',
  'export AWS_SECRET_ACCESS_KEY=********',
  'SECRET_KEY=changeme',
  'password: string;',
  'token?: string | undefined',
  'const token = await getToken();',
  'if (!secret) throw new Error("missing secret")',
  'The primary_key column is id.',
  'sort_key=name',
  'max_tokens=4096 temperature=0.2',
  'INPUT_TOKENS=1200 OUTPUT_TOKENS=300',
  'CSRF_TOKEN_HEADER=X-CSRF-Token',
  'Set the password in the settings page, then restart.',
  'The token expires after an hour; refresh it with the refresh token flow.',
  'Rotate the secret every 90 days.',
  'Use a key-value store for the cache.',
  'desk-top risk-free task-runner ask-me',
  'sk-learn is not a package name, scikit-learn is',
  'A ghp_ prefix marks a GitHub token.',
  'AKIA is the prefix of AWS access key ids.',
  'eyJhbGciOi is how a JWT header starts',
  'arn:aws:iam::123456789012:role/deploy',
  'https://github.com/tenlean/claude-checkpoint-mcp/issues/42',
  'https://example.com:8080/path?q=1&page=2',
  'postgres://localhost:5432/app',
  'redis://cache:6379/0',
  'v2.4.0-beta.3+build.17',
  '2026-10-08T02:23:55.477Z',
  'fe80::1ff:fe23:4567:890a',
  'color: #1d4a7a; background: #f0f4f8;',
  'base64 of hello is aGVsbG8=',
  'npm test -- auth',
  'git log --oneline -n 20',
  'curl -H "Accept: application/json" https://api.example.com',
  'curl -H "Authorization: Bearer $TOKEN" https://api.example.com',
  'Authorization: Bearer <token>',
  'kubectl get secrets -n prod',
  'ssh-keygen -t ed25519 -C "me@example.com"',
  'cat ~/.ssh/id_ed25519.pub',
  '-----BEGIN PUBLIC KEY-----',
  '-----BEGIN CERTIFICATE-----',
  'The function returns a Promise<string>.',
  'Exit code 1: 2 failing in session.spec.ts',
  'chmod 600 .claude-checkpoint',
  'export NODE_ENV=production',
  'export PATH="$HOME/.local/bin:$PATH"',
  'DEBUG=app:* node server.js',
  'PORT=3000 HOST=0.0.0.0 npm run dev',
  'pip install -r requirements.txt',
  'cargo build --release',
  'go test ./... -run TestTokenize',
  'SELECT id, name FROM users WHERE email = $1',
  'The API key field is optional in the form.',
  'Tokens are counted per request.',
  'lorem ipsum dolor sit amet, consectetur adipiscing elit',
  'ghp is short for GitHub personal',
  'sha1 of the blob is computed over "blob <size>\\0<content>"',
  'xoxb tokens are for bots',
  '"version": "0.1.0"',
  '"exitCode": 0',
  'use iron-session, not express-session',
  'README.md LICENSE package-lock.json',
  '.claude-checkpoint*',
  'npm_config_cache=/tmp/npm',
  'key: value',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template placeholder, on purpose
  'secret: ${SECRET}',
  'token: {{ .Values.token }}',
  'password: "%PASSWORD%"',
];

const corpus = {
  note: 'Generated by scripts/make-redaction-corpus.mjs. Every token is random and belongs to nobody.',
  formats: [...new Set(positives.map((p) => p.format))].length,
  positives,
  benign,
};
writeFileSync(
  new URL('../test/fixtures/redaction-corpus.json', import.meta.url),
  `${JSON.stringify(corpus, null, 2)}\n`,
);
process.stdout.write(`${positives.length} positives in ${corpus.formats} formats, ${benign.length} benign\n`);
