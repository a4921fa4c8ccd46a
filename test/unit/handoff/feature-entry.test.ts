import { describe, expect, it } from 'vitest';
import { nextFeatureId, validateNewFeature } from '../../../handoff/feature-entry.js';
import type { FeatureList } from '../../../handoff/formats.js';

const list: FeatureList = [
  { id: 'F-001', category: 'functional', description: 'Add a todo', steps: ['Type', 'Enter'], passes: true },
  {
    id: 'F-003',
    category: 'functional',
    description: 'Delete a todo',
    steps: ['Click Delete'],
    passes: false,
  },
];

const entry = {
  category: 'functional',
  description: 'Clear completed todos',
  steps: ['Complete a todo', 'Click "Clear completed"', 'The completed todo is gone'],
  depends_on: ['F-001', 'F-003', 'F-001'],
};

describe('a feature a person adds', () => {
  it('gets the id after the highest one (ids are never reused), fails, and keeps its dependencies once', () => {
    expect(nextFeatureId(list)).toBe('F-004');
    expect(nextFeatureId([])).toBe('F-001');
    expect(validateNewFeature(list, entry)).toEqual({
      ok: true,
      feature: {
        id: 'F-004',
        category: 'functional',
        description: 'Clear completed todos',
        steps: entry.steps,
        passes: false,
        depends_on: ['F-001', 'F-003'],
      },
    });
    const alone = validateNewFeature(list, { ...entry, depends_on: [] });
    expect(alone.ok && 'depends_on' in alone.feature).toBe(false);
  });

  it('is refused with every problem named: schema, unknown dependencies, a description the list has', () => {
    expect(validateNewFeature(list, { ...entry, steps: [], description: '  ' })).toEqual({
      ok: false,
      problems: ['description: is empty', 'steps: needs at least one step a person can check in a browser'],
    });
    expect(validateNewFeature(list, { ...entry, depends_on: ['F-002', 'F-999', 'F-001'] })).toEqual({
      ok: false,
      problems: [
        'depends_on: F-002 is not a feature of this run (its features: F-001…F-003)',
        'depends_on: F-999 is not a feature of this run (its features: F-001…F-003)',
      ],
    });
    const twin = validateNewFeature(list, { ...entry, description: ' delete  a TODO ' });
    expect(twin).toEqual({
      ok: false,
      problems: ['description: F-003 has this description already; describe what is new, or add nothing'],
    });
  });

  it('refuses what the writer may not choose (an id, passes, unknown fields) and ids that are not ids', () => {
    const result = validateNewFeature(list, { ...entry, id: 'F-001', passes: true, depends_on: ['2'] });
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.problems).toEqual([
      'depends_on[0]: feature ids look like F-001',
      '(root): Unrecognized keys: "id", "passes"',
    ]);
  });
});
