import { describe, expect, it } from 'vitest';
import { FeaturePatch } from '../../../orchestrator/run/run-records.js';

// A patch changes only what it names: a retry or an unblock must not wipe the notes a person left on the feature.
describe('FeaturePatch', () => {
  it('adds no field the caller left out', () => {
    expect(FeaturePatch.parse({ blocked: false, attempts: 0 })).toEqual({ blocked: false, attempts: 0 });
    expect(FeaturePatch.parse({})).toEqual({});
  });

  it('keeps the notes it is given', () => {
    const note = { kind: 'note', text: 'keep the label', by: 'cli:tester', at: '2026-12-02T00:00:00.000Z' };
    expect(FeaturePatch.parse({ humanNotes: [note] })).toEqual({ humanNotes: [note] });
  });
});
