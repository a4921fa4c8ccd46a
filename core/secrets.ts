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
