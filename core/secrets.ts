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

/**
 * Replaces every occurrence of each secret value in `text` with `[redacted]`, in any of the forms the outgoing
 * scan knows ({@link outgoingNeedles}: plain, base64, hex, reversed, URL-encoded, across line breaks).
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  return redactNeedles(text, needlesOf(secrets)).text;
}

const needleCache = new WeakMap<readonly string[], string[]>();

/** The needles of a secret list, computed once per list (transcripts and events redact every line). */
function needlesOf(secrets: readonly string[]): string[] {
  let needles = needleCache.get(secrets);
  if (!needles) {
    needles = outgoingNeedles(secrets);
    needleCache.set(secrets, needles);
  }
  return needles;
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

/**
 * What to look for in outgoing text: every secret plain, reversed (`rev`), in hex (lower and upper case, `xxd -p`),
 * URL-encoded and in its base64 forms, without whitespace (text is matched with its whitespace removed, so a secret
 * wrapped over lines — `base64` at 76 columns, `fold` — is found too), longest first.
 */
export function outgoingNeedles(secrets: readonly string[]): string[] {
  const needles = new Set<string>();
  for (const secret of secrets) {
    if (!secret || secret.length < 8) continue;
    const hex = Buffer.from(secret, 'utf8').toString('hex');
    const forms = [
      secret,
      [...secret].reverse().join(''),
      hex,
      hex.toUpperCase(),
      encodeURIComponent(secret),
    ];
    for (const form of [...forms, ...base64Forms(secret)]) {
      const compact = form.replace(/\s+/g, '');
      if (compact.length >= 8) needles.add(compact);
    }
  }
  return [...needles].sort((a, b) => b.length - a.length);
}

/**
 * What matching skips: whitespace (line breaks, indentation) and the escaped line breaks and tabs of JSON text
 * (`\n`), so a wrapped secret, or a transcript line holding one, matches like the text it holds.
 */
const SKIPPED = /\s|\\[nrt]/g;

/** Where each character of `text` without {@link SKIPPED} was in `text`. */
function compactPositions(text: string): Int32Array {
  const at = new Int32Array(text.length);
  let length = 0;
  let cursor = 0;
  for (const skipped of text.matchAll(SKIPPED)) {
    for (let index = cursor; index < skipped.index; index++) at[length++] = index;
    cursor = skipped.index + skipped[0].length;
  }
  for (let index = cursor; index < text.length; index++) at[length++] = index;
  return at.subarray(0, length);
}

/**
 * `text` with every needle replaced by `[redacted]`, and how many replacements were made. Needles are matched
 * across whitespace (line breaks, indentation): the span from a match's first to its last character is replaced.
 */
export function redactNeedles(text: string, needles: readonly string[]): { text: string; count: number } {
  if (needles.length === 0 || text.length === 0) return { text, count: 0 };
  const compact = text.replace(SKIPPED, '');
  // Nearly every text holds no secret: one native pass and a search per needle, no position map.
  if (!needles.some((needle) => compact.includes(needle))) return { text, count: 0 };
  const at = compactPositions(text);
  const spans: Array<[number, number]> = [];
  for (const needle of needles) {
    for (
      let from = compact.indexOf(needle);
      from !== -1;
      from = compact.indexOf(needle, from + needle.length)
    ) {
      spans.push([at[from] as number, (at[from + needle.length - 1] as number) + 1]);
    }
  }
  if (spans.length === 0) return { text, count: 0 };
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  let out = '';
  let cursor = 0;
  let count = 0;
  for (const [start, end] of spans) {
    if (start < cursor) {
      // Overlaps a span already replaced (a shorter form, or two secrets side by side): the redaction grows.
      cursor = Math.max(cursor, end);
      continue;
    }
    out += `${text.slice(cursor, start)}[redacted]`;
    cursor = end;
    count++;
  }
  return { text: out + text.slice(cursor), count };
}
