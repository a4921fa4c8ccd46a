import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTranscript } from '../../../agent/transcript.js';
import type { FeatureList } from '../../../handoff/formats.js';
import { FeatureWriterFailedError, runFeatureWriter } from '../../../roles/feature-writer.js';
import { demoPolicy } from '../../../testkit/policies/demo.js';
import { TODO_FEATURES } from '../../../testkit/policies/todo-features.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';
import { FLAVOURS, type Flavour, providerFor } from '../providers/helpers.js';

// The feature writer of `nightshift add` through the real SDKs against the scripted server (both wire formats): a
// slip is sent back with the exact problem and the fixed entry is accepted; a writer that never gets it right ends,
// after the bounded refusals, with a FeatureWriterFailedError naming the last problems.
let server: ModelServer;
let dataDir: string;
beforeAll(async () => {
  server = await startModelServer({ policy: demoPolicy });
  dataDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ns-writer-')));
});
afterAll(async () => {
  await server.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The todo example's first two features, as a run's list holds them (F-001 passing). */
const LIST: FeatureList = TODO_FEATURES.slice(0, 2).map((feature, index) => ({
  id: `F-00${index + 1}`,
  category: feature.category,
  description: feature.description,
  steps: feature.steps,
  passes: index === 0,
}));
const COMPLETE = TODO_FEATURES.find((feature) => feature.check === 'complete');

let writers = 0;
function write(flavour: Flavour, request: string) {
  return runFeatureWriter({
    runId: 'r-writer',
    request,
    features: LIST,
    provider: providerFor(flavour, server),
    prices: { [providerFor(flavour, server).id]: { inputPerMTok: 3, outputPerMTok: 15 } },
    dataDir,
    writerId: `w${++writers}`,
  });
}

describe.each(FLAVOURS)('the feature writer over the %s wire format', (flavour) => {
  it('is told what is wrong with its entry, fixes it, and the entry joins the list as F-003', async () => {
    const written = await write(flavour, 'Let people tick a todo off with its checkbox [scripted:sloppy]');
    expect(written.feature).toEqual({
      id: 'F-003',
      category: COMPLETE?.category,
      description: COMPLETE?.description,
      steps: COMPLETE?.steps,
      passes: false,
      depends_on: ['F-001', 'F-002'],
    });
    expect(written.refusals).toEqual([
      ['depends_on: F-999 is not a feature of this run (its features: F-001…F-002)'],
    ]);
    expect(written.costUsd).toBeGreaterThan(0);
    // What the model was told after its slip: the problem and the attempts left.
    const results = readTranscript(written.transcript).lines.flatMap((line) =>
      line.kind === 'message'
        ? (line.message.content as Array<{ type: string; content?: unknown }>)
            .filter((block) => block.type === 'tool_result')
            .map((block) => String(block.content))
        : [],
    );
    expect(results[0]).toContain('The entry was refused (1 of 3 attempts):\n- depends_on: F-999');
    expect(results[1]).toBe('Accepted as F-003. The session ends here.');
  });

  it('ends without an entry after three refused ones, naming the last problems', async () => {
    const error = await write(flavour, 'Something impossible [scripted:invalid]').catch((caught) => caught);
    expect(error).toBeInstanceOf(FeatureWriterFailedError);
    expect((error as FeatureWriterFailedError).refusals).toHaveLength(3);
    expect((error as Error).message).toBe(
      'No feature was added: the feature was refused 3 times; last problems: steps: needs at least one step a person can check in a browser; nothing changed.',
    );
  });
});
