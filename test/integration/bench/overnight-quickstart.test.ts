// The overnight bench's quickstart-style loop, for real: the agent loop, git, bash and the simulated model over
// HTTP, 3 todo features. Seed 15's schedule breaks the start on F-001's first try (the loop's own curl check sees
// it and the next session repairs it) and leaves F-003 half done (its page module never registered), which a curl
// self-check cannot see: the loop claims all three, and the judge of the final code finds F-003 broken.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OVERNIGHT_EXAMPLES } from '../../../bench/overnight-examples.js';
import { buildWithQuickstart } from '../../../bench/overnight-quickstart.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ns-overnight-quickstart-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('the quickstart-style loop', () => {
  it('repairs what its self-check sees, and claims a half-done feature its self-check cannot see', async () => {
    const build = await buildWithQuickstart({
      example: OVERNIGHT_EXAMPLES.todo,
      seed: 15,
      compression: 200,
      features: 3,
      dir: path.join(root, 'ws'),
    });
    const story = JSON.stringify(build);
    expect(build.mistakesMade.appDoesNotStart, story).toBe(1);
    expect(build.mistakesMade.halfDone, story).toBe(1);
    expect(build.failedEvaluations, story).toBeGreaterThanOrEqual(1);
    // Initializer, F-001 twice (broken start, then its repair), F-002, F-003.
    expect(build.sessions, story).toBe(5);
    expect(build.claimedPassing, story).toBe(3);
    expect(build.passing, story).toBe(2);
    expect(build.falsePasses, story).toBe(1);
    expect(build.costUsd).toBeGreaterThan(0);
    expect(build.projectedWallMs).toBeGreaterThan(build.measuredWallMs);
    expect(build.phases.modelWait).toBeGreaterThan(0);
  }, 300_000);
});
