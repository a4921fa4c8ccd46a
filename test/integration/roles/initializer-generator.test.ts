import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordedCheck } from '../../../checks/format.js';
import { writeCheck } from '../../../checks/store.js';
import { readFeatureList } from '../../../handoff/feature-list.js';
import { checkpoint, isClean, openRepo, runGit } from '../../../handoff/git.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';
import {
  lastUserText,
  makeWorkspace,
  removeWorkspace,
  runSession,
  TWO_FEATURES,
  turnOf,
} from './role-helpers.js';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer({ policy: () => ({ text: 'idle' }) });
});
afterAll(() => server.close());

const INIT_SH = '#!/usr/bin/env bash\nexec node server.js # listens on $PORT\n';

describe('initializer', () => {
  it('gets the exact validation error back, corrects its feature list, and the harness assigns ids and commits', async () => {
    const { workspace, dataDir } = await makeWorkspace({ 'app_spec.md': '# Todo app\nA list of todos.\n' });
    const corrections: string[] = [];
    server.setPolicy((conversation) => {
      const turn = turnOf(conversation);
      if (turn === 0) {
        const invalid = [
          { ...TWO_FEATURES[0], passes: true },
          { ...TWO_FEATURES[1], steps: [] },
        ];
        return {
          toolCalls: [
            { name: 'write', arguments: { path: 'feature_list.json', content: JSON.stringify(invalid) } },
            { name: 'write', arguments: { path: 'init.sh', content: INIT_SH } },
            { name: 'write', arguments: { path: 'progress.md', content: '# Progress\n' } },
            { name: 'commit', arguments: { message: 'init' } },
          ],
        };
      }
      if (turn === 1) return { text: 'Done.' };
      corrections.push(lastUserText(conversation));
      if (turn === 2) {
        return {
          toolCalls: [
            {
              name: 'write',
              arguments: { path: 'feature_list.json', content: JSON.stringify(TWO_FEATURES, null, 2) },
            },
            { name: 'commit', arguments: { message: 'fix feature list' } },
          ],
        };
      }
      return { text: 'Fixed.' };
    });
    const result = await runSession(server, { role: 'initializer', workspace, dataDir, featureIds: [] });
    expect(result.outcome).toBe('completed');
    expect(corrections[0]).toMatch(/\[0\]\.passes: must be false/);
    expect(corrections[0]).toMatch(/\[1\]\.steps: each feature needs at least one step/);
    const list = await readFeatureList(workspace);
    expect(list.map((feature) => feature.id)).toEqual(['F-001', 'F-002']);
    expect(list.every((feature) => !feature.passes)).toBe(true);
    expect(fs.statSync(path.join(workspace, 'init.sh')).mode & 0o111).not.toBe(0);
    expect(await isClean(openRepo(workspace))).toBe(true);
    expect(result.commits.length).toBeGreaterThanOrEqual(2);
    removeWorkspace(workspace);
  });

  it('fails with the validation error when the model never fixes its output', async () => {
    const { workspace, dataDir } = await makeWorkspace({ 'app_spec.md': '# Spec\n' });
    server.setPolicy((conversation) =>
      turnOf(conversation) === 0
        ? { toolCalls: [{ name: 'write', arguments: { path: 'feature_list.json', content: '[]' } }] }
        : { text: 'I am done.' },
    );
    const result = await runSession(server, { role: 'initializer', workspace, dataDir, featureIds: [] });
    expect(result.outcome).toBe('failed');
    expect(result.reason).toMatch(/has 0 features; at least 1 are needed/);
    expect(result.reason).toMatch(/init\.sh is missing/);
    removeWorkspace(workspace);
  });
});

async function builtWorkspace() {
  const list = TWO_FEATURES.map((feature, index) => ({ id: `F-00${index + 1}`, ...feature }));
  return makeWorkspace({
    'app_spec.md': '# Todo\n',
    'feature_list.json': `${JSON.stringify(list, null, 2)}\n`,
    'init.sh': INIT_SH,
    'progress.md': '# Progress\n\n## Session 0\nSkeleton in place.\n',
    'server.js': '// app\n',
  });
}

describe('generator', () => {
  it('is orientated by the harness: the first message has the feature id, description, progress and git log', async () => {
    const { workspace, dataDir } = await builtWorkspace();
    let first = '';
    server.setPolicy((conversation) => {
      const turn = turnOf(conversation);
      if (turn === 0) {
        const message = conversation.messages[0];
        first = message?.content.map((block) => (block.type === 'text' ? block.text : '')).join('') ?? '';
        return {
          toolCalls: [
            { name: 'write', arguments: { path: 'server.js', content: '// app with add\n' } },
            { name: 'commit', arguments: { message: 'F-001: add' } },
          ],
        };
      }
      return { text: 'Done.' };
    });
    const result = await runSession(server, { role: 'generator', workspace, dataDir, featureIds: ['F-001'] });
    expect(result.outcome).toBe('completed');
    expect(first).toContain('F-001: Add a todo');
    expect(first).toContain('Skeleton in place.');
    expect(first).toMatch(/Recent commits\n[0-9a-f]{7,} nightshift\(harness\)/);
    expect(first).toContain('server.js');
    removeWorkspace(workspace);
  });

  it('is shown its sprint contract: the evaluator’s steps and, after an earlier pass, its recorded check', async () => {
    const { workspace, dataDir } = await builtWorkspace();
    const check = RecordedCheck.parse({
      featureId: 'F-001',
      version: 1,
      recordedAt: '2026-01-01T00:00:00.000Z',
      origin: { runId: 'r-test', session: 2, reason: 'evaluate' },
      actions: [
        { kind: 'goto', path: '/' },
        { kind: 'fill', target: "getByLabel('Title')", text: 'Buy milk' },
        { kind: 'press', key: 'Enter', target: "getByLabel('Title')" },
      ],
      expectations: [{ kind: 'text', text: 'Buy milk' }],
    });
    await writeCheck(workspace, check, { title: 'Add a todo', flaky: null });
    await checkpoint(openRepo(workspace), {
      role: 'harness',
      runId: 'r-test',
      session: 2,
      summary: 'F-001 passed',
    });
    let first = '';
    server.setPolicy((conversation) => {
      if (turnOf(conversation) > 0) return { text: 'Done.' };
      first =
        conversation.messages[0]?.content
          .map((block) => (block.type === 'text' ? block.text : ''))
          .join('') ?? '';
      return { text: 'Read it.' };
    });
    await runSession(server, { role: 'generator', workspace, dataDir, featureIds: ['F-001'] });
    expect(first).toContain(
      '## What the evaluator will check (your contract)\nThe evaluator performs these steps in a real browser, in this order, and passes the feature only when every one holds:\n1. Type a title and press Enter\n2. The todo is listed',
    );
    expect(first).toContain('its recorded check (v1) replays these actions and expectations');
    expect(first).toContain(`2. fill "Buy milk" into getByLabel('Title')`);
    expect(first).toContain('- text "Buy milk" is visible');
    removeWorkspace(workspace);
  });

  it('is sent back when it forgets to commit, and then commits', async () => {
    const { workspace, dataDir } = await builtWorkspace();
    const notes: string[] = [];
    server.setPolicy((conversation) => {
      const turn = turnOf(conversation);
      if (turn === 0)
        return { toolCalls: [{ name: 'write', arguments: { path: 'server.js', content: '// v2\n' } }] };
      if (turn === 1) return { text: 'Implemented.' };
      notes.push(lastUserText(conversation));
      if (turn === 2)
        return {
          toolCalls: [{ name: 'commit', arguments: { message: 'F-001: add' } }],
        };
      return { text: 'Committed.' };
    });
    const result = await runSession(server, { role: 'generator', workspace, dataDir, featureIds: ['F-001'] });
    expect(notes[0]).toMatch(/uncommitted changes/);
    expect(result.outcome).toBe('completed');
    expect(result.commits).toHaveLength(1);
    const subject = await runGit(openRepo(workspace), ['log', '-1', '--format=%s']);
    expect(subject.trim()).toBe('F-001: add');
    expect(await isClean(openRepo(workspace))).toBe(true);
    removeWorkspace(workspace);
  });

  it('starts at the last commit with leftovers rolled back, unless the harness has just synced the clone (startHead)', async () => {
    for (const synced of [false, true]) {
      const { workspace, dataDir } = await builtWorkspace();
      const start = (await runGit(openRepo(workspace), ['rev-parse', 'HEAD'])).trim();
      // What a crashed session left: a tracked file half-written, an untracked one.
      fs.writeFileSync(path.join(workspace, 'server.js'), '// half-written\n');
      fs.writeFileSync(path.join(workspace, 'junk.txt'), 'left over\n');
      let seen = '';
      server.setPolicy((conversation) => {
        const turn = turnOf(conversation);
        if (turn === 0) return { toolCalls: [{ name: 'read', arguments: { path: 'server.js' } }] };
        if (turn === 1) {
          seen = lastUserText(conversation);
          return {
            toolCalls: [
              { name: 'write', arguments: { path: 'server.js', content: '// v2\n' } },
              { name: 'commit', arguments: { message: 'F-001: add' } },
            ],
          };
        }
        return { text: 'Committed.' };
      });
      const result = await runSession(server, {
        role: 'generator',
        workspace,
        dataDir,
        featureIds: ['F-001'],
        ...(synced ? { startHead: start } : {}),
      });
      expect(result.startCommit).toBe(start);
      // Told the tree is fresh, the session trusts it (a lane's sync has just reset and cleaned its clone).
      expect(seen).toContain(synced ? 'half-written' : '// app');
      expect(seen).not.toContain(synced ? '// app' : 'half-written');
      expect(fs.existsSync(path.join(workspace, 'junk.txt'))).toBe(synced);
      removeWorkspace(workspace);
    }
  });

  it('cannot write the feature list with file tools, and a passes flip made through bash is reverted and recorded', async () => {
    const { workspace, dataDir } = await builtWorkspace();
    const refusals: string[] = [];
    server.setPolicy((conversation) => {
      const turn = turnOf(conversation);
      if (turn === 0) {
        return {
          toolCalls: [
            {
              name: 'edit',
              arguments: {
                path: 'feature_list.json',
                old_string: '"passes": false',
                new_string: '"passes": true',
                replace_all: true,
              },
            },
          ],
        };
      }
      if (turn === 1 || turn === 2) refusals.push(lastUserText(conversation));
      if (turn === 1) {
        return {
          toolCalls: [
            {
              name: 'bash',
              arguments: { command: `sed -i 's/"passes": false/"passes": true/' feature_list.json` },
            },
            { name: 'commit', arguments: { message: 'F-001: all done' } },
          ],
        };
      }
      return { text: 'All features pass now.' };
    });
    const result = await runSession(server, { role: 'generator', workspace, dataDir, featureIds: ['F-001'] });
    expect(refusals[0]).toMatch(/protected/);
    // The commit tool refuses a changed feature list (sandbox off here: bash could change the file).
    expect(refusals[1]).toMatch(/nothing committed: feature_list\.json is protected/);
    expect(result.violations.filter((violation) => violation.kind === 'passes_changed')).toHaveLength(2);
    const list = await readFeatureList(workspace);
    expect(list.every((feature) => feature.passes === false)).toBe(true);
    expect(await isClean(openRepo(workspace))).toBe(true);
    removeWorkspace(workspace);
  });
});
