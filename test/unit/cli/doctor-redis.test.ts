import { describe, expect, it } from 'vitest';
import { checkApiKeys, checkNode, formatDoctorReport } from '../../../cli/doctor.js';
import { maskUrl, redisOptionsFromUrl } from '../../../cli/redis-probe.js';
import { loadConfig } from '../../../orchestrator/config.js';

describe('doctor checks', () => {
  it('requires Node 20 or newer', () => {
    expect(checkNode('20.1.0').status).toBe('ok');
    expect(checkNode('22.0.0').status).toBe('ok');
    expect(checkNode('18.19.0')).toMatchObject({ status: 'fail', fix: 'Install Node 20 or newer.' });
  });

  it('says set / not set for API keys, never the value, and warns only for providers the models use', () => {
    const config = loadConfig({ cwd: '/', env: { NIGHTSHIFT_HOME: '/tmp/x' } }).config;
    const both = checkApiKeys(
      { ANTHROPIC_API_KEY: 'sk-ant-secret', OPENAI_API_KEY: 'sk-oai-secret' },
      config,
    );
    expect(both).toEqual({
      name: 'api keys',
      status: 'ok',
      detail: 'ANTHROPIC_API_KEY set, OPENAI_API_KEY set; the configured models need no other key',
      fix: null,
    });
    const openaiOnly = checkApiKeys({ OPENAI_API_KEY: 'sk-oai-secret' }, config);
    expect(openaiOnly.status).toBe('warn');
    expect(openaiOnly.detail).toContain('the configured models need ANTHROPIC_API_KEY');
    expect(JSON.stringify(openaiOnly)).not.toContain('sk-oai-secret');
    const openaiModels = {
      ...config,
      run: {
        ...config.run,
        models: { initializer: 'openai:gpt-5.1', generator: 'openai:gpt-5.1', evaluator: 'openai:gpt-5.1' },
      },
    };
    expect(checkApiKeys({ OPENAI_API_KEY: 'x' }, openaiModels).status).toBe('ok');
    expect(checkApiKeys({ ANTHROPIC_API_KEY: '  ' }, config).detail).toContain('ANTHROPIC_API_KEY not set');
  });

  it('formats a report with marks, fixes and a count', () => {
    const text = formatDoctorReport({
      ok: false,
      checks: [
        { name: 'git', status: 'ok', detail: 'git version 2.39.5', fix: null },
        { name: 'chromium', status: 'fail', detail: 'no executable at /x', fix: 'Install it.' },
      ],
    });
    expect(text.split('\n')).toEqual([
      'ok    git       git version 2.39.5',
      'FAIL  chromium  no executable at /x',
      '                → Install it.',
      '',
      '1 failed, 0 warning(s), 1 ok',
    ]);
  });
});

describe('redis URLs', () => {
  it('turns a URL into BullMQ connection options', () => {
    expect(redisOptionsFromUrl('redis://user:p%40ss@db.example:6380/2')).toEqual({
      host: 'db.example',
      port: 6380,
      username: 'user',
      password: 'p@ss',
      db: 2,
      maxRetriesPerRequest: null,
    });
    expect(redisOptionsFromUrl('rediss://h')).toMatchObject({ host: 'h', port: 6379, db: 0, tls: {} });
  });

  it('masks the password in messages', () => {
    expect(maskUrl('redis://:secret@h:1')).toBe('redis://:***@h:1');
    expect(maskUrl('redis://h:1')).toBe('redis://h:1');
  });
});
