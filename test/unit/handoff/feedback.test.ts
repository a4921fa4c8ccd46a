import { describe, expect, it } from 'vitest';
import { issuesNotSaid, renderFeedback } from '../../../handoff/feedback.js';
import type { VerdictRecord } from '../../../handoff/formats.js';

const failed: VerdictRecord = {
  featureId: 'F-005',
  verdict: 'fail',
  steps: [
    { step: 'Add two todos', ok: true, evidence: 'Added "a" and "b".' },
    { step: 'The status line says 1 item left', ok: false, evidence: 'It still says "2 items left".' },
  ],
  issues: ['It still says  "2 items left". ', 'The checkbox has no label.'],
  mode: 'evaluate',
  runId: 'r-1',
  session: 4,
  at: '2026-01-01T00:00:00.000Z',
  evidence: [],
};

describe('feedback', () => {
  it('says a failing step observation once: an issue repeating it (spacing aside) is left out', () => {
    expect(issuesNotSaid(failed)).toEqual(['The checkbox has no label.']);
    const text = renderFeedback(failed);
    expect(text.split('2 items left').length - 1).toBe(1);
    expect(text).toContain('## Issues\n\n- The checkbox has no label.');
  });

  it('has no Issues section when every issue repeats a failing step or the reason', () => {
    const text = renderFeedback({ ...failed, issues: ['It still says "2 items left".'] });
    expect(text).not.toContain('## Issues');
    const blocked = renderFeedback({
      ...failed,
      verdict: 'blocked',
      steps: [],
      reason: 'The app did not answer.',
      issues: ['The app did not answer.'],
    });
    expect(blocked.split('The app did not answer.').length - 1).toBe(1);
  });
});
