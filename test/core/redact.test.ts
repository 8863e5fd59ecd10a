import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor, redactPath, redactText } from '../../src/core/redact.js';

describe('redactText', () => {
  it.each([
    [
      'env assignment',
      'GITHUB_CLIENT_SECRET=gh_live_8f2a91 npm run dev',
      'GITHUB_CLIENT_SECRET=«redacted» npm run dev',
    ],
    ['*_KEY', 'export STRIPE_API_KEY=abc123def456', 'export STRIPE_API_KEY=«redacted»'],
    ['*_TOKEN', 'NPM_TOKEN="tok-9a8b7c" npm publish', 'NPM_TOKEN="«redacted»" npm publish'],
    ['*PASSWORD', 'DB_PASSWORD=hunter2 ./migrate', 'DB_PASSWORD=«redacted» ./migrate'],
    // Issue 26: PowerShell sets a variable of the environment as `$env:NAME = value` (Claude Code's and
    // Copilot CLI's PowerShell tools), where the `env:` before the name hid the assignment.
    [
      'PowerShell env assignment',
      '$env:API_KEY = "sk8f3Qz71LwpX2v9"; Get-ChildItem',
      '$env:API_KEY = "«redacted»"; Get-ChildItem',
    ],
    [
      'PowerShell $Env:',
      "$Env:DB_PASSWORD='hunter2'; ./migrate.ps1",
      "$Env:DB_PASSWORD='«redacted»'; ./migrate.ps1",
    ],
    ['header form', 'X-Api-Key: 5f8e2a9c1b', 'X-Api-Key: «redacted»'],
    ['JSON form', '{"api_key": "5f8e2a9c1b", "name": "x"}', '{"api_key": "«redacted»", "name": "x"}'],
    ['JSON password', '{"password":"s3cr3t!"}', '{"password":"«redacted»"}'],
    [
      'bearer header',
      'curl -H "Authorization: Bearer eyJhbGciOi.abc.def" api',
      'curl -H "Authorization: Bearer «redacted»" api',
    ],
    ['basic header', 'Authorization: Basic dXNlcjpwYXNz', 'Authorization: Basic «redacted»'],
    [
      'URL credentials',
      'psql postgres://admin:pa55word@db:5432/app',
      'psql postgres://admin:«redacted»@db:5432/app',
    ],
    ['--password flag', 'mysql --password=hunter2 -u root', 'mysql --password=«redacted» -u root'],
    ['--token flag', 'gh auth login --token abcdef123456', 'gh auth login --token «redacted»'],
    ['--api-key flag', 'tool --api-key "k-123456"', 'tool --api-key "«redacted»"'],
    ['--secret flag', 'deploy --secret=xyz987', 'deploy --secret=«redacted»'],
    ['sk- key', 'use sk-proj-Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Qw2Ur9Ik4Ol8Pm3 here', 'use «redacted» here'],
    [
      'Anthropic key',
      `sk-ant-api03-${'Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Qw2Ur9I'.repeat(2)}k4Ol8Pm3Xq7AA`,
      '«redacted»',
    ],
    ['ghp_ token', 'token ghp_Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q used', 'token «redacted» used'],
    [
      'github_pat_',
      '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',
      '«redacted»',
    ],
    ['AWS key id', 'aws key AKIAQ3EGRTZ7WKXNLP5D in config', 'aws key «redacted» in config'],
    ['Slack token', 'xoxb-482915730264-5820197346512-Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh', '«redacted»'],
    [
      'PEM private key',
      'key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\nend',
      'key:\n«redacted»\nend',
    ],
  ])('redacts %s', (_name, input, expected) => {
    const result = redactText(input);
    expect(result.text).toBe(expected);
    expect(result.count).toBeGreaterThan(0);
  });

  it.each([
    ['a git SHA', 'b2ef1b5919ee5d456ea146c9362a7abc92b1e556'],
    ['a UUID', 'ee5507c0-855e-44a5-85c1-d97b767537c9'],
    ['a path', 'src/auth/session.ts'],
    ['prose about tokens', 'The token is refreshed every hour; set max_tokens=5 for tests'],
    ['an env reference', 'API_KEY=$API_KEY npm start'],
    ['a PowerShell env reference', '$env:API_KEY = $env:OLD_API_KEY'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell placeholder, on purpose
    ['a template placeholder', 'GITHUB_TOKEN=${GITHUB_TOKEN} gh pr list'],
    ['an angle-bracket placeholder', 'OPENAI_API_KEY=<your-key>'],
    ['a masked value', 'PASSWORD=xxxx'],
    ['a type annotation', 'password: string;'],
    ['an already redacted value', 'SECRET=«redacted»'],
    ['a package name', 'npm i @modelcontextprotocol/server zod'],
    ['a URL without credentials', 'https://example.com:8080/path?q=1'],
    ["AWS's documented example key id", 'aws key AKIAIOSFODNN7EXAMPLE in config'],
    ['a placeholder token of a known shape', 'GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
  ])('leaves %s alone', (_name, input) => {
    expect(redactText(input)).toEqual({ text: input, count: 0 });
  });

  it('counts every value it replaces', () => {
    expect(redactText('A_TOKEN=one1two2three B_TOKEN=Tw0-tw0-tw0 --password thr3e!3').count).toBe(3);
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const once = redactText(text).text;
        expect(redactText(once)).toEqual({ text: once, count: 0 });
      }),
    );
  });

  it('finds a secret located through a window after characters whose lower case is longer (İ)', () => {
    // Mailchimp's key format (32 hex digits, then the data centre) is found around its `-us` literal. A
    // random key: `a1b2c3d4…` is a slot filled by hand, which the allowlist keeps.
    const key = '3f9c0b7e5d2a4816c9e07fb3a5d81e42-us21';
    expect(redactText(`İstanbul ekibi: ${'İ'.repeat(40)} mailchimp key ${key}`).text).not.toContain(key);
  });

  it.each([
    ['a named password', 'İzmir ekibi: DB_PASSWORD=Xk9mQ2vL8pZ3wR', 'Xk9mQ2vL8pZ3wR'],
    ['an AWS key id', 'İstanbul AKIAZ4XQ7W2Y3V5R6T7U', 'AKIAZ4XQ7W2Y3V5R6T7U'],
    ['a YAML password', 'İ PASSWORD: hunter2hunter2', 'hunter2hunter2'],
  ])('finds %s in capitals beside a character whose lower case is longer (İ)', (_, text, secret) => {
    // Regression: such a text was not lower-cased at all, so no capitalised keyword (PASSWORD, AKIA) was
    // found and its rules never ran.
    expect(redactText(text).text).not.toContain(secret);
  });

  it('never leaves a seeded secret behind, whatever surrounds it', () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9]{36}$/).map((body) => `ghp_${body}`);
    const prose = fc.string({ maxLength: 40 }).map((text) => text.replace(/[A-Za-z0-9_]$/, ' '));
    fc.assert(
      fc.property(prose, secret, prose, (before, token, after) => {
        const { text } = redactText(`${before} ${token} ${after}`);
        expect(text).not.toContain(token);
        expect(text).not.toContain(token.slice(4, 20));
        expect(text).toContain(REDACTED);
      }),
    );
  });
});

/**
 * What agents write every day and scanners list as not secret (issue 26), each case from its source:
 * GitHub's starter workflows, Stripe's API reference, gitleaks' rule allowlists and false-positive cases,
 * detect-secrets' heuristic filter tests. Beside each, a real secret of the same shape that must still go.
 */
describe('redactText on everyday look-alikes', () => {
  it.each([
    [
      'an auth scheme before a CI expression (starter-workflows ci/gem-push.yml)',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, on purpose
      'GEM_HOST_API_KEY: "Bearer ${{secrets.GITHUB_TOKEN}}"',
    ],
    [
      "Stripe's documented sample test key",
      'curl https://api.stripe.com/v1/charges -u sk_test_4eC39HqLyjWDarjtT1zdp7dc:',
    ],
    ['a Firebase SDK example key gitleaks allowlists', 'apiKey: "AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs"'],
    [
      'a low-entropy key of a known shape (gitleaks gcp fps)',
      'apiKey: "AIzaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"',
    ],
    [
      'a key of a known shape spelled from sequences (gitleaks anthropic fps)',
      'sk-ant-api03-abc123xyz-456def789ghij-klmnopqrstuvwx-3456yza789bcde-1234fghijklmnopby56aaaogaopaaaabc123xyzAA',
    ],
    [
      'a Jenkins credentials id (gitleaks generic fps)',
      "credentialsId: 'ff083f76-7804-4ef1-80e4-fe975bb9141b'",
    ],
    ['a member path named like a key (gitleaks generic fps)', 'KeyPair = X25519.KeyPair'],
    ['words and numbers named like a key (gitleaks generic fps)', "schemaKey = 'DOC_Vector_5_32'"],
    [
      'a value repeating its name (gitleaks generic fps)',
      'pub const X509_pubkey_st = struct_X509_pubkey_st;',
    ],
    [
      'xoxo in an image name (gitleaks slack fps)',
      'https://indieweb.org/images/3/35/2018-250-xoxo-indieweb-1.jpg',
    ],
    [
      'a Slack token slot spelled in words (gitleaks slack fps)',
      'xoxe.xoxp-1-SlackAppConfigurationAccessTokenHere',
    ],
    [
      'a fingerprinted asset name (gitleaks fps)',
      'http://assets.r7.com/assets/media_box_tv_tres_colunas/video_box.ico-7a388b69018576d24b59331fd60aab0c.png',
    ],
    ['a templated value (detect-secrets heuristics)', 'secret = {hunter2}'],
    ['an indirect reference (detect-secrets heuristics)', 'secret = request.headers["apikey"]'],
  ])('leaves %s alone', (_name, input) => {
    expect(redactText(input)).toEqual({ text: input, count: 0 });
  });

  it.each([
    [
      'a real token after an auth scheme',
      'GEM_HOST_API_KEY: "Bearer 9QeWJKY40uvSwMFLZDe1f8rESQedUStPKR0CsTy4"',
    ],
    [
      'a Stripe test key that is not the documented one',
      'curl https://api.stripe.com/v1/charges -u sk_test_gJTeKdNnFRIBXuDL7DxtpYlS:',
    ],
    ['a Google API key that is not an example', 'apiKey: "AIzaPtYgjmUhBel31iEl2hpChYgCfrL1spNxnyV"'],
    ['an AWS key id that is not the documented one', 'export AWS_ACCESS_KEY_ID=AKIAPFT7V4SEH2KVJ72C'],
    ['credentials named as such', "jobCredentials: 'ff083f76-7804-4ef1-80e4-fe975bb9141b'"],
    ['a Slack bot token', 'SLACK_BOT_TOKEN=xoxb-846563212233-0792440268599-u8iS2G8NPRVdD53X83RZJzzz'],
    [
      'a password piped into docker login',
      'echo "Qwb8DwkNhFdnXsiVpzz63FfkCzJr4i0B" | docker login ghcr.io -u ci --password-stdin',
    ],
    ['a secret named in prose', 'Set DB_PASSWORD to Xk7#pq2Lm9 before running the migration.'],
  ])('still redacts %s', (_name, input) => {
    const result = redactText(input);
    expect(result.count).toBe(1);
    expect(result.text).toContain('«redacted»');
  });
});

/**
 * The fourth corpus's tuning part (issue 26): docs' placeholders and templates, a selector, base64 of a
 * placeholder, a host's port, a public key, each from its source; and the secrets it missed.
 */
describe('redactText on docs and scanners’ rule examples', () => {
  it.each([
    ['a tldr placeholder (tldr aws-sso)', 'aws sso list-account-roles --access-token {{token}}'],
    ['an HTML-escaped placeholder (noseyparker)', '"password": "&lt;YOURPASSWROD&gt;"'],
    ['a bracketed placeholder after a user', 'curl -u neo4j:[PASSWORD] http://localhost:7474/db/data'],
    ['a user:password slot', 'curl -u <user:password> https://api.example.com/v1/items'],
    ['an author', '"author": "jdoe42@users.noreply.github.com"'],
    ['an authority', 'authority: login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47'],
    ['a placeholder in base64 (admin)', 'passwd: YWRtaW4='],
    ['a Ruby interpolation', 'meta[:headers] << "Authorization: Bearer #{@github_token}"'],
    [
      'a command substitution that goes on below (argo-cd docs)',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expression, on purpose
      'DEX_TOKEN=$(curl -sSf "https://${ARGOCD_SERVER}/api/dex/token" \\',
    ],
    [
      'a port after a host named like a secret (cert-manager docs)',
      'curl -vsS --resolve cert-manager-webhook.cert-manager.svc:10250:127.0.0.1 \\',
    ],
    [
      'an age recipient (a public key)',
      'Public key: age1helqcqsh9464r8chnwc2fzj8uv7vr5ntnsft0tn45v2xtz0hpfwq98cmsg',
    ],
    ['a selector (noseyparker)', "this.addPassword = '#add-password';"],
    ['a symbol (argo-cd docs)', 'argocd admin notifications trigger get --secret :empty'],
    ['a key vault named for its secrets (gitleaks fps)', 'keyVaultToStoreSecrets: cmp2-qat-1208358310'],
    ['text in base64 (argo-cd docs)', 'echo "ChdleGFtcGxlQGFyZ29wcm9qLmlvEgJkZXhfY29ubl9pZA" | base64 -d'],
    ['the classic example password', 'argocd app set redis -p password=abc123'],
  ])('leaves %s alone', (_name, input) => {
    expect(redactText(input)).toEqual({ text: input, count: 0 });
  });

  it.each([
    ['a Vault token shorter than today’s', 'apikey: hvs.Qm3xT7vLp2ZkR9wNc4YbH8jD1sFaE6uG'],
    ['a .netrc password', 'machine api.example.com\n  login deploy\n  password 9f3c7a1e5b2d8f4a6c0e'],
    ['a Vault unseal key', 'vault operator unseal Kq7Zp2Lm9Xv4Rt8Wn3Yc6Hb1Jd5Fs0GaE2uQ7iP4oT9y='],
    ['a DirectoryEntry password', 'new DirectoryEntry("LDAP://corp.example", "svc_ldap", "Qx7!mPz42k")'],
    ['a SonarQube login', 'mvn sonar:sonar -Dsonar.login=3f9a1c7e5b2d8f4a6c0e9b1d3f5a7c9e2b4d6f8a'],
    [
      'a Jenkins crumb',
      "curl -H 'Jenkins-Crumb:7d2f9a4c1e8b3f6a0d5c9e2b7f4a1c8d' https://ci.example/job/x/build",
    ],
    [
      'an AWS secret key beside its key id',
      "export AWS_ACCESS_KEY_ID='AKIAQ3EGRTZ7WKXNLP5D'\n'9d1e5b2d8f4a6c0e9b1d3f5a7c9e2b4d6f8a1c3e'",
    ],
    [
      'a value below a password cue (Jenkins setup)',
      'Please use the following password to proceed to installation:\n\n3c9f1a7e5b2d4f8a6c0e9b1d3f5a7c9e',
    ],
    ['an Azure DevOps PAT', `set PAT ${'Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Qw2'.repeat(2)}AZDO3eqU`],
    ['a Twitch stream key', 'stream key live_481516234_Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz'],
    ['a Tavily key', 'TAVILY_API_KEY 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'],
    [
      'a Teams webhook of the outlook.office.com form',
      'url = https://outlook.office.com/webhook/9da5da9c-4218-4c22-aed6-b5c8baebfff5@2f2b54b7-0141-4ba7-8fcd-ab7d17a60547/IncomingWebhook/1bf66ccbb8e745e791fa6e6de0cf465b/4361420b-8fde-48eb-b62a-0e34fec63f5c',
    ],
    [
      'a Salesforce access token',
      `sf token 00DB0000000TfcS!AQ4AQ${'FhRdW3rOcB7xLthrM4BTBGK1qPLkHigpN1bXD6z'.repeat(2)}`,
    ],
    ['a Mailgun key of the newer form', 'mailgun key 9f3c7a1e5b2d8f4a6c0e9b1d3f5a7c9e-2b4d6f8a-1c3e5a7b'],
    ['a Vercel token', 'VERCEL_TOKEN vca_BQuu9ChDu3n6Pfh6YQnCshpoYkWDSFKogLqmB'],
    ['a Telegram bot token one character short', 'bot 4839574813:AAFD39kkdpWt3ywyRZergyOLMaJhac61qc'],
  ])('redacts %s', (_name, input) => {
    const result = redactText(input);
    expect(result.count).toBeGreaterThanOrEqual(1);
    expect(result.text).toContain('«redacted»');
    expect(result.text).not.toMatch(/[A-Za-z0-9]{20}/);
  });
});

/**
 * The fifth corpus's tuning part (issue 26): what agents write every day, and scanners' examples. Values
 * here are made up in the shapes the tuning part showed, none copied from it.
 */
describe('redactText on what agents write every day', () => {
  it.each([
    ['a slot filled by hand (kingfisher)', 'postageapp_key=wxyz1234abcd5678efgh9012ijkl3456'],
    ['another slot filled by hand', 'HUMANITY_ACCESS_KEY=q1r2s3t4u5v6w7x8y9z0'],
    [
      'a key built from a template (a cache key)',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a workflow expression, on purpose
      'restore-keys: lint-${{ runner.os }}-go${{ env.GO }}-',
    ],
    [
      'a command that prints the password (rclone docs)',
      'export RCLONE_PASSWORD_COMMAND="pass rclone/config"',
    ],
    ['an id that looks random (rclone docs)', '"shareId": "FWxc1lasfdbEAGM5fI7B67aB5ZMPDMmQ11U"'],
    ['a folder id (rclone docs)', "root_folder_id = '0BxAe_BCDE4zkFGZpcWJGek0xbzC'"],
    [
      'a package named after key (uv docs)',
      'uv tool install keyring --with keyrings.google-artifactregistry-auth',
    ],
    [
      'names in base64, as a path (rclone docs)',
      'rclone convmv "c3Rvcmllcw==/VGhlIFF1aWNrIEJyb3duIEZveCEudHh0"',
    ],
    ['a public key’s body', 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB7nE8QzQ3V0bW9yZQ9x me@laptop'],
    ['a line of a PGP block alone', 'iF0EARECAB0WIQT79zfs6firGGBL0qyTk14C/ztU+gUCZLVKJQAKCRCTk14C/ztU'],
    ['a value after a setting that is no secret', 'sumOfExposures = 3Kof2VffNQ0QgYIhXUPJosVlCaQKm2hfp;'],
    [
      'a publishable key named as one',
      'pk_live_51HqLyjWDarjtT1zdp7dcXbH8i1vTNO4lBNQWb3X0 is a publishable key',
    ],
    [
      'a commit summary',
      'Fix the token refresh race in auth/session.go (#4821); keys are now rotated on login',
    ],
  ])('leaves %s alone', (_name, input) => {
    expect(redactText(input)).toEqual({ text: input, count: 0 });
  });

  it.each([
    [
      'a bare value in a summary',
      'Found Jq8vT2mXc9LpR4wKz7Ns3Bd6Hf1Gy5Ue in config/settings.py; revoked it.',
    ],
    ['a bare value in a note', 'Left Pz4Kq9Wm2Xv7Lc3Rt8Nb6Yd1Hs5Gf0Ja in .env.local for the tests.'],
    ['a name, then a space, then the value', 'tyntec SECRET 9f3c7a1e5b2d8f4a6c0e9b1d3f5a7c9e'],
    ['a service’s key in prose', 'The paypal key Qm3xT7vLp2ZkR9wNc4YbH8jD1sFaE6uGq showed up in the log.'],
    ['a name, a dash, a quoted value', "swell token - 'Xk9mQ2vL7pRt4WcN8bZs3Hd6'"],
    [
      'a name that was still set to a value',
      'the deploy failed because WORKSNAPS_API_KEY was still set to 3GXxGjp9Vler1tj9kEosLxxO61lN, expired',
    ],
    [
      'a value written into a credentials file',
      "echo 'Vq7Lm2Rt9vWb4Kc8Np3Ds6Fh' > ~/.config/acme/credentials",
    ],
    ['a curl user whose password is quoted', "curl --user kevin:'pRf7vG2h1L8nQkW9' -X PATCH https://api.x"],
    [
      'a curl user on the line after a continuation',
      'curl https://api.dropbox.com/oauth2/token \\\n  --user appkey:qgsnai0xokrw4j1 --data grant_type=x',
    ],
    ['an unsigned JWT', 'Left eyJhbGciOiJub25lIn0.eyJ1c2VybmFtZSI6Im1vcnR5In0. in the notes'],
    ['a Facebook app token', 'facebook 1477036645700765|wRPf2v3mt2JfMqCLK8n7oltrEmc'],
    ['a PostHog personal key', 'posthog = phx_WQV1jrBNdIiYiH_XoWIb5KqZv18v_4JQbNBVuGihaYw'],
    ['a NuGet key', 'dotnet nuget push -k oy2gdbfofub9ecpohsfdndem7nr8sui1g8le3ptnljqhlu'],
    ['a crates.io token', 'cargo login cioXk9mQ2vL7pRt4WcN8bZs3Hd6Jf1Ga5Ue0'],
    ['a Sourcegraph token in capitals', 'src login sgp_c3f6EBC6DaBA1eE2996aCbAd84Fa03Ee9DE3E3e4'],
  ])('redacts %s', (_name, input) => {
    const result = redactText(input);
    expect(result.count).toBeGreaterThanOrEqual(1);
    expect(result.text).toContain('«redacted»');
    expect(result.text).not.toMatch(/[A-Za-z0-9]{12}/);
  });

  it('judges a long value of small letters that fails at its end without backtracking for ever', () => {
    // A pattern that split a run of small letters in many ways took minutes on this one (issue 26).
    const value = `${'uryfanaextzftqnwkordjwtrascqbihyctwttsntssxgbmgtnghmaiossoiabl'.repeat(2)}-x.v6.zf`;
    expect(redactText(`trufflehog token - '${value}'`).text).toBe("trufflehog token - '«redacted»'");
  });
});

/**
 * The sixth corpus's round (issue 26): values whose own shape says nothing but whose sentence, name or
 * place does, and formats from gitleaks' and kingfisher's published rules; and what must stay.
 */
describe('redactText on values a sentence or a name gives away', () => {
  it.each([
    [
      'hex in a sentence about a leak',
      'Rotated the leaked credential 6dca6432e45d933e13650d1882bd5e69 today.',
    ],
    [
      'a UUID named a credential after it',
      'Tests pass with a6264401-e60a-48a9-941f-6446e78ec164 as the heroku credential.',
    ],
    [
      'one-case letters and digits, then the cue',
      'Found bdx13k0d9sv7j6nv97alzfmmf6iv75bx in settings.py; revoked it.',
    ],
    [
      'a value that replaced the old value',
      'It works again after I replaced the old value with wuxd6sw7ma4lv10xremyhz7ulf9owc.',
    ],
    ['a name glued to its value by a dash', 'dd_secret_key-3c0c3965368a6b10f7640dbda46abfdca981c2d3'],
    [
      'a name and its value as arguments',
      'utils.GetEnvOrDefault("api_token", "dafa7817-e246-48f3-91a7-e87653d587b8")',
    ],
    [
      'an Android string named for a key',
      '<string name="hockeyapp_key">ac4fbb5fa9ae7de11f4c8150394ac543</string>',
    ],
    [
      'a JWT cut after its claims',
      'Left eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0 in notes',
    ],
    ['an Amazon MWS token', 'amzn.mws.00a19111-8311-4311-9391-5e211cbfcd5c'],
    [
      'an Airtable personal access token',
      'patwQO10Y0ADsWJPi.512627f9a25134997c5e36bc4e5aa0c32de1f85e06fc3090c8dd271e99b98e91',
    ],
    ['a Plaid access token', 'access-production-ca25aceb-13f2-4bd8-ac3c-e0669575a94f'],
    ['a quoted value with symbols after a name', "nethunt token - 'ai$oy@v8w9-$rcawnt^87rv3-9k0t&srbc8v'"],
  ])('redacts %s', (_name, input) => {
    const result = redactText(input);
    expect(result.count).toBeGreaterThanOrEqual(1);
    expect(result.text).not.toMatch(/[A-Za-z0-9]{4}[A-Za-z0-9+/$@^&%=-]{12}/);
  });

  it.each([
    [
      'a commit named in a sentence about a token',
      'Revert the token refresh change: commit 3f2a9c8e1d0b4a6f8e7d6c5b4a39281706f5e4d3c.',
    ],
    [
      'a swarm node id in docs output',
      'Swarm initialized: current node (dxn1zf6l61qsb1josjja83ngz) is now a manager.',
    ],
    ['a secret’s id in a table', 'mem02h8n73mybpgqjf0kfi1n0   test_secret                 About an hour ago'],
    [
      'words and an id joined by dashes in a URL',
      'https://support.example.com/set-up-and-manage-access-requests-94b26e0b-2822-49d4-929a-8455698654b3',
    ],
    ['an issue number after the words', 'doc: using keyring with API key (#1119)'],
    ['a .NET public key token', 'Version=6.0.0.0, Culture=neutral, PublicKey=b77a5c561934e089'],
    ['a bcrypt hash', '"admin.password": "$2a$10$rRyBsGSHK6.uc8fntPwVIuLVHgsAhAX7TcdrqW/RADU0uh7CaChLa",'],
    ['a throwaway word password after mysql -p', 'mysql -u dbuser -D dbname -pdbpass -h maindb'],
    [
      'words between private-key markers',
      '-----BEGIN PRIVATE KEY-----this is not a private key-----END PRIVATE KEY-----',
    ],
  ])('leaves %s alone', (_name, input) => {
    expect(redactText(input)).toEqual({ text: input, count: 0 });
  });

  it('reads a long run of name characters with no sign after it in time that grows with its length', () => {
    // `token-token-…` (120 KB): names without bounds took time growing with the square (2.9 s for 60 KB).
    for (const run of ['token-'.repeat(20000), 'a-key-'.repeat(20000), 'access-'.repeat(17000)])
      expect(redactText(run).count).toBe(0);
    // Under a second when linear (on a busy 2-core machine); about 25 s before the bounds.
  }, 10_000);

  it('reads values near a cue word without backtracking on a long line full of cues and runs', () => {
    const line = `${'token secret '.repeat(400)}${'a1b2c3d4e5f6g7h8'.repeat(200)} revoked`;
    expect(redactText(line).text.length).toBeGreaterThan(0);
  });
});

describe('redactText on the release and secret-scanning tools’ texts (the seventh corpus, issue 26)', () => {
  it.each([
    ['a hash under a name that says hash', '"hashed_secret": "513e0a36963ae1e8431c041b744679ee578b7c44",'],
    [
      'a checksum named by its algorithm',
      'APPLE_CODESIGN_SHA256: 163520079cd6ad1427791c792735a6ddfcb8eca0187bbcf0cc0bebfa4a62153d',
    ],
    ['a version range under a package named like a password', '"minipass": "^7.1.2",'],
    [
      'a link under a label that names a key',
      '[rcodesign-api-key]: https://gregoryszorc.com/docs/apple-codesign/0.27.0/getting_started.html#obtaining-an-api-key',
    ],
    ['a slot set in bold for the reader', 'export RENOVATE_TOKEN="**some-token**" # GitHub, GitLab'],
    ['a blank of underscores to fill', 'GITGUARDIAN_API_KEY=__________FILL ME__________'],
    [
      'a block repeated to fill the value',
      'softlayer_api_key: abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234',
    ],
    ['an escaped shell variable', '<o2_variable_password>$$password</o2_variable_password>'],
    ['a CloudFormation reference', "<MasterUserPassword>!Ref 'MasterUserPassword'</MasterUserPassword>"],
    ['a CloudFormation import', '- CredstashKey: !ImportValue CredstashKey'],
    ['a Symfony environment reference', "Symfony_DB_Key: '%env(DB_SECRET_VALUE)%'"],
    ['a format string’s slot', 'format_password = "prefix_{}".format(dynamic_value1)'],
    [
      'a template inside an element named for a password',
      '<o6_variable_password>{{ THIS_IS_A_VERY_LONG_A_PLACEHOLDER_FOR_PASSWORD }}</o6_variable_password>',
    ],
    ['a flag after "passed to"', '- escape values passed to --unset by'],
    [
      'a word and its colon after "token is"',
      'Clearer error message when token is missing: specify the command.',
    ],
    ['a sentence under a key’s name', 'S3_ARCHIVE_ACCESS_KEY: "Get this from elsewhere"'],
    ['a CamelCase name with a number in a key attribute', '<item key="ConnectionString1">'],
    ['an element whose name only ends in key', '<monkey>Kq8Zr2Lw9Zx7Vt4Hn6Jm</monkey>'],
    ['a Dockerfile ENV naming a file', 'ENV API_KEY_FILE /run/secrets/api_key'],
  ])('leaves %s alone', (_name, input) => {
    expect(redactText(input)).toEqual({ text: input, count: 0 });
  });

  it.each([
    [
      'a value named by "in use is"',
      'Checked the vault: the figma key in use is 532145-9vhml73t-i0qt-k03k-0fae-wig9r3zqzdy2, so the README was stale.',
      '532145-9vhml73t',
    ],
    [
      'a value named by "(currently …)"',
      'Handoff: the tests need JIRA_TOKEN (currently s3cr3t-Pa55) set.',
      's3cr3t-Pa55',
    ],
    ['a Dockerfile ENV without `=`', 'ENV DRONE_TOKEN YXNkZmZmZmZm_HARDcoded', 'YXNkZmZmZmZm'],
    ['an element under a weaker name', '<license_key>Kq8Zr2Lw9Zx7Vt4Hn6Jm</license_key>', 'Kq8Zr2Lw9Zx7'],
    [
      'curl’s proxy password',
      'curl --proxy-tlspassword 9fK2mQ7xLp4Zr8Tb https://proxy.internal:3128',
      '9fK2mQ7xLp4Zr8Tb',
    ],
    [
      'curl’s proxy user and password',
      'curl -x http://proxy.internal:3128 --proxy-user admin:Q7xLp4Zr8Tb2 https://example.com',
      'Q7xLp4Zr8Tb2',
    ],
    // Siblings the new exemptions must not take: a version's shape, underscores inside, a dash first.
    [
      'a key that starts like a version',
      'X-Auth-User-Service-Key = v1.0-e26de050e02ddeaeef6de8d5ee267df5e78f68666ddd0ee76f22d26a0d20756f-eda77de60e8',
      'e26de050e02dd',
    ],
    [
      'a token with underscores inside',
      '"secret1": "HRKU-AAlQ1aVoHDujJ9QsDHdHlHO0hbzhoERRSO45ZQusSYHg_____w4_hLrAym_u",',
      'AAlQ1aVoHDuj',
    ],
    [
      'a key that starts with a dash',
      'Summary: the deploy failed because HIVEAGE_API_KEY was still set to -KEY-ABC123XYZ789abc, which had expired.',
      'ABC123XYZ789',
    ],
    [
      'a webhook URL with its secret path',
      'SLACK_WEBHOOK=https://hooks.slack.com/services/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',
      'q8Rk2Lw9Zx7Vt4Hn6Jm3Pf5s',
    ],
  ])('redacts %s', (_name, input, secretPart) => {
    expect(redactText(input).text).not.toContain(secretPart);
  });

  it('judges long values against the new exemptions in time that grows with their length', () => {
    // Each exemption reads a value once: bold markers with no end, a block that stops repeating late, a
    // version's digits, a link's segments, a format slot's braces (60 KB each); and the new rules' names.
    const inputs = [
      `password: "**${'a'.repeat(60000)}"`,
      `api_key: ${'abcd1234'.repeat(7500)}x`,
      `secret = ^${'1.'.repeat(30000)}`,
      `token: https://example.com/${'a/'.repeat(30000)}`,
      `password = "${'{'.repeat(30000)}${'a'.repeat(30000)}"`,
      // Glued cue words and element names: 1.3 s and 2.9 s before their bounds (now a few ms).
      `<${'token'.repeat(12000)}>`,
      `<${'key'.repeat(20000)}>`,
      `ENV ${'A'.repeat(60000)}`,
      'token (currently '.repeat(3500),
    ];
    for (const input of inputs) expect(redactText(input).text.length).toBeGreaterThan(0);
  }, 10_000);
});

describe('redaction rules from the eighth corpus (what agents wrote in published transcripts)', () => {
  it.each([
    [
      'a JWT whose signature holds `_my-` (no placeholder marker inside a random token)',
      '- Added `AUTH_TOKEN=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIyNTI1NzY4MyJ9.xbOTH4hAocYAlD0TGoF6rWtCz8b_my-cI0oh6IHYy0O`',
      'xbOTH4hAocYAlD0T',
    ],
    [
      'a URL password holding an unescaped slash (an AWS secret key pasted in)',
      'curl http://deploy:sM9ZvO1BkRozU7sX3jQwk3cBEHj8Z2+H063/FWt@web.internal:8000',
      'sM9ZvO1BkRozU7sX',
    ],
    // Siblings the new exemption must not take: another provider's `pk_` key, of one case.
    [
      'a Courier key (`pk_test_`, upper case and digits)',
      'COURIER_AUTH_TOKEN=pk_test_M9KF3R8DPWN2X4HVBQY5ZGCS7L1A',
      'M9KF3R8DPWN2X4HV',
    ],
    [
      'a URL password before an `@` that no host follows',
      'CONNECTION_URI="postgres://postgres:s2Tf2k@rLMy@google.com:5434/elephant"',
      's2Tf2k',
    ],
    // A token's run before `=` is no name: the value near the cue is still taken whole.
    [
      'a value holding `=` near a cue word',
      'Rotated the leaked credential l30e_y2r1=11uic5m and opened a ticket.',
      'l30e_y2r1',
    ],
  ])('redacts %s', (_name, input, secretPart) => {
    expect(redactText(input).text).not.toContain(secretPart);
  });

  it('keeps the name of an assignment near a cue word, and redacts its value', () => {
    expect(
      redactText(
        'Decided to hard-code the API_TOKEN for now (API_TOKEN=Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh); rotate it.',
      ).text,
    ).toBe('Decided to hard-code the API_TOKEN for now (API_TOKEN=«redacted»); rotate it.');
  });

  it.each([
    [
      'a Stripe publishable key under its name',
      'export STRIPE_PUBLISHABLE_KEY=pk_live_vkK8CIAE5ES8OPI0exFJMttbYRMzCpWwet3E3nIhgoqtK && make',
    ],
    [
      'a Stripe publishable key as a bearer token',
      'curl -H "Authorization: Bearer pk_test_IhPVUSm7x5riscsZ0WlJV632TrkpmxQeJ1ahMYP6" https://api.example.com',
    ],
    [
      'a Stripe publishable key in a decision',
      'Set `STRIPE_KEY=pk_test_95eCse5ByEgPPk5XR3pp4mtcFI3ov5` for the checkout page.',
    ],
    ['a placeholder that says whose it is', 'OPENAI_API_KEY=your-api-key'],
    [
      'an assignment of a publishable key in a code span, near a cue word',
      '- Use `STRIPE_PUBLISHABLE_KEY=pk_live_6ejmnkNdbW1CQaqNrrCJ4JnxxI9Oo0WiA6Vi` for the 8k tokens window.',
    ],
    ['a path after a port, with an `@` in it', 'curl http://localhost:8080/users/@me'],
  ])('leaves %s alone', (_name, input) => {
    expect(redactText(input)).toEqual({ text: input, count: 0 });
  });

  it('reads URLs, markers and publishable keys in time that grows with their length', () => {
    // `x://u:a/…` with no `@` (60 KB): a password with slashes and no bound took 1.5 s (a few ms now).
    const inputs = [
      'x://u:a/'.repeat(7500),
      'a://b:c/d'.repeat(6600),
      `curl http://u:${'a/'.repeat(30000)}`,
      `token: x${'_my-a1'.repeat(10000)}`,
      `STRIPE_KEY=pk_live_${'aB3'.repeat(20000)}`,
      `pk_test_${'aB3'.repeat(8)} `.repeat(2000),
      `Rotated the token ${'A_'.repeat(30000)}=x`,
    ];
    for (const input of inputs) {
      const started = performance.now();
      expect(redactText(input).text.length).toBeGreaterThan(0);
      expect(performance.now() - started).toBeLessThan(1000);
    }
  }, 10_000);
});

describe('redaction of secrets the placeholder, emphasis and sentence exemptions kept whole (review of issue 26’s rounds)', () => {
  // Each was redacted by the detector before those rounds (a713895) and kept whole after them: a slot
  // anywhere in a value, emphasis marks around any value, and three plain words under a password's name
  // each exempted the whole value.
  it.each([
    ['a chosen password holding an empty slot', 'password: "aB3$xK9{}mQ2#vL8pZ"', 'xK9'],
    [
      'a generated key holding a named slot',
      'export API_KEY="9f8e7d6c5b4a{x}3f2e1d0c9b8a7f6e5d4c"',
      '9f8e7d6c5b4a',
    ],
    ['a password holding a numbered slot', 'password: "aB3xK9{1}mQ2vL8pZ"', 'mQ2vL8pZ'],
    ['a key after a slot', 'SECRET_KEY="{0}9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c"', '9f8e7d6c5b4a'],
    ['a token before a slot', 'token: "9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c{}"', '9f8e7d6c5b4a'],
    ['a password between underscores', 'password: _Xk9mQ2vL8pZ_', 'Xk9mQ2vL8pZ'],
    ['a password between asterisks', 'password: *Xk9mQ2vL8pZ*', 'Xk9mQ2vL8pZ'],
    ['a password between double asterisks', 'password: **Xk9mQ2vL8pZ**', 'Xk9mQ2vL8pZ'],
    ['a password between double underscores', 'password: __Xk9mQ2vL8pZ__', 'Xk9mQ2vL8pZ'],
    ['a key between underscores', 'api_key: _9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c_', '9f8e7d6c5b4a'],
    ['a passphrase under a password’s name', 'PASSWORD="correct horse battery staple"', 'horse battery'],
    ['a capitalised passphrase', "DB_PASSWORD='Correct Horse Battery Staple'", 'Horse Battery'],
    [
      'a passphrase after a password flag',
      'mysql --password "correct horse battery staple" -u root',
      'horse battery',
    ],
    ['a passphrase in JSON', '{"passphrase": "correct horse battery staple"}', 'horse battery'],
    // Review of 2026-12-06: the tail of a value after an `&` was left in the text.
    ['a password holding an ampersand', 'password: Tr0ub4dor&3xyz', '3xyz'],
    ['a token holding two ampersands', 'API_TOKEN=aB3xK9&mQ2vL8&pZ7wQ', 'pZ7wQ'],
    // Review of 2026-12-06: a passphrase holding the word is no interface text.
    [
      'a passphrase of small words holding “password”',
      'DB_PASSWORD="correct horse battery staple password"',
      'horse battery',
    ],
    // The same for a template expression: before as after those rounds, any `{{` kept a value whole.
    ['a password holding a template’s opening', 'password: "aB3$xK9{{mQ2#vL8pZ"', 'aB3$xK9'],
    ['a password around a template expression', 'DB_PASSWORD="Xk9mQ2vL8{{ env }}pZ7wQ"', 'Xk9mQ2vL8'],
    // Siblings of the same rounds: a blank's underscores after a value, a word and its `!`.
    ['a password before a blank of underscores', 'password: Xk9mQ2vL8pZ____', 'Xk9mQ2vL8pZ'],
    ['a chosen password ending in `!`', 'password: "Welcome!"', 'Welcome!'],
    ['a word and `!` under a password’s name', 'DB_PASSWORD=Summer!', 'Summer!'],
  ])('redacts %s', (_name, input, secretPart) => {
    expect(redactText(input).text).not.toContain(secretPart);
  });

  it.each([
    ['a format string’s slot after a word', 'format_password = "prefix_{}".format(dynamic_value1)'],
    ['a slot alone', 'password = "{0}"'],
    ['slots between words', 'api_key: "key-{name}-{0}"'],
    ['a link with a slot', 'token_url: "https://auth.example.com/{tenant}/token"'],
    ['a connection string’s slots', 'db_password = "{user}:{password}@{host}:{port}/{db}"'],
    ['a slot after a word and its number', 'api_key: "s3-{region}-{0}"'],
    [
      'template expressions cut at a space',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, on purpose
      "key: prettier-cache-${{ hashFiles('pnpm-lock.yaml') }}-${{ github.run_id }}",
    ],
    ['a template expression in a password', 'password: "{{ .Values.db.password }}"'],
    ['a blank of underscores around words', 'GITGUARDIAN_API_KEY=__________FILL ME__________'],
    [
      'a word and its colon after “token is”',
      'Clearer error message when token is missing: specify the command.',
    ],
    ['a slot set in bold for the reader', 'export RENOVATE_TOKEN="**some-token**" # GitHub, GitLab'],
    ['a slot set in italics', 'password: "_your key_"'],
    ['a CamelCase slot in bold', 'api_key: **GitHubToken**'],
    ['a sentence under a key’s name', 'S3_ARCHIVE_ACCESS_KEY: "Get this from elsewhere"'],
    ['a sentence under a token’s name', 'token: "ask the ops team for one"'],
    // An app's messages about passwords, under names that hold a password's word (i18n files).
    ['a message about passwords under a password’s name', '"passwordMismatch": "Passwords do not match"'],
    ['a field’s label under a password’s name', 'confirmPassword: "Confirm password"'],
    ['a prompt under a password’s name', 'NEW_PASSWORD_PROMPT="Enter a new password."'],
    ['a passphrase prompt', "passphrase: 'Enter passphrase for key'"],
  ])('leaves %s alone', (_name, input) => {
    expect(redactText(input)).toEqual({ text: input, count: 0 });
  });

  it('redacts the review’s four values through Redactor.text, as the checkpoint’s fields are', () => {
    const redactor = new Redactor();
    const inputs = [
      'password: "aB3$xK9{}mQ2#vL8pZ"',
      'export API_KEY="9f8e7d6c5b4a{x}3f2e1d0c9b8a7f6e5d4c"',
      'password: _Xk9mQ2vL8pZ_',
      'PASSWORD="correct horse battery staple"',
    ];
    expect(inputs.map((input) => redactor.text(input))).toEqual([
      `password: "${REDACTED}"`,
      `export API_KEY="${REDACTED}"`,
      `password: ${REDACTED}`,
      `PASSWORD="${REDACTED}"`,
    ]);
    expect(redactor.count).toBe(4);
  });

  it('judges long values against the narrowed exemptions in time that grows with their length', () => {
    // 60 KB each: slots glued or nested, emphasis that never closes or closes late, words with no end.
    const inputs = [
      `password = "${'{}'.repeat(30000)}"`,
      `password = "${'{'.repeat(30000)}${'}'.repeat(30000)}"`,
      `api_key = "${'a{x}'.repeat(15000)}"`,
      `password: _${'a_'.repeat(30000)}`,
      `password: **${'ab*'.repeat(20000)}`,
      `password: "${'word '.repeat(12000)}"`,
      `password: "${'aB3 '.repeat(15000)}"`,
      `password = "${'{{'.repeat(30000)}"`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions expressions, on purpose
      `password = "${'${{a}}'.repeat(10000)}"`,
      `password = "a${'{{'.repeat(20000)}${'b'.repeat(20000)}"`,
      `password = "${'{{a'.repeat(20000)}"`,
      `password: ${'_'.repeat(60000)}a`,
      `password: a${'_'.repeat(60000)}`,
    ];
    for (const input of inputs) expect(redactText(input).text.length).toBeGreaterThan(0);
  }, 10_000);
});

/** `length` characters of `alphabet` drawn by mulberry32 from `seed`: the same on every run. */
const drawn = (length: number, seed: number, alphabet: string) => {
  let state = seed >>> 0;
  let out = '';
  for (let i = 0; i < length; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out += alphabet[((t ^ (t >>> 14)) >>> 0) % alphabet.length];
  }
  return out;
};
const lower = 'abcdefghijklmnopqrstuvwxyz';
const alnum = `${lower}${lower.toUpperCase()}0123456789`;
const hex = '0123456789abcdef';

// A round on the misses of the corpora's tuning parts (2026-12-06): formats the scanners publish that the
// detector read too narrowly. Values here are made for these tests in each format's published shape.
describe('redaction of the formats a tuning round widened', () => {
  const cases: Array<[string, string, string]> = [
    // Slack's legacy bot tokens: digits, then letters and digits, here all small letters.
    ['a Slack bot token of small letters', 'The bot now posts with xoxb-48213975061-', drawn(24, 7, lower)],
    // Octopus Deploy's API keys: API- and 26 capitals and digits, here capitals only.
    ['an Octopus key of capitals', 'Deployed with API-', drawn(26, 11, lower).toUpperCase()],
    // test.pypi.org's upload tokens: a macaroon whose first bytes name that site.
    ['a TestPyPI upload token', 'Uploaded with pypi-AgENdGVzdC5weXBpLm9yZw', drawn(80, 3, alnum)],
    ['a New Relic user key of small letters', 'Rotated NRAK-', drawn(27, 13, `${lower}0123456789`)],
    [
      'a Dynatrace platform token',
      `DT=dt0s01.${drawn(24, 17, alnum).toUpperCase()}.`,
      drawn(64, 19, alnum).toUpperCase(),
    ],
    ['curl’s -u glued to its value', 'curl -uadmin:', drawn(14, 23, alnum)],
    ['curl’s -U glued to its value', 'curl -Uproxyuser:', drawn(14, 29, alnum)],
  ];
  it.each(cases)('redacts %s', (_name, before, secret) => {
    const output = redactText(`${before}${secret} and more`).text;
    expect(output).toContain(REDACTED);
    expect(output).not.toContain(secret.slice(-10));
  });

  it.each([
    ['a token slot of words in small letters', 'Paste it in the form xoxb-48213975061-yourbottokengoeshere'],
    ['a slot of words in capitals', 'Deployed with API-YOUROCTOPUSAPIKEYGOESHERE'],
    ['curl with a variable after -u', 'curl -u "$USER" https://example.com/status'],
    [
      'a Dynatrace doc placeholder',
      'DT_API_TOKEN=dt0c01.XXXXXXXXXXXXXXXXXXXXXXXX.XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
    ],
  ])('leaves %s alone', (_name, input) => {
    expect(redactText(input)).toEqual({ text: input, count: 0 });
  });

  it('reads 60 KB built against the widened patterns in time that grows with its length', () => {
    const inputs = [
      `curl${' -u'.repeat(20000)}`,
      `curl -u${'a'.repeat(60000)}`,
      `xoxb-48213975061-${'b'.repeat(60000)}`,
      'NRAK-'.repeat(12000),
      'dt0s01.'.repeat(9000),
      'pypi-AgENdGVzdC5weXBpLm9yZw'.repeat(2000),
    ];
    for (const input of inputs) expect(redactText(input).text.length).toBeGreaterThan(0);
  }, 10_000);
});

// A second round on the tuning parts' misses (2026-12-06): formats that scanners publish with their
// source (trufflehog's detectors, gitleaks' rules, detect-secrets' plugins, secrets-patterns-db's rules)
// and the detector did not know, or read more narrowly than their rule. Values are made for these tests
// in each format's published shape, with the seeded draw above.
describe('redaction of formats ported from the scanners’ published rules (second tuning round)', () => {
  const upperAlnum = `${lower.toUpperCase()}0123456789`;
  const cases: Array<[string, string, string, string?]> = [
    // gitleaks' sumologic-access-id: `su` and 12 letters and digits, named for Sumo Logic (an `_id` name).
    ['a Sumo Logic access id', 'export SUMOLOGIC_ACCESS_ID="', `su${drawn(12, 31, alnum)}`, '"'],
    // gitleaks' finnhub-access-token: 20 small letters and digits under a name holding "finnhub"; the
    // value may end its line with the quote left open, as gitleaks reads it.
    [
      'a Finnhub key under a name without a secret’s word',
      'export FINNHUB=',
      drawn(20, 37, `${lower}0123456789`),
    ],
    ['a Finnhub key on a line cut after it', 'finnhub_api_key = "', drawn(20, 41, `${lower}0123456789`), ''],
    // trufflehog's rootly detector: rootly_ and 64 hex digits.
    ['a Rootly key', 'Paged the on-call with rootly_', drawn(64, 43, hex)],
    // trufflehog's besttime detector: pri_ and 32 hex digits within 40 characters after "besttime".
    ['a BestTime private key', 'curl https://besttime.app/api/v1/keys/pri_', drawn(32, 47, hex)],
    // trufflehog's launchdarkly detector: sdk- or api- and a UUID's shape in small letters and digits.
    [
      'a LaunchDarkly SDK key of letters and digits',
      'The server starts with sdk-',
      `${drawn(8, 53, `${lower}0123456789`)}-${drawn(4, 59, lower)}-4${drawn(3, 61, lower)}-${drawn(4, 67, lower)}-${drawn(12, 71, `${lower}0123456789`)}`,
    ],
    // trufflehog's googleoauth2 detector: ya29. and ten characters or more.
    ['a short Google OAuth access token', 'Called the API with ya29.', drawn(14, 73, alnum)],
    // detect-secrets' discord plugin: a bot token anywhere in a run (its own test: `ATMy…` from the M).
    [
      'a Discord bot token inside a longer run',
      'AT',
      `M${drawn(23, 79, alnum)}.${drawn(6, 83, alnum)}.${drawn(27, 89, alnum)}`,
    ],
    // detect-secrets' gitlab_token plugin: GR1348941 and 20 to 50 characters; glptt- and 40 of a token's alphabet.
    [
      'a GitLab runner registration token past 20 characters',
      'runner_registration: GR1348941',
      drawn(32, 97, alnum),
    ],
    ['a GitLab pipeline trigger token of letters and digits', 'trigger: glptt-', drawn(40, 101, alnum)],
    // secrets-patterns-db's Pagerdutyapikey: a letter, +, 9 letters, -, 2 letters, -, 5 letters or digits,
    // within 40 characters after "pagerduty".
    [
      'a PagerDuty API key',
      'The PagerDuty integration uses ',
      `y+${drawn(9, 103, `${lower}${lower.toUpperCase()}`)}-${drawn(2, 107, lower)}-${drawn(5, 109, `${lower}0123456789`)}`,
    ],
    // secrets-patterns-db's Cloudflarecakey: v and 173 characters or more (dots too) after "cloudflare".
    [
      'a Cloudflare key with dots',
      'The cloudflare origin certificate was issued with v',
      drawn(180, 113, `${alnum}._-`),
    ],
    // trufflehog's keenio, metaapi, websitepulse and cloudmersive detectors: the service's name, then its key.
    ['a Keen IO key', 'Keen IO: ', drawn(64, 127, upperAlnum)],
    ['a MetaApi token', 'METAAPI=', drawn(64, 131, hex)],
    ['a WebsitePulse key', 'websitepulse: ', drawn(32, 137, hex)],
    ['a Cloudmersive key', 'cloudmersive: ', drawn(36, 139, `${lower}0123456789-`)],
    // semgrep's detected-onfido-live-api-token: api_live, a region or not, then 11 and 32 characters.
    ['an Onfido live API token', 'ONFIDO=api_live_eu.', `${drawn(11, 157, alnum)}.${drawn(32, 163, alnum)}`],
    // kingfisher's eventbrite rule: a secret's word after the name, then the key, on the next line too.
    ['an Eventbrite key on the line below its name', 'Eventbrite private key\n', drawn(20, 167, upperAlnum)],
  ];
  it.each(cases)('redacts %s', (_name, before, secret, after = ' and more') => {
    const output = redactText(`${before}${secret}${after}`).text;
    expect(output).toContain(REDACTED);
    for (let i = 0; i + 8 <= secret.length; i++) expect(output).not.toContain(secret.slice(i, i + 8));
  });

  it.each([
    // BestTime's public keys (pub_) are for the browser; only its private keys (pri_) are secrets.
    ['a BestTime public key', `curl https://besttime.app/api/v1/keys/pub_${drawn(32, 149, hex)}`],
    ['a pipeline trigger token’s shape one character too long', `glptt-${drawn(41, 151, alnum)}`],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expression, on purpose
    ['a Sumo Logic id that is a reference', 'SUMO_ACCESS_ID = "${SUMO_ACCESS_ID}"'],
    ['a PagerDuty word with no key after it', 'PagerDuty pages the on-call engineer within 5 minutes'],
    ['a word in capitals where an Eventbrite key would be', 'Eventbrite key: see CONFIGURATIONMANAGER'],
  ])('leaves %s alone', (_name, input) => {
    expect(redactText(input)).toEqual({ text: input, count: 0 });
  });

  it('reads 60 KB built against the ported patterns in time that grows with its length', () => {
    const inputs = [
      'SUMO_ACCESS_ID = '.repeat(3600),
      'finnhub_token = "'.repeat(3600),
      `besttime ${'pri_'.repeat(15000)}`,
      'pagerduty a+'.repeat(5000),
      `cloudflare ${'v'.repeat(60000)}`,
      `cloudflare v${'a'.repeat(180)} `.repeat(310),
      'M'.repeat(60000),
      `${'N'.repeat(25)}.abcdef.`.repeat(1800),
      `keen ${'A'.repeat(60000)}`,
      `keen ${'A'.repeat(63)} `.repeat(880),
      'metaapi '.repeat(7500),
      `cloudmersive ${'-'.repeat(60000)}`,
      'sdk-aaaaaaaa-aaaa-4aaa-'.repeat(2600),
      `GR1348941${'a'.repeat(60000)}`,
      `glptt-${'a'.repeat(60000)}`,
      'ya29.'.repeat(12000),
      `api_live.${'a'.repeat(11)}.`.repeat(2800),
      'eventbrite key '.repeat(4000),
      `eventbrite key ${'A'.repeat(60000)}`,
    ];
    for (const input of inputs) expect(redactText(input).text.length).toBeGreaterThan(0);
  }, 10_000);
});

describe('redaction of long runs of spaces', () => {
  // Found with this round's 60 KB inputs: two lookbehinds read a run of spaces back from each of its
  // characters (a bare value's `=` or `:` before it, Sidekiq's setting's sign), 7 s for 60 KB of spaces
  // and growing with the square. 120 KB each: the time limit fails them as they were.
  it('reads 120 KB of spaces, tabs and a setting padded with spaces in time that grows with their length', () => {
    const inputs = [
      ' '.repeat(120000),
      '\t'.repeat(120000),
      `BUNDLE_GEMS__CONTRIBSYS__COM=${' '.repeat(120000)}`,
    ];
    for (const input of inputs) expect(redactText(input)).toEqual({ text: input, count: 0 });
  }, 10_000);

  it('still redacts a generated value after spaces, and still leaves one after = to its name', () => {
    const value = 'aB3xK9mQ2vL8pZ7nR4tYw9';
    expect(redactText(`Left ${' '.repeat(200)}${value} in .env.local`).text).not.toContain(value);
    const named = `BUILD_ID =${' '.repeat(40)}${value}`;
    expect(redactText(named).text).toBe(named);
    expect(redactText('BUNDLE_GEMS__CONTRIBSYS__COM=  cafe1234:beef5678').text).toBe(
      `BUNDLE_GEMS__CONTRIBSYS__COM=  ${REDACTED}`,
    );
  });
});

describe('a token in a URL userinfo (trial 4, item 9)', () => {
  // `https://oauth2:TOKEN@gitlab.com/o/r.git` was taken by secret-assignment (its name `oauth2`, its value
  // everything after the colon): the host and the path went with the token.
  it.each([
    [
      'oauth2:',
      'git clone https://oauth2:Xk29fLq81zPwQm@gitlab.com/o/r.git',
      'git clone https://oauth2:«redacted»@gitlab.com/o/r.git',
    ],
    [
      'x-access-token:',
      'git remote set-url origin https://x-access-token:Xk29fLq81zPwQm@github.com/org/repo.git',
      'git remote set-url origin https://x-access-token:«redacted»@github.com/org/repo.git',
    ],
    [
      'gitlab-ci-token:',
      'git clone https://gitlab-ci-token:Xk29fLq81zPwQm@gitlab.example.com:8443/group/app.git',
      'git clone https://gitlab-ci-token:«redacted»@gitlab.example.com:8443/group/app.git',
    ],
    [
      'a token alone',
      'git clone https://Xk29fLq81zPwQmAb7c9@github.com/o/r.git',
      'git clone https://«redacted»@github.com/o/r.git',
    ],
    [
      'a GitHub token alone',
      'git push https://ghp_LnEbe9bmkZZODvU0StpGlHCAvayydR6djjBD@github.com/o/r.git main',
      'git push https://«redacted»@github.com/o/r.git main',
    ],
    [
      'a database URL, as before',
      'postgres://app:Xk29fLq81zPwQm@db.example.com/x',
      'postgres://app:«redacted»@db.example.com/x',
    ],
  ])('keeps the host and path with %s', (_name, input, output) => {
    expect(redactText(input)).toEqual({ text: output, count: 1 });
    expect(redactText(output)).toEqual({ text: output, count: 0 });
  });

  it.each([
    ['a user name', 'git clone https://alice@bitbucket.org/o/r.git'],
    ['a bot user name', 'git clone https://deploy-bot-2024@github.com/o/r.git'],
    ['git over ssh', 'git clone ssh://git@github.com/o/r.git'],
    ['a path after a port, with an `@` in it', 'curl http://localhost:8080/users/@me'],
  ])('leaves %s alone', (_name, input) => {
    expect(redactText(input)).toEqual({ text: input, count: 0 });
  });

  it('still redacts a token named oauth2 outside a URL, and one after a comment mark', () => {
    expect(redactText('oauth2: Xk29fLq81zPwQm').text).toBe('oauth2: «redacted»');
    expect(redactText('//token: Xk29fLq81zPwQm').text).toBe('//token: «redacted»');
  });

  it('reads 60 KB built against the userinfo patterns in time that grows with its length', () => {
    const inputs = [
      `https://oauth2:${'a'.repeat(60000)}`,
      `https://oauth2:${'a'.repeat(300)}@`.repeat(190),
      'https://oauth2:a:'.repeat(3600),
      `https://${'a'.repeat(60000)}@`,
      `https://${'aB3'.repeat(66)}@`.repeat(290),
      `https://${'aB3'.repeat(5)}@${'a.'.repeat(30000)}`,
      'https://'.repeat(7500),
    ];
    for (const input of inputs) {
      const started = performance.now();
      expect(redactText(input).text.length).toBeGreaterThan(0);
      expect(performance.now() - started).toBeLessThan(1000);
    }
  }, 10_000);
});

describe('issue 26, audit item 9: passwords written in prose and chat', () => {
  it.each([
    ['the password Xk9mQ2vL8pZt', 'the password «redacted»'],
    ['the root password Xk9mQ2vL8pZt', 'the root password «redacted»'],
    ['password for prod Xk9mQ2vL8pZt', 'password for prod «redacted»'],
    ['pw: Xk9mQ2vL8pZt', 'pw: «redacted»'],
    ['login admin / Xk9mQ2vL8pZt', 'login admin / «redacted»'],
    ['Password Xk9mQ2vL8pZt works', 'Password «redacted» works'],
    [
      'Deploy with token X and password Xk9mQ2vL8pZt! to prod',
      'Deploy with token X and password «redacted»! to prod',
    ],
    ['use password Xk9mQ2vL8pZt', 'use password «redacted»'],
    ['pw: hunter2', 'pw: «redacted»'],
    ["the password's Summer2024!", "the password's «redacted»!"],
    ['Password: WeakPassword123', 'Password: «redacted»'],
  ])('redacts %j', (text, expected) => {
    expect(redactText(text).text).toBe(expected);
  });

  it.each([
    'pw: <redacted>',
    'password: see 1Password',
    'the password field is required',
    'reset the password for prod',
    'The password is stored as SHA-256 and the password hash uses bcrypt2b',
    'password for the admin and root users',
    '--volume /etc/passwd:/etc/passwd:ro',
    'password: $DB_PASSWORD',
    "sven@10.10.10.20's password:\n\nroot@e7c3b2f1:/# ls -la",
    'pw: PrintWriter',
    'the password 2FA-codes are printed once',
    // Review of issue 26: a class or component's name after the word is not a value.
    'Fixed the password Validator2 test in auth.',
    'Password Manager2 integration done',
    'the password MyComponent2 rerenders',
  ])('keeps %j', (text) => {
    expect(redactText(text).text).toBe(text);
  });
});

// Brief h-left, item 4: a self-identifying token bare in a file path (a folder named by an AWS key id, a
// GitHub token as a file's name, one joined to the name by `_`) is redacted in the paths a checkpoint
// lists and a handoff's names; an ordinary path never is.
describe('redactPath', () => {
  const tokens = {
    'ghp_ token': 'ghp_Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q',
    github_pat_:
      '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',
    'Slack bot token': 'xoxb-482915730264-5820197346512-Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh',
    'AWS access key id': 'AKIAQ3EGRTZ7WKXNLP5D',
    'Anthropic key': `sk-ant-api03-${'Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Qw2Ur9I'.repeat(2)}k4Ol8Pm3Xq7AA`,
  };
  const places: Array<[string, (token: string) => string, string]> = [
    ['a folder', (token) => `src/${token}/config.ts`, 'src/«redacted»/config.ts'],
    ['a file with an extension', (token) => `keys/${token}.json`, 'keys/«redacted».json'],
    ['a whole path', (token) => token, '«redacted»'],
    ['a name it starts, with `_`', (token) => `keys/${token}_old.txt`, 'keys/«redacted»_old.txt'],
    ['a name it ends, after `_`', (token) => `backup_${token}`, 'backup_«redacted»'],
    ['a name between `-` and `.`', (token) => `notes/copy-${token}.md`, 'notes/copy-«redacted».md'],
  ];
  it.each(
    Object.entries(tokens).flatMap(([format, token]) =>
      places.map(([place, build, expected]) => [format, place, build(token), expected] as const),
    ),
  )('redacts a %s in %s', (format, place, input, expected) => {
    const result = redactPath(input);
    // An Anthropic key's alphabet has `_`: what follows it that way is taken with it (more, never less).
    const isTaken = format === 'Anthropic key' && place.includes('starts');
    expect(result.text).toBe(isTaken ? expected.replace('_old', '') : expected);
    expect(result.count).toBe(1);
    expect(redactPath(result.text).text).toBe(result.text);
  });

  it('finds where redactText does not: a token joined to a name by `_`', () => {
    expect(redactText(`backup_${tokens['ghp_ token']}.txt`).count).toBe(0);
    expect(redactPath(`backup_${tokens['ghp_ token']}.txt`).count).toBe(1);
  });

  it.each([
    'src/core/secrets/detect.ts',
    'node_modules/@types/node/fs.d.ts',
    'docs/AKIAIOSFODNN7EXAMPLE/readme.md',
    'assets/video_box.ico-3f9a2c5e7b1d4f6a8c0e2b4d6f8a1c3e.png',
    'test/fixtures/redaction-corpus-scanners.json',
    'migrations/20261207_add_api_keys_table.sql',
    'src/auth/password_reset_token_form.tsx',
    '.github/workflows/secret-scan.yml',
  ])('leaves an ordinary path as it is: %s', (file) => {
    expect(redactPath(file)).toEqual({ text: file, count: 0 });
  });

  it("leaves every path of this repository's own files as it is", () => {
    const files = execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' }).split('\0').filter(Boolean);
    expect(files.length).toBeGreaterThan(500);
    expect(files.filter((file) => redactPath(file).text !== file)).toEqual([]);
  });
});
