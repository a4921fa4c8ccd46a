/** Environment variables that carry credentials: never passed to `bash`, never logged, scrubbed from transcripts. */
export const SECRET_ENV_PATTERN =
  /(API_KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|PRIVATE_KEY|ACCESS_KEY)/i;

/** Prefixes of variables that belong to the harness (or its runtime) and are not the workload's business. */
export const HARNESS_ENV_PREFIXES = [
  'NIGHTSHIFT_',
  'REDIS_',
  'ANTHROPIC_',
  'OPENAI_',
  'AWS_',
  'GOOGLE_',
  'AZURE_',
  'GITHUB_',
  'GH_',
  'NPM_CONFIG_',
  'npm_',
  'VITEST',
  'NODE_OPTIONS',
  'SSH_',
  'GIT_',
];

/** True when the variable must not reach a sandboxed command. */
export function isHarnessOrSecretVariable(name: string): boolean {
  return SECRET_ENV_PATTERN.test(name) || HARNESS_ENV_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/** The secret values present in an environment (long enough to be worth redacting). */
export function secretValues(env: NodeJS.ProcessEnv = process.env): string[] {
  return Object.entries(env)
    .filter(([name, value]) => value && value.length >= 8 && SECRET_ENV_PATTERN.test(name))
    .map(([, value]) => value as string);
}

/** Replaces every occurrence of each secret value in `text` with `[redacted]`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && out.includes(secret)) out = out.split(secret).join('[redacted]');
  }
  return out;
}

/** Shortest base64 fragment worth matching: shorter ones would hit ordinary text by chance. */
const MIN_ENCODED_LENGTH = 12;

/**
 * The base64 forms a secret can take inside a larger base64 text: for each of the three byte alignments,
 * the characters that depend only on the secret's own bytes (standard and URL-safe alphabets).
 */
export function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = new Set<string>();
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    // Skip the first group when it mixes in padding bytes, and the last when it mixes in what follows.
    const start = offset === 0 ? 0 : 4;
    const end = Math.floor((offset + bytes.length) / 3) * 4;
    const inner = encoded.slice(start, end);
    if (inner.length < MIN_ENCODED_LENGTH) continue;
    forms.add(inner);
    forms.add(inner.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...forms];
}

/** What to look for in outgoing text: every secret plain and in its base64 forms, longest first. */
export function outgoingNeedles(secrets: readonly string[]): string[] {
  const needles = new Set<string>();
  for (const secret of secrets) {
    if (!secret || secret.length < 8) continue;
    needles.add(secret);
    for (const form of base64Forms(secret)) needles.add(form);
  }
  return [...needles].sort((a, b) => b.length - a.length);
}

/** `text` with every needle replaced by `[redacted]`, and how many replacements were made. */
export function redactNeedles(text: string, needles: readonly string[]): { text: string; count: number } {
  let out = text;
  let count = 0;
  for (const needle of needles) {
    if (!out.includes(needle)) continue;
    const parts = out.split(needle);
    count += parts.length - 1;
    out = parts.join('[redacted]');
  }
  return { text: out, count };
}
