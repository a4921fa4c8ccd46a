/**
 * Every secret the harness holds, for the outgoing scan (agent/session.ts) and the redaction of transcripts
 * and events — not only the environment's `*_KEY`/`*TOKEN*` variables: the keys of the variables the config names
 * (`openaiCompatible.*.apiKeyEnv`), the dashboard token, webhook URLs (a Slack webhook's path is its secret),
 * passwords in the Redis and provider URLs, and the credentials of remotes (handoff/remote-credentials.ts).
 */
import { secretValues } from '../core/secrets.js';
import { harnessRemoteCredentials } from '../handoff/remote-credentials.js';
import { credentialSecrets } from '../handoff/remote-url.js';
import type { NightshiftConfig } from './config.js';
import type { RunRecord } from './run/run-state.js';

/** Shortest secret worth redacting (shorter ones would hit ordinary text). */
const MIN_SECRET = 8;

/** The secret parts of a URL: the password (or a lone user name, a token), and for a webhook the whole URL and path. */
export function urlSecrets(url: string, options: { whole?: boolean } = {}): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  const values = [password !== '' ? password : user];
  if (options.whole) values.push(url, `${parsed.pathname}${parsed.search}`);
  return values.filter((value) => value.length >= MIN_SECRET);
}

/** What {@link harnessSecrets} reads. */
export interface HarnessSecretsInput {
  env: NodeJS.ProcessEnv;
  config: NightshiftConfig;
  /** The data dir (its credential file). */
  home: string;
}

/** Every secret value the harness process holds (deduplicated). */
export async function harnessSecrets(input: HarnessSecretsInput): Promise<string[]> {
  const { env, config } = input;
  const values = [...secretValues(env)];
  for (const server of Object.values(config.openaiCompatible)) {
    const key = server.apiKeyEnv ? env[server.apiKeyEnv] : undefined;
    if (key) values.push(key);
    values.push(...urlSecrets(server.baseURL));
  }
  if (config.dashboard.token) values.push(config.dashboard.token);
  for (const url of [config.redisUrl, env.REDIS_URL, env.ANTHROPIC_BASE_URL, env.OPENAI_BASE_URL]) {
    if (url) values.push(...urlSecrets(url));
  }
  for (const webhook of config.run.notifications.webhooks)
    values.push(...urlSecrets(webhook.url, { whole: true }));
  for (const credential of await harnessRemoteCredentials(input.home, env).all()) {
    values.push(...credentialSecrets(credential));
  }
  return [...new Set(values.filter((value) => value.length >= MIN_SECRET))];
}

/**
 * The secrets one session adds to its worker's: the run's own webhooks and the credential of its remote (the
 * worker may have started before the run was given one).
 */
export async function runSecrets(
  run: RunRecord,
  home: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string[]> {
  const values = run.config.notifications.webhooks.flatMap((webhook) =>
    urlSecrets(webhook.url, { whole: true }),
  );
  if (run.workspace.kind === 'remote') {
    const credential = await harnessRemoteCredentials(home, env).find(run.workspace.url);
    if (credential) values.push(...credentialSecrets(credential));
  }
  return values;
}
