import { describe, expect, it } from 'vitest';
import type { FeatureList } from '../../../handoff/formats.js';
import { checkFeatureListIntegrity } from '../../../handoff/integrity.js';

const before: FeatureList = [
  { id: 'F-001', category: 'functional', description: 'Add a todo', steps: ['Open', 'Type'], passes: true },
  {
    id: 'F-002',
    category: 'functional',
    description: 'Delete a todo',
    steps: ['Open', 'Delete'],
    passes: false,
  },
  { id: 'F-003', category: 'style', description: 'Dark mode', steps: ['Toggle'], passes: false, note: 'x' },
];
const sessionRules = { mayChangePasses: false };

function copy(): Array<Record<string, unknown>> {
  return structuredClone(before) as Array<Record<string, unknown>>;
}

describe('checkFeatureListIntegrity', () => {
  it('finds nothing in an unchanged list (order of keys does not matter)', () => {
    const shuffledKeys = copy().map(({ passes, ...rest }) => ({ passes, ...rest }));
    expect(checkFeatureListIntegrity(before, shuffledKeys, sessionRules)).toEqual({
      violations: [],
      restored: before,
    });
  });

  it('reports edits of description, steps, category and unknown fields by feature', () => {
    const after = copy();
    after[0]!.description = 'Add many todos';
    after[1]!.steps = ['Open'];
    after[2]!.category = 'functional';
    after[2]!.note = 'y';
    const { violations, restored } = checkFeatureListIntegrity(before, after, sessionRules);
    expect(violations).toEqual([
      {
        kind: 'feature_edited',
        featureId: 'F-001',
        detail: 'F-001: description changed from "Add a todo" to "Add many todos"',
      },
      { kind: 'feature_edited', featureId: 'F-002', detail: 'F-002: steps changed (2 → 1 items)' },
      {
        kind: 'feature_edited',
        featureId: 'F-003',
        detail: 'F-003: category changed from "style" to "functional"; note changed from "x" to "y"',
      },
    ]);
    expect(restored).toEqual(before);
  });

  it('reports removed, added (with and without id, duplicated) and reordered features', () => {
    const after = copy();
    const [first, second] = after;
    const added = { category: 'x', description: 'Sneaky', steps: ['s'], passes: true };
    const list = [second, first, { ...added, id: 'F-009' }, added, { ...first }];
    const { violations, restored } = checkFeatureListIntegrity(before, list, sessionRules);
    expect(violations.map((v) => [v.kind, v.featureId])).toEqual([
      ['feature_added', 'F-009'],
      ['feature_added', undefined],
      ['feature_added', 'F-001'],
      ['feature_removed', 'F-003'],
      ['features_reordered', undefined],
    ]);
    expect(violations[4]!.detail).toBe(
      'features were reordered: expected F-001, F-002 at position 0, found F-002, F-001',
    );
    expect(restored).toEqual(before);
  });

  it('reports a passes change by a session and keeps it for the harness', () => {
    const after = copy();
    after[0]!.passes = false;
    after[1]!.passes = true;
    const session = checkFeatureListIntegrity(before, after, sessionRules);
    expect(session.violations.map((v) => [v.kind, v.featureId])).toEqual([
      ['passes_changed', 'F-001'],
      ['passes_changed', 'F-002'],
    ]);
    expect(session.violations[1]!.detail).toContain('F-002: passes changed from false to true');
    expect(session.restored).toEqual(before);
    const harness = checkFeatureListIntegrity(before, after, { mayChangePasses: true });
    expect(harness.violations).toEqual([]);
    expect(harness.restored.map((f) => f.passes)).toEqual([false, true, false]);
  });

  it('with mayChangePasses keeps new passes values but still reverts edits', () => {
    const after = copy();
    after[1]!.passes = true;
    after[1]!.description = 'changed';
    const { violations, restored } = checkFeatureListIntegrity(before, after, { mayChangePasses: true });
    expect(violations.map((v) => v.kind)).toEqual(['feature_edited']);
    expect(restored[1]).toEqual({ ...before[1], passes: true });
  });

  it('reports a deleted or invalid file', () => {
    expect(checkFeatureListIntegrity(before, undefined, sessionRules).violations).toEqual([
      { kind: 'feature_list_invalid', detail: 'feature_list.json was deleted or is not valid JSON' },
    ]);
    const after = copy();
    after[1]!.steps = [];
    const invalid = checkFeatureListIntegrity(before, after, sessionRules);
    expect(invalid.violations).toEqual([
      {
        kind: 'feature_list_invalid',
        detail:
          'feature_list.json no longer matches its schema: [1].steps: each feature needs at least one step',
      },
    ]);
    expect(invalid.restored).toEqual(before);
    expect(checkFeatureListIntegrity(before, { features: before }, sessionRules).violations[0]!.kind).toBe(
      'feature_list_invalid',
    );
  });
});
