import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { outgoingNeedles, redactNeedles } from '../../../core/secrets.js';
import { saveRemoteCredential } from '../../../handoff/remote-credentials.js';
import { NightshiftConfig, RunConfig } from '../../../orchestrator/config.js';
import { harnessSecrets, runSecrets } from '../../../orchestrator/harness-secrets.js';
import type { RunRecord } from '../../../orchestrator/run/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function home(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ns-harness-secrets-'));
  dirs.push(dir);
  return dir;
}

const SLACK = 'https://hooks.slack.com/services/T000/B000/XXXXsecretXXXXpath';

describe('the secrets the harness holds', () => {
  it('are every kind: environment keys, keys the config names, the dashboard token, URL passwords, webhooks, remote credentials', async () => {
    const dataDir = home();
    await saveRemoteCredential(dataDir, 'https://h/r.git', { username: 'bot', password: 'stored-token-1' });
    const config = NightshiftConfig.parse({
      dataDir,
      redisUrl: 'redis://:redis-pass-word@127.0.0.1:6379',
      dashboard: { token: 'dashboard-token-0123456789' },
      openaiCompatible: { local: { baseURL: 'http://127.0.0.1:8000/v1', apiKeyEnv: 'LOCAL_LLM' } },
      run: { notifications: { webhooks: [{ url: SLACK, format: 'slack' }] } },
    });
    const env = {
      ANTHROPIC_API_KEY: 'sk-ant-env-key-123',
      LOCAL_LLM: 'a-key-whose-variable-name-says-nothing',
      OPENAI_BASE_URL: 'https://proxy-user:proxy-pass-99@proxy.example/v1',
      NIGHTSHIFT_GIT_CREDENTIALS: 'https://other:env-token-22@h2/',
      PATH: '/usr/bin',
    };
    const secrets = await harnessSecrets({ env, config, home: dataDir });
    for (const value of [
      'sk-ant-env-key-123',
      'a-key-whose-variable-name-says-nothing',
      'dashboard-token-0123456789',
      'redis-pass-word',
      'proxy-pass-99',
      SLACK,
      '/services/T000/B000/XXXXsecretXXXXpath',
      'stored-token-1',
      'env-token-22',
      Buffer.from('bot:stored-token-1').toString('base64'),
    ]) {
      expect(secrets, value).toContain(value);
    }
    expect(secrets).not.toContain('/usr/bin');
    // And the outgoing scan finds them, e.g. the webhook's path on its own, wrapped.
    const { count } = redactNeedles(
      'posting to /services/T000/B000/\nXXXXsecretXXXXpath',
      outgoingNeedles(secrets),
    );
    expect(count).toBe(1);
  });

  it('of one run: its webhooks and its remote credential, found harness-side by the masked URL', async () => {
    const dataDir = home();
    await saveRemoteCredential(dataDir, 'https://h/r.git', { username: 'bot', password: 'run-token-777' });
    const run = {
      workspace: { kind: 'remote', url: 'https://***@h/r.git', branch: 'main' },
      config: RunConfig.parse({
        notifications: { webhooks: [{ url: 'https://example.com/hook/abcdef123456', format: 'json' }] },
      }),
    } as unknown as RunRecord;
    expect(await runSecrets(run, dataDir, {})).toEqual([
      'https://example.com/hook/abcdef123456',
      '/hook/abcdef123456',
      'run-token-777',
      Buffer.from('bot:run-token-777').toString('base64'),
    ]);
  });
});
