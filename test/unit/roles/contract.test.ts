import { describe, expect, it } from 'vitest';
import { CheckFile } from '../../../checks/format.js';
import type { Feature } from '../../../handoff/formats.js';
import { sprintContract } from '../../../roles/contract.js';
import { generatorMessage } from '../../../roles/orientation.js';
import { ACCOUNTS_FEATURES } from '../../../testkit/policies/accounts-features.js';
import { contractTexts, slipOf } from '../../../testkit/policies/careless.js';

const feature: Feature = {
  id: 'F-004',
  category: 'functional',
  description: 'Delete a todo: its "Delete" button removes it from the list for good',
  steps: [
    'Open the app and add two todos',
    'Click the "Delete" button of the first',
    'The list shows “Library book”',
  ],
  passes: false,
};
const snapshot = { files: ['server.js'], gitLog: 'abc F-003: complete', progressTail: '## F-003' };

const TOGGLE = "getByRole('button', { name: 'Delete Old newspaper', exact: true })";
const checkFile = CheckFile.parse({
  featureId: 'F-004',
  current: {
    featureId: 'F-004',
    version: 2,
    recordedAt: '2026-01-01T00:00:00.000Z',
    origin: { runId: 'r-1', session: 7, reason: 'rerecord' },
    actions: [
      { kind: 'goto', path: '/' },
      { kind: 'click', target: TOGGLE },
    ],
    expectations: [
      { kind: 'text', text: 'Old newspaper', visible: false },
      { kind: 'relativeText', text: '1 item left', baseline: { afterAction: 0, text: '2 items left' } },
    ],
  },
  history: [],
  flaky: null,
});

describe('the sprint contract in the generator’s first message', () => {
  it('shows the steps as the evaluator performs them and the texts it looks for', () => {
    const message = generatorMessage({ feature, feedback: null, snapshot, remainingFailing: 3 });
    expect(message).toContain('## What the evaluator will check (your contract)');
    expect(message).toContain('1. Open the app and add two todos\n2. Click the "Delete" button of the first');
    expect(contractTexts(message)).toEqual(['Delete', 'Library book']);
    expect(message).not.toContain('recorded check');
  });

  it('adds the actions and expectations of the check an earlier pass recorded', () => {
    const contract = sprintContract(feature, checkFile);
    const message = generatorMessage({ feature, feedback: null, snapshot, remainingFailing: 3, contract });
    expect(message).toContain('its recorded check (v2) replays these actions and expectations');
    expect(message).toContain(`Actions:\n1. open /\n2. click ${TOGGLE}`);
    expect(message).toContain(
      'Expectations:\n- text "Old newspaper" is not visible\n- text like "1 item left" is visible, its numbers counted from "2 items left" after action 1',
    );
  });
});

describe('the careless scripted generator (bench/contract.ts)', () => {
  const signUp = ACCOUNTS_FEATURES[0] as (typeof ACCOUNTS_FEATURES)[number];
  const always = { seed: 1, rate: 1 };

  it('slips on a text the evaluator looks for unless the contract lists it', () => {
    const told = generatorMessage({
      feature: { id: 'F-001', ...signUp, passes: false },
      feedback: null,
      snapshot,
      remainingFailing: 3,
    });
    expect(slipOf({ ...always, readsContract: false }, 'F-001', signUp, told)).toEqual({
      from: "'Sign up'",
      to: "'SIGN UP'",
    });
    expect(slipOf({ ...always, readsContract: true }, 'F-001', signUp, told)).toBeUndefined();
    expect(slipOf({ seed: 1, rate: 0, readsContract: false }, 'F-001', signUp, told)).toBeUndefined();
  });
});
