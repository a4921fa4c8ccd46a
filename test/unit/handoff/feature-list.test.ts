import { describe, expect, it } from 'vitest';
import { FormatError } from '../../../handoff/errors.js';
import {
  assignIds,
  formatFeatureList,
  parseFeatureList,
  parseFeatureListOnDisk,
  validateInitialFeatureList,
} from '../../../handoff/feature-list.js';

const quickstart = [
  {
    category: 'functional',
    description: 'Add a todo',
    steps: ['Open the app', 'Type', 'Press Enter'],
    passes: false,
  },
  { category: 'style', description: 'Dark mode', steps: ['Toggle'], passes: true, priority: 'low' },
];

describe('feature list', () => {
  it('assigns F-001… in list order, keeping every other field and its order', () => {
    const { list, assigned } = assignIds(parseFeatureListOnDisk(structuredClone(quickstart)));
    expect(assigned).toBe(2);
    expect(list.map((f) => f.id)).toEqual(['F-001', 'F-002']);
    expect(Object.keys(list[1]!)).toEqual(['id', 'category', 'description', 'steps', 'passes', 'priority']);
    const { id: _first, ...rest0 } = list[0]!;
    const { id: _second, ...rest1 } = list[1]!;
    expect([rest0, rest1]).toEqual(quickstart);
  });

  it('keeps existing ids and picks unused ones for the rest', () => {
    const { list, assigned } = assignIds(
      parseFeatureListOnDisk([{ ...quickstart[0], id: 'F-002' }, quickstart[1], quickstart[0]]),
    );
    expect(assigned).toBe(2);
    expect(list.map((f) => f.id)).toEqual(['F-002', 'F-004', 'F-003']);
  });

  it('keeps the field order of the file when parsing (zod would put known keys first)', () => {
    const raw = [
      { passes: false, extra: { a: 1 }, steps: ['s'], description: 'd', category: 'c', id: 'F-001' },
    ];
    expect(Object.keys(parseFeatureList(raw)[0]!)).toEqual(Object.keys(raw[0]!));
    expect(formatFeatureList(parseFeatureList(raw))).toBe(`${JSON.stringify(raw, null, 2)}\n`);
  });

  it('names the file and the path of each problem', () => {
    const bad = [...quickstart, quickstart[0], { ...quickstart[0], steps: [] }];
    let error: unknown;
    try {
      parseFeatureListOnDisk(bad);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(FormatError);
    expect((error as FormatError).message).toBe(
      'feature_list.json: [3].steps: each feature needs at least one step',
    );
  });

  it('validates the initializer list: a precise message per problem, or the list with ids', () => {
    const ok = validateInitialFeatureList(structuredClone([quickstart[0], quickstart[0]]));
    expect(ok).toMatchObject({ ok: true, idsAssigned: 2 });
    const bad = validateInitialFeatureList([
      { ...quickstart[0], id: 'F-001' },
      { ...quickstart[0], id: 'F-001', passes: true },
      { category: 'x', steps: [], passes: false },
    ]);
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.error.split('\n')).toEqual([
      'feature_list.json: [2].description: Invalid input: expected string, received undefined',
      'feature_list.json: [2].steps: each feature needs at least one step',
      "feature_list.json: [1].passes: must be false (only the evaluator's verdict makes a feature pass)",
    ]);
    const semantic = validateInitialFeatureList([
      { ...quickstart[0], id: 'F-001' },
      { ...quickstart[0], id: 'F-001', passes: true },
    ]);
    expect(semantic).toEqual({
      ok: false,
      error:
        'feature_list.json: [1].id: F-001 is already used by [0]\n' +
        "feature_list.json: [1].passes: must be false (only the evaluator's verdict makes a feature pass)",
    });
    expect(validateInitialFeatureList([])).toEqual({
      ok: false,
      error: 'feature_list.json: (root): has 0 features; at least 1 are needed',
    });
    expect(validateInitialFeatureList([quickstart[0], quickstart[0]], { maxFeatures: 1 }).ok).toBe(false);
    expect(validateInitialFeatureList({ features: [] }).ok).toBe(false);
  });
});
