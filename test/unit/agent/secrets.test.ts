/** Defence in depth: the harness's secret values never reach the model, plain or base64-encoded. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../../agent/loop.js';
import { TranscriptWriter } from '../../../agent/transcript.js';
import { base64Forms, outgoingNeedles, redactNeedles } from '../../../core/secrets.js';
import { createFakeProvider } from '../../../testkit/fake-provider.js';
import { eventsOf, loopOptions, recordingTool } from './helpers.js';

const KEY = 'sk-ant-api03-Zx81QmPq0rLw7TtY';

describe('base64 forms of a secret', () => {
  it('are found whatever byte the secret starts at inside a larger encoded text', () => {
    const needles = outgoingNeedles([KEY]);
    for (const prefix of ['', 'a', 'ab', 'abc', 'env: OPENAI=']) {
      const encoded = Buffer.from(`${prefix}${KEY} and more`).toString('base64');
      expect(redactNeedles(encoded, needles).count).toBe(1);
      const urlSafe = encoded.replace(/\+/g, '-').replace(/\//g, '_');
      expect(redactNeedles(urlSafe, needles).count).toBe(1);
    }
  });

  it('are long enough not to match ordinary text', () => {
    for (const form of base64Forms(KEY)) expect(form.length).toBeGreaterThanOrEqual(12);
    expect(outgoingNeedles(['short'])).toEqual([]);
  });
});

describe('outgoing text', () => {
  it('is redacted in the first message, tool results, notes and the system prompt, with an event each', async () => {
    const encoded = Buffer.from(`OPENAI_API_KEY=${KEY}\n`).toString('base64');
    const snapshot = recordingTool(
      'browser_snapshot',
      () => `- text "${KEY}"\n- img src=data:;base64,${encoded}`,
    );
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ns-secrets-')), 't.jsonl');
    const provider = createFakeProvider([{ toolCalls: [{ name: 'browser_snapshot' }] }, { text: 'done' }]);
    let turn = 0;
    const options = loopOptions(provider, [snapshot.tool], {
      system: `Never print ${KEY}.`,
      firstMessage: `The app's env has ${KEY}.`,
      secrets: [KEY],
      transcript: new TranscriptWriter(file, []),
      hooks: { beforeTurn: () => (turn++ === 1 ? { note: `Key was ${KEY}` } : {}) },
    });
    await runAgent(options);
    const sent = JSON.stringify(provider.requests);
    expect(sent).not.toContain(KEY);
    for (const form of base64Forms(KEY)) expect(sent).not.toContain(form);
    expect(sent).toContain('[redacted]');
    // The transcript is written without a redaction list here: it holds only what was sent.
    expect(fs.readFileSync(file, 'utf8')).not.toContain(KEY);
    const where = eventsOf(options.events, 'secret.redacted').map((event) => [event.where, event.count]);
    expect(where).toEqual([
      ['system', 1],
      ['first_message', 1],
      ['tool_result:browser_snapshot', 2],
      ['note', 1],
    ]);
    expect(JSON.stringify(options.events)).not.toContain(KEY);
  });

  it('leaves text without secrets byte for byte as it was', async () => {
    const provider = createFakeProvider([{ text: 'done' }]);
    const options = loopOptions(provider, [], { secrets: [KEY], firstMessage: 'Nothing secret here.' });
    await runAgent(options);
    expect(provider.requests[0]?.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Nothing secret here.' }] },
    ]);
    expect(eventsOf(options.events, 'secret.redacted')).toEqual([]);
  });
});
