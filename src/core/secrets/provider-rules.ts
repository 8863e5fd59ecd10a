/**
 * Credentials recognisable by their shape alone: a provider's prefix, length and alphabet, as the
 * providers and the leading scanners (gitleaks, trufflehog, secretlint) publish them. Each rule names the
 * lowercase keywords one of which must occur in a text before its pattern runs (how gitleaks stays
 * fast); the whole match is the secret unless the pattern has a `secret` group.
 */
export interface PatternRule {
  id: string;
  keywords: readonly string[];
  pattern: RegExp;
  /**
   * For a pattern that starts with a character class (slow to scan a long text with): run it only on
   * windows around each occurrence of this literal (lowercase), `before` characters back.
   */
  anchor?: { literal: string; before: number; after: number };
}

// Not preceded or followed by a token character: a prefix inside a longer word is not a token.
const START = '(?<![A-Za-z0-9_])';
const END = '(?![A-Za-z0-9_])';

function rule(id: string, keywords: readonly string[], source: string, flags = ''): PatternRule {
  return { id, keywords, pattern: new RegExp(source, `g${flags}`) };
}

/** `prefix` followed by `body`, bounded on both sides; the keyword is the prefix, lowercased. */
function prefixed(id: string, prefix: string, body: string, flags = ''): PatternRule {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return rule(id, [prefix.toLowerCase()], `${START}${escaped}${body}${END}`, flags);
}

/**
 * gitleaks' shape for a provider whose value has no prefix of its own: the provider's word in a name,
 * an assignment, then the value, ended by a quote, a space, `;` or the line's end (so a line cut after
 * its value, `finnhub_token = "r5bc…`, counts: gitleaks' rules read it so). `word` is a pattern; its
 * keyword is `keyword`.
 */
function named(id: string, keyword: string, word: string, value: string, flags = ''): PatternRule {
  return rule(
    id,
    [keyword],
    String.raw`${word}[ \t\w.-]{0,20}[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}(?<secret>${value})(?=[\x60'"\s;]|\\[nr]|$)`,
    flags,
  );
}

/**
 * trufflehog's shape for a provider whose value has no prefix of its own (its detectors' `PrefixRegex`):
 * one of the provider's `words` (any case), then within 40 characters (lines included) the value, whole.
 */
function afterWord(id: string, words: readonly string[], value: string): PatternRule {
  const anyCase = (word: string) =>
    [...word].map((char) => (/[a-z]/.test(char) ? `[${char}${char.toUpperCase()}]` : `\\${char}`)).join('');
  return rule(
    id,
    words,
    `(?:${words.map(anyCase).join('|')})[\\s\\S]{0,40}?(?<![A-Za-z0-9_])(?<secret>${value})(?![A-Za-z0-9_])`,
  );
}

const B64URL = '[A-Za-z0-9_-]';
const ALNUM = '[A-Za-z0-9]';
const HEX = '[a-f0-9]';
const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

export const PROVIDER_RULES: readonly PatternRule[] = [
  // Keys and key files.
  rule(
    'private-key',
    ['private key'],
    // A body that reads as words on the marker's line is no key (`-----BEGIN PRIVATE KEY-----this is not a
    // private key-----END…`, ripsecrets' negative case); any other body is, cut short as it may be.
    '-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----(?![ \\t]*[A-Za-z]+ [a-z]+ [a-z]+)(?:[\\s\\S]*?-----END[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----|[\\s\\S]*$)',
    'i',
  ),
  prefixed('age-secret-key', 'AGE-SECRET-KEY-1', '[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}', 'i'),
  // AI providers.
  rule('anthropic-key', ['sk-ant-'], `${START}sk-ant-(?:api|admin|oat|sid)\\d{2}-${B64URL}{80,120}`),
  rule(
    'openai-key',
    ['t3blbkfj'],
    `${START}sk-(?:(?:proj|svcacct|admin|None)-)?${B64URL}{20,160}T3BlbkFJ${B64URL}{20,160}`,
  ),
  rule(
    'openai-project-key',
    ['sk-proj-', 'sk-svcacct-', 'sk-admin-'],
    `${START}sk-(?:proj|svcacct|admin)-${B64URL}{40,200}`,
  ),
  rule('openai-style-key', ['sk-'], `${START}sk-(?!ant-)${ALNUM}{32,100}${END}`),
  prefixed('groq-key', 'gsk_', `${ALNUM}{48,56}`),
  rule('langsmith-key', ['lsv2_'], `${START}lsv2_(?:pt|sk)_${HEX}{32}_${HEX}{10}${END}`),
  prefixed('perplexity-key', 'pplx-', `${ALNUM}{40,56}`),
  prefixed('xai-key', 'xai-', `${ALNUM}{60,100}`),
  prefixed('replicate-token', 'r8_', `${ALNUM}{37}`),
  rule('huggingface-token', ['hf_', 'api_org_'], `${START}(?:hf|api_org)_[A-Za-z]{30,40}${END}`),
  prefixed('pinecone-key', 'pcsk_', `${ALNUM}{4,8}_${ALNUM}{50,80}`),
  rule(
    'bedrock-key',
    ['absk', 'bedrock-api-key-'],
    `${START}(?:ABSK[A-Za-z0-9+/]{60,400}={0,2}|bedrock-api-key-[A-Za-z0-9+/]{60,2000}={0,2})`,
  ),
  // Clouds.
  rule(
    'aws-access-key-id',
    ['akia', 'asia', 'abia', 'acca', 'a3t'],
    `${START}(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}${END}`,
  ),
  rule('google-api-key', ['aiza'], `${START}AIza${B64URL}{35}${END}`),
  prefixed('google-oauth-secret', 'GOCSPX-', `${B64URL}{28}`),
  // Ten characters or more after `ya29.`, as trufflehog's googleoauth2 detector reads it.
  rule('google-oauth-token', ['ya29.'], `${START}ya29\\.${B64URL}{10,}`),
  rule(
    'azure-ad-secret',
    ['q~'],
    `(?<![A-Za-z0-9_~.])[A-Za-z0-9_~.]{3}\\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])`,
  ),
  rule('alibaba-access-key-id', ['ltai'], `${START}LTAI${ALNUM}{12,20}${END}`),
  rule('digitalocean-token', ['_v1_'], `${START}do[opr]_v1_${HEX}{64}${END}`),
  prefixed('yandex-api-key', 'AQVN', `${B64URL}{35,38}`),
  rule('yandex-iam-token', ['t1.'], `${START}t1\\.[A-Za-z0-9_-]+={0,2}\\.[A-Za-z0-9_-]{86}={0,2}`),
  rule('ibm-cloud-iam-key', ['ibm'], `ibm[\\w.-]{0,30}[:=]\\s{0,3}["']?(?<secret>${B64URL}{44})${END}`, 'i'),
  rule('cloudflare-origin-ca', ['v1.0-'], `${START}v1\\.0-${HEX}{24}-${HEX}{146}${END}`),
  rule(
    'fly-token',
    ['fo1_', 'fm1', 'fm2_'],
    `${START}(?:fo1_${B64URL}{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3})`,
  ),
  prefixed('heroku-key-v2', 'HRKU-AA', `${B64URL}{58}`),
  prefixed('render-key', 'rnd_', `${ALNUM}{32}`),
  prefixed('netlify-token', 'nfp_', `${ALNUM}{36,40}`),
  prefixed('neon-key', 'napi_', `[a-z0-9]{60,70}`),
  prefixed('supabase-token', 'sbp_', `${HEX}{40}`),
  rule('supabase-secret', ['sb_secret_'], `${START}sb_secret_${B64URL}{20,}`),
  rule('planetscale-token', ['pscale_'], `${START}pscale_(?:tkn|oauth|pw)_[\\w=.-]{32,64}${END}`),
  prefixed('scalingo-token', 'tk-us-', `[\\w-]{48}`),
  prefixed('openshift-token', 'sha256~', `[\\w-]{43}`),
  rule('vault-token', ['hvs.', 'hvb.', 'hvr.'], `${START}hv[sbr]\\.${B64URL}{24,300}`),
  {
    ...rule('terraform-token', ['atlasv1'], `${START}[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_=-]{60,70}`),
    anchor: { literal: '.atlasv1.', before: 15, after: 80 },
  },
  prefixed('pulumi-token', 'pul-', `${HEX}{40}`),
  prefixed('tailscale-key', 'tskey-', `[a-z]+-${ALNUM}{8,20}-${ALNUM}{20,50}`),
  {
    // Azure DevOps personal access token (84 characters, AZDO at 77-80).
    ...rule('azure-devops-pat', ['azdo'], `${START}${ALNUM}{76}AZDO${ALNUM}{4}${END}`),
    anchor: { literal: 'azdo', before: 76, after: 4 },
  },
  {
    // Salesforce access token: organisation id (00D…), `!`, session.
    ...rule('salesforce-token', ['00d'], `${START}00D[A-Za-z0-9]{12}![A-Za-z0-9._]{80,120}${END}`),
    anchor: { literal: '!', before: 15, after: 121 },
  },
  rule('clickhouse-secret', ['4b1d'], `${START}4b1d${ALNUM}{38}${END}`),
  // Code hosting and CI.
  rule('github-token', ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'], `${START}gh[pousr]_${ALNUM}{36,255}${END}`),
  prefixed('github-fine-grained-pat', 'github_pat_', `\\w{82}`),
  rule(
    'gitlab-token',
    [
      'glpat-',
      'gldt-',
      'glrt-',
      'glft-',
      'glimt-',
      'glagent-',
      'gloas-',
      'glptt-',
      'glsoat-',
      'glffct-',
      'glcbt-',
    ],
    `${START}(?:glpat-[\\w-]{20,300}(?:\\.[0-9a-z]{9})?|gl(?:dt|rt|ft|soat|ffct)-[\\w-]{20,300}|glimt-[\\w-]{25}|glagent-[\\w-]{50}|gloas-[\\w-]{64}|glptt-[\\w-]{40}${END}|glcbt-${ALNUM}{1,5}_[\\w-]{20})`,
  ),
  // Pipeline trigger tokens and runner registration tokens as detect-secrets' gitlab_token plugin reads
  // them (glptt- and 40 characters of a token's alphabet, GR1348941 and 20 to 50): longer ones were missed whole.
  prefixed('gitlab-runner-registration', 'GR1348941', `[\\w-]{20,50}`),
  rule('gitlab-session', ['_gitlab_session='], `_gitlab_session=(?<secret>[0-9a-z]{32})${END}`),
  rule('bitbucket-app-password', ['atbb'], `${START}ATBB${ALNUM}{32,}`),
  prefixed('buildkite-token', 'bkua_', `${HEX}{40}`),
  rule('circleci-token', ['ccipat_'], `${START}CCIPAT_${ALNUM}{20,}_${HEX}{40}`),
  rule('sonar-token', ['squ_', 'sqp_', 'sqa_'], `${START}sq[upa]_${HEX}{40}${END}`),
  rule(
    'sourcegraph-token',
    ['sgp_', 'slk_'],
    `${START}(?:sgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}|slk_${HEX}{64})${END}`,
  ),
  rule(
    'harness-token',
    ['pat.', 'sat.'],
    `${START}(?:pat|sat)\\.[\\w-]{22}\\.${ALNUM}{24}\\.${ALNUM}{20}${END}`,
  ),
  prefixed('octopus-key', 'API-', `[A-Z0-9]{26}`),
  // Not followed by a file extension: `video_box.ico-<content hash>.png` is a fingerprinted asset name.
  rule('infracost-token', ['ico-'], `${START}ico-${ALNUM}{32}${END}(?!\\.[A-Za-z0-9])`),
  prefixed('docker-hub-pat', 'dckr_pat_', `[\\w-]{27}`),
  rule('docker-hub-oat', ['dckr_oat_'], `${START}dckr_oat_[\\w-]{32}`),
  // Package registries.
  prefixed('npm-token', 'npm_', `${ALNUM}{36}`),
  // pypi.org's and test.pypi.org's (macaroons whose first bytes name the site).
  rule(
    'pypi-token',
    ['pypi-ageichlwas5vcmc', 'pypi-agendgvzdc5wexbplm9yzw'],
    `${START}pypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[\\w-]{50,1000}`,
  ),
  prefixed('rubygems-token', 'rubygems_', `${HEX}{48}`),
  prefixed('clojars-token', 'CLOJARS_', `[a-z0-9]{60}`, 'i'),
  rule('artifactory-key', ['akcp', 'cmvmd'], `${START}(?:AKCp${ALNUM}{69}|cmVmd${ALNUM}{59})${END}`),
  // Messaging and webhooks.
  rule(
    'slack-token',
    ['xox'],
    // Bot, user, session and refresh tokens go on with digits (xoxb-1234…); only the legacy xoxa/xoxr
    // forms may not, so `xoxo-indieweb-1.jpg` and `xoxb-12345-abcd234` are not tokens.
    `${START}xox(?:[bpose]-\\d[A-Za-z0-9-]{15,}|[ar]-(?:\\d-)?[A-Za-z0-9-]{8,}|e\\.xox[bp]-\\d-[A-Z0-9]{100,})`,
  ),
  rule('slack-app-token', ['xapp-'], `${START}xapp-\\d-[A-Z0-9]+-\\d+-[a-z0-9]+`, 'i'),
  rule(
    'slack-webhook',
    ['hooks.slack.com'],
    `hooks\\.slack\\.com/(?:services|workflows|triggers)/(?<secret>[A-Za-z0-9+/_-]{20,})`,
  ),
  rule('discord-webhook', ['discord'], `discord(?:app)?\\.com/api/webhooks/\\d+/(?<secret>[\\w-]{60,})`),
  // Anywhere in a run, as detect-secrets' discord plugin reads it (its test: `ATMyOTQ4…` holds a token
  // from its third character).
  rule('discord-bot-token', ['.'], `[MNO][A-Za-z\\d]{23,27}\\.[\\w-]{6}\\.[\\w-]{27,40}${END}`),
  // A bot's id (5 to 16 digits, as gitleaks' rule reads it), then `:AA` and the token.
  rule('telegram-bot-token', [':aa'], `(?<![A-Za-z0-9_:])\\d{5,16}:AA[\\w-]{32,33}${END}`),
  rule(
    'teams-webhook',
    ['webhook.office.com', 'outlook.office'],
    `(?:webhook\\.office\\.com/webhookb2|outlook\\.office(?:365)?\\.com/webhook)/(?<secret>[\\w@/-]{100,})`,
  ),
  rule('twilio-api-key', ['sk'], `${START}SK[0-9a-fA-F]{32}${END}`),
  rule('sendgrid-key', ['sg.'], `${START}SG\\.${B64URL}{22}\\.${B64URL}{43}${END}`),
  prefixed('sendinblue-key', 'xkeysib-', `${HEX}{64}-${ALNUM}{16}`),
  rule('mailgun-key', ['key-', 'pubkey-'], `${START}(?:pub)?key-(?=[a-z]*\\d)[a-z0-9]{32}${END}`),
  // Mailgun's newer keys (32-8-8 hex), with nothing in their shape to look for but the name nearby.
  rule('mailgun-key-hex', ['mailgun'], `${START}${HEX}{32}-${HEX}{8}-${HEX}{8}${END}`),
  {
    ...rule('mailchimp-key', ['-us'], `${START}${HEX}{32}-us\\d{1,2}${END}`),
    anchor: { literal: '-us', before: 33, after: 4 },
  },
  // Payments and commerce.
  rule('stripe-key', ['sk_', 'rk_'], `${START}(?:sk|rk)_(?:live|test|prod)_${ALNUM}{10,99}${END}`),
  rule('stripe-webhook-secret', ['whsec_'], `${START}whsec_${ALNUM}{24,}${END}`),
  rule('square-token', ['sq0', 'eaaa'], `${START}(?:sq0(?:atp|csp)-[\\w-]{22,60}|EAAA[\\w-]{22,60})${END}`),
  rule(
    'shopify-token',
    ['shpat_', 'shpca_', 'shppa_', 'shpss_'],
    `${START}shp(?:at|ca|pa|ss)_[A-Za-z0-9]{32,40}${END}`,
  ),
  rule('shippo-token', ['shippo_'], `${START}shippo_(?:live|test)_[a-fA-F0-9]{40}${END}`),
  rule('duffel-token', ['duffel_'], `${START}duffel_(?:test|live)_[\\w=-]{43}${END}`),
  rule('flutterwave-key', ['flwseck'], `${START}FLWSECK(?:_TEST)?-[a-h0-9]{12,32}(?:-X)?${END}`, 'i'),
  rule('easypost-key', ['ezak', 'eztk'], `${START}EZ[AT]K${ALNUM}{54}${END}`),
  rule('facebook-token', ['eaac', 'eaam'], `${START}EAA[MC]${ALNUM}{100,}${END}`),
  {
    // An app's access token: its id, `|`, its secret (gitleaks' facebook-access-token).
    // (`%7C` or `%`: the bar escaped in a URL, as gitleaks' facebook-access-token reads it.)
    ...rule('facebook-app-token', ['|'], `${START}\\d{15,16}(?:\\||%7C|%)[\\w-]{27,40}${END}`),
    anchor: { literal: '|', before: 16, after: 41 },
  },
  rule('pagarme-key', ['ak_live_'], `${START}ak_live_${ALNUM}{30}${END}`),
  rule('clickup-token', ['pk_'], `${START}pk_\\d{7,8}_[0-9A-Z]{32}${END}`),
  // Observability and productivity.
  rule(
    'new-relic-key',
    ['nrak-', 'nrii-', 'nrjs-', 'nraa-'],
    // User and admin keys in either case (semgrep's rule reads them so; New Relic writes them upper case).
    `${START}(?:NR(?:AK|AA)-[A-Za-z0-9]{27}|NRII-[\\w-]{32}|NRJS-${HEX}{19})${END}`,
  ),
  // dt0c01 (API tokens), dt0s01… (platform and OAuth): a letter and two digits, as secrets-patterns-db reads it.
  rule('dynatrace-token', ['dt0'], `${START}dt0[a-z]\\d{2}\\.${ALNUM}{24}\\.${ALNUM}{64}${END}`),
  rule(
    'grafana-token',
    ['glc_', 'glsa_', 'eyjrijoi'],
    `${START}(?:glc_[A-Za-z0-9+/]{32,400}={0,3}|glsa_${ALNUM}{32}_[A-Fa-f0-9]{8}|eyJrIjoi${ALNUM}{70,400}={0,3})`,
  ),
  rule('sentry-token', ['sntry'], `${START}sntry[us]_[A-Za-z0-9_+/=.-]{40,}`),
  prefixed('honeycomb-key', 'hcaik_', `${ALNUM}{58}`),
  rule('databricks-token', ['dapi'], `${START}dapi${HEX}{32}(?:-\\d)?${END}`),
  // Amazon MWS auth tokens (gitleaks' and semgrep's published rules).
  rule('amazon-mws-token', ['amzn.mws.'], `${START}amzn\\.mws\\.${UUID}${END}`),
  // More formats from gitleaks' and kingfisher's published rules: Airtable personal access tokens,
  // Buildkite, CircleCI personal and project tokens, Close CRM, Cloudflare Origin CA keys, ElevenLabs,
  // Ticket Tailor, Plaid access tokens, Twitter bearer tokens, and a PEM private key in base64.
  rule('airtable-pat', ['pat'], `${START}pat${ALNUM}{14}\\.${HEX}{64}${END}`),
  prefixed('buildkite-token', 'bkua_', `[a-z0-9]{40}`),
  rule('circleci-token', ['ccipat_', 'ccipjr_'], `${START}CCIP(?:AT|RJ)_${ALNUM}{22}_${HEX}{40}${END}`),
  rule('closecrm-key', ['api_'], `${START}api_${ALNUM}{25}\\.${ALNUM}{22}${END}`),
  prefixed('cloudflare-origin-ca-key', 'v1.0-', `${HEX}{24}-${HEX}{146}`),
  rule('elevenlabs-key', ['sk_'], `${START}sk_${HEX}{48}${END}`),
  rule('tickettailor-key', ['sk_'], `${START}sk_\\d{4}_\\d{6}_${HEX}{32}${END}`),
  rule('plaid-access-token', ['access-'], `${START}access-(?:sandbox|development|production)-${UUID}${END}`),
  rule('twitter-bearer-token', ['aaaaaaaaaaaaaaaaaaaaaa'], `${START}A{22}[A-Za-z0-9%]{80,100}${END}`),
  rule(
    'private-key-base64',
    ['ls0tls1crudjti'],
    `${START}LS0tLS1CRUdJTi[A-Za-z0-9+/]{0,40}?(?:UFJJVkFURSBLRV|QUklWQVRFIEtFW|BSSVZBVEUgS0VZ)[A-Za-z0-9+/]{20,}={0,2}`,
  ),
  // Formats from kingfisher's published rules (mongodb/kingfisher data/rules) that no rule here knew.
  prefixed('adafruit-key', 'aio_', `${ALNUM}{28}`),
  prefixed('cratesio-token', 'cio', `${ALNUM}{32}`),
  prefixed('dependency-track-key', 'odt_', `${ALNUM}{32,255}`),
  prefixed('digitalocean-refresh-token', 'dor_v1_', `${HEX}{64}`),
  prefixed('flexport-key', 'shltm_', `[\\w-]{40}`),
  prefixed('ionic-token', 'ion_', `[a-z0-9]{42}`),
  prefixed('mongodb-service-account-secret', 'mdb_sa_sk_', `[\\w-]{6}${ALNUM}{34}`),
  prefixed('nuget-key', 'oy2', `[a-z0-9]{43}`),
  prefixed('posthog-personal-key', 'phx_', `\\w{43}`),
  rule('stackhawk-key', ['hawk.'], `${START}hawk\\.[\\w-]{20}\\.[\\w-]{20}${END}`),
  rule('teamwork-token', ['tkn.v1_'], `${START}tkn\\.v1_${ALNUM}{71}=`),
  prefixed('ubidots-token', 'BBFF-', `${ALNUM}{30}`),
  rule('voiceflow-key', ['vf.'], `${START}VF\\.(?:(?:DM|WS)\\.)?[a-fA-F0-9]{24}\\.${ALNUM}{16}${END}`),
  rule('zoho-token', ['1000.'], `${START}1000\\.${HEX}{32}\\.${HEX}{32}${END}`),
  rule('fullstory-key', ['na1.'], `${START}na1\\.[A-Za-z0-9+/]{100}`),
  rule('doppler-token', ['dp.'], `${START}dp\\.(?:pt|st|sa|ct|scim|audit)\\.${ALNUM}{40,}`),
  rule('postman-key', ['pmak-'], `${START}PMAK-${HEX}{24}-${HEX}{34}${END}`, 'i'),
  prefixed('linear-key', 'lin_api_', `${ALNUM}{40}`),
  rule('atlassian-token', ['atatt3'], `${START}ATATT3[A-Za-z0-9_=-]{150,}`),
  prefixed('notion-token', 'ntn_', `\\d{11}${ALNUM}{35}`),
  rule('notion-secret', ['secret_'], `${START}secret_${ALNUM}{43}${END}`),
  prefixed('figma-token', 'figd_', `[\\w-]{40}`),
  rule('typeform-token', ['tfp_'], `${START}tfp_[\\w.=-]{59}${END}`),
  prefixed('readme-key', 'rdme_', `[a-z0-9]{70}`),
  rule('contentful-pat', ['cfpat-'], `${START}CFPAT-[\\w-]{43}${END}`),
  {
    ...rule('maxmind-key', ['_mmk'], `${START}${ALNUM}{6}_${ALNUM}{29}_mmk${END}`),
    anchor: { literal: '_mmk', before: 37, after: 5 },
  },
  prefixed('prefect-key', 'pnu_', `${ALNUM}{36}`),
  rule('settlemint-token', ['sm_'], `${START}sm_(?:aat|pat|sat)_${ALNUM}{16}${END}`),
  rule('tavily-key', ['tvly-'], `${START}tvly-(?:dev-|prod-)?${ALNUM}{32}${END}`),
  rule('vercel-token', ['vca_', 'vci_', 'vck_', 'vcp_', 'vcr_'], `${START}vc[aikpr]_${ALNUM}{24,}${END}`),
  rule('twitch-stream-key', ['live_'], `${START}live_\\d{6,12}_${ALNUM}{30}${END}`),
  rule(
    'thingsboard-token',
    ['thingsboard'],
    `thingsboard\\.cloud/api/v1/(?<secret>${ALNUM}{20})(?![A-Za-z0-9])`,
  ),
  rule('frameio-token', ['fio-u-'], `${START}fio-u-[\\w=-]{64}${END}`),
  rule('intra42-secret', ['s-s4t2'], `${START}s-s4t2(?:ud|af)-${HEX}{64}${END}`),
  rule('adobe-secret', ['p8e-'], `${START}p8e-${ALNUM}{32}${END}`),
  rule(
    'authress-key',
    ['.acc'],
    `${START}(?:sc|ext|scauth|authress)_[a-z0-9]{5,30}\\.[a-z0-9]{4,6}\\.acc[_-][a-z0-9-]{10,32}\\.[a-z0-9+/_=-]{30,120}`,
    'i',
  ),
  rule(
    'onepassword-secret-key',
    ['a3-'],
    `${START}A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}${END}`,
  ),
  rule('onepassword-service-token', ['ops_eyj'], `${START}ops_eyJ[A-Za-z0-9+/]{250,}={0,3}`),
  rule('mapbox-secret', ['sk.eyj'], `${START}sk\\.eyJ[\\w-]{20,}\\.[\\w-]{20,}`),
  rule('dropbox-token', ['sl.'], `${START}sl\\.[\\w=-]{130,140}${END}`),
  // A UUID, or its shape in small letters and digits with a 4 where a UUID's version is, as trufflehog's
  // launchdarkly detector reads it.
  rule(
    'launchdarkly-key',
    ['sdk-', 'api-'],
    `${START}(?:sdk|api)-(?:${UUID}|[a-z0-9]{8}-[a-z0-9]{4}-4[a-z0-9]{3}-[a-z0-9]{4}-[a-z0-9]{12})${END}`,
  ),
  // Formats from trufflehog's detectors (rootly, besttime), gitleaks' rules (sumologic-access-id,
  // finnhub-access-token) and secrets-patterns-db's (Pagerdutyapikey, Cloudflarecakey), each read as its
  // rule reads it: BestTime's private key within 40 characters after the word besttime, Sumo Logic's access
  // id and Finnhub's key in an assignment whose name holds the provider's word (an `_id` name says nothing
  // of a value elsewhere), PagerDuty's and Cloudflare's keys within 40 characters after the provider's name.
  prefixed('rootly-key', 'rootly_', `${HEX}{64}`),
  rule('besttime-key', ['besttime'], `besttime[\\s\\S]{0,40}?${START}(?<secret>pri_${HEX}{32})${END}`, 'i'),
  named('sumologic-access-id', 'sumo', '(?:[Ss]umo|SUMO)', 'su[a-zA-Z0-9]{12}'),
  named('finnhub-token', 'finnhub', 'finnhub', '[a-z0-9]{20}', 'i'),
  rule(
    'pagerduty-key',
    ['pagerduty'],
    `(?:[Pp]ager[Dd]uty|PAGERDUTY)[^\\n]{0,40}?${START}(?<secret>[a-z]\\+[a-zA-Z]{9}-[a-z]{2}-[a-z0-9]{5})${END}`,
  ),
  // The key taken whole by a lookahead and a backreference (no backtracking into it), from a run's start.
  rule(
    'cloudflare-key-named',
    ['cloudflare'],
    `cloudflare[^\\n]{0,40}?(?<![A-Za-z0-9._-])(?=(?<secret>v[A-Za-z0-9._-]{173,1000}))\\k<secret>(?![A-Za-z0-9._-])`,
    'i',
  ),
  // trufflehog's keenio, metaapi, websitepulse and cloudmersive detectors: the service's name, then its key.
  afterWord('keenio-key', ['keen'], '[0-9A-Z]{64}'),
  afterWord('metaapi-key', ['metaapi', 'meta-api'], `${HEX}{64}`),
  afterWord('websitepulse-key', ['websitepulse'], `${HEX}{32}`),
  afterWord('cloudmersive-key', ['cloudmersive'], '[a-z0-9-]{36}'),
  // semgrep's detected-onfido-live-api-token: api_live (a region after it or not), 11, then 32 characters.
  rule(
    'onfido-live-token',
    ['api_live'],
    `${START}api_live(?:_[a-zA-Z]{2})?\\.[\\w-]{11}\\.[\\w-]{32}${END}`,
  ),
  // kingfisher's eventbrite rule: the word, a secret's word within 32 characters (lines included), and
  // within 32 more a key of 20 letters and digits (here whole: not the start of a longer run).
  rule(
    'eventbrite-key',
    ['eventbrite'],
    `eventbrite[\\s\\S]{0,32}?(?:secret|private|access|key|token)[\\s\\S]{0,32}?(?<![A-Za-z0-9_])(?<secret>[0-9A-Z]{20})(?![A-Za-z0-9_])`,
    'i',
  ),
  rule('okta-ssws', ['ssws'], `SSWS\\s{1,3}(?<secret>00[\\w=-]{40})${END}`),
  // Tokens in standard formats.
  // The signature is optional, as in gitleaks' rule: an unsigned token (`alg: none`) is accepted by some
  // servers all the same.
  // Without its last dot too (jwt.io's example cut after the payload, `eyJhbGci….eyJzdWIi…`): two
  // base64url parts that each open a JSON object are a token's header and claims.
  rule(
    'jwt',
    ['eyj'],
    `${START}eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}(?:\\.(?:[A-Za-z0-9_-]{8,})?|(?<=\\.eyJ[A-Za-z0-9_-]{16,})${END})`,
  ),
  // A JWT in base64 once more (gitleaks' jwt-base64): `eyJ` encodes to `ZXlK`.
  rule('jwt-base64', ['zxlk'], `${START}ZXlK[A-Za-z0-9+/]{60,}={0,2}`),
];
