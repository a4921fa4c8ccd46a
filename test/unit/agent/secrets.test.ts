/** Defence in depth: the harness's secret values never reach the model, plain or base64-encoded. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../../agent/loop.js';
import { TranscriptWriter } from '../../../agent/transcript.js';
import { base64Forms, outgoingNeedles, redactNeedles, redactSecrets } from '../../../core/secrets.js';
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

describe('encodings and wrapping (issue 24)', () => {
  const TOKEN = 'ghp_R3alLooking70kenValue42';
  const needles = outgoingNeedles([TOKEN]);
  const redacted = (text: string) => redactNeedles(text, needles);
  const wrap = (text: string, width: number) =>
    text.match(new RegExp(`.{1,${width}}`, 'g'))?.join('\n') ?? '';

  it.each([
    ['plain', `token=${TOKEN};`],
    ['split over lines (fold -w 10)', wrap(`export T=${TOKEN}`, 10)],
    ['indented continuation lines', `${TOKEN.slice(0, 9)}\n      ${TOKEN.slice(9)}`],
    ['CRLF in the middle', `${TOKEN.slice(0, 5)}\r\n${TOKEN.slice(5)}`],
    [
      'base64 wrapped at 76 columns',
      wrap(Buffer.from(`${'x'.repeat(45)}${TOKEN}${'y'.repeat(90)}`).toString('base64'), 76),
    ],
    ['URL-safe base64', Buffer.from(`??>${TOKEN}`).toString('base64url')],
    ['hex (xxd -p, wrapped at 60)', wrap(Buffer.from(`T=${TOKEN}\n`).toString('hex'), 60)],
    ['HEX', Buffer.from(TOKEN).toString('hex').toUpperCase()],
    ['reversed (rev)', `${[...TOKEN].reverse().join('')}=T`],
  ])('is found %s', (_, text) => {
    const result = redacted(text);
    expect(result.count).toBeGreaterThanOrEqual(1);
    expect(result.text).toContain('[redacted]');
    // What remains does not hold the secret in any form the scan knows.
    expect(redactNeedles(result.text, needles).count).toBe(0);
  });

  it('is found URL-encoded (a password with reserved characters, as it stands in a URL)', () => {
    const password = 'p@ss:w0rd/with+chars';
    const text = `https://user:${encodeURIComponent(password)}@host/repo.git`;
    expect(redactNeedles(text, outgoingNeedles([password])).text).toBe(
      'https://user:[redacted]@host/repo.git',
    );
  });

  it('keeps the text around it, and leaves ordinary text (hex hashes, base64 images, prose) alone', () => {
    expect(redacted(`a ${TOKEN.slice(0, 4)}\n${TOKEN.slice(4)} b`).text).toBe('a [redacted] b');
    const ordinary = [
      'commit 3f2a9c0d1e4b5a6978877665544332211aabbccd',
      `data:image/png;base64,${Buffer.from('an image that is not a secret at all').toString('base64')}`,
      'The evaluator clicked "Add" and saw 3 items.\n  - item one\n  - item two',
    ].join('\n');
    expect(redacted(ordinary)).toEqual({ text: ordinary, count: 0 });
  });

  it('redacts two secrets written side by side, and transcripts and events with the same forms', () => {
    const other = 'sk-proj-AnotherSecretValue99';
    const both = outgoingNeedles([TOKEN, other]);
    expect(redactNeedles(`${TOKEN}${other}`, both).text).toBe('[redacted][redacted]');
    const hex = Buffer.from(TOKEN).toString('hex');
    expect(redactSecrets(`{"result":"${hex.slice(0, 20)}\\n${hex.slice(20)}"}`, [TOKEN])).not.toContain(
      hex.slice(20),
    );
  });
});
