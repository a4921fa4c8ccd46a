import { describe, expect, it } from 'vitest';
import {
  affectedChecks,
  type CheckFootprint,
  hotFiles,
  importersOf,
} from '../../../evaluation/affected-checks.js';
import { importsOf, mergedFeatureOf } from '../../../evaluation/affected-inputs.js';

const footprints: CheckFootprint[] = [
  { featureId: 'F-001', files: ['src/list.js', 'src/routes.js'], pages: ['/'] },
  { featureId: 'F-002', files: ['src/about.js', 'src/routes.js'], pages: ['/about'] },
  {
    featureId: 'F-003',
    files: ['src/format.js', 'src/stats.js', 'src/routes.js'],
    pages: ['/stats?range=7#top'],
  },
  { featureId: 'F-004', files: ['src/help.js', 'src/routes.js'], pages: ['/help'] },
  { featureId: 'F-005', files: ['src/tags.js', 'src/routes.js'], pages: ['/tags'] },
];
// stats.js imports format.js; list.js imports stats.js.
const graph = new Map([
  ['src/stats.js', ['src/format.js']],
  ['src/list.js', ['src/stats.js']],
]);
const change = (files: string[], changedLines: string[] = []) => [
  { featureId: 'F-009', files, changedLines },
];

describe('affected checks', () => {
  it('a lane touching only its own new files replays its own check only', () => {
    expect(affectedChecks({ changes: change(['src/new.js']), footprints, graph })).toEqual(
      new Set(['F-009']),
    );
  });

  it('a change to a feature file replays that feature and, through the imports, the features importing it', () => {
    const selected = affectedChecks({ changes: change(['src/format.js']), footprints, graph });
    expect([...selected].sort()).toEqual(['F-001', 'F-003', 'F-009']);
    const diffOnly = affectedChecks({
      changes: change(['src/format.js']),
      footprints,
      graph,
      strategy: 'diff',
    });
    expect([...diffOnly].sort()).toEqual(['F-003', 'F-009']);
  });

  it('a shared file in every footprint links by its changed lines only: the page or file they name', () => {
    const lines = [
      "  { path: '/about', module: './about.js' },",
      "  { path: '/reports', module: './reports.js' },",
    ];
    const selected = affectedChecks({ changes: change(['src/routes.js'], lines), footprints, graph });
    expect([...selected].sort()).toEqual(['F-002', 'F-009']);
    // By the file alone (the diff strategy), a shared file replays every check: the cost grows with the app.
    const diffOnly = affectedChecks({
      changes: change(['src/routes.js'], lines),
      footprints,
      graph,
      strategy: 'diff',
    });
    expect(diffOnly.size).toBe(6);
  });

  it('a page is named as a whole path, query and hash left out; generic stems do not count', () => {
    const near = affectedChecks({
      changes: change(['src/x.js'], ["go('/stats-old')", 'import "./index.js"']),
      footprints,
      graph,
    });
    expect(near).toEqual(new Set(['F-009']));
    const named = affectedChecks({ changes: change(['src/x.js'], ["go('/stats')"]), footprints, graph });
    expect(named.has('F-003')).toBe(true);
  });

  it('a check whose feature never came through the merge queue (no footprint files) is always replayed', () => {
    const unknown = [...footprints, { featureId: 'F-006', files: [], pages: ['/'] }];
    expect(affectedChecks({ changes: change(['src/new.js']), footprints: unknown, graph })).toEqual(
      new Set(['F-009', 'F-006']),
    );
  });

  it('`always` (checks a full sweep tied to the lane) and `all` are honoured', () => {
    expect(affectedChecks({ changes: change([]), footprints, graph, always: ['F-004'] })).toEqual(
      new Set(['F-009', 'F-004']),
    );
    expect(affectedChecks({ changes: change([]), footprints, graph, strategy: 'all' }).size).toBe(6);
  });

  it('a hot file that imports every page module (a route table) does not link a new module to every check', () => {
    // The route table imports each feature's module; the lane adds its own module and registers it there.
    const routed = new Map([
      ...graph,
      [
        'src/routes.js',
        ['src/list.js', 'src/about.js', 'src/stats.js', 'src/help.js', 'src/tags.js', 'src/new.js'],
      ],
    ]);
    const lines = ["  { path: '/new', module: './new.js' },"];
    const selected = affectedChecks({
      changes: change(['src/new.js', 'src/routes.js'], lines),
      footprints,
      graph: routed,
    });
    expect(selected).toEqual(new Set(['F-009']));
    // Not hot (the diff strategy), the route table links by file: every check.
    const diffOnly = affectedChecks({
      changes: change(['src/new.js', 'src/routes.js'], lines),
      footprints,
      graph: routed,
      strategy: 'diff',
    });
    expect(diffOnly.size).toBe(6);
  });

  it('hot files need more than a quarter of the footprints and at least four; importers stop at hot files', () => {
    expect(hotFiles(footprints)).toEqual(new Set(['src/routes.js']));
    expect(hotFiles(footprints.slice(0, 4))).toEqual(new Set());
    const reached = importersOf(
      new Set(['src/format.js']),
      new Map([...graph, ['src/routes.js', ['src/list.js']]]),
      new Set(['src/routes.js']),
    );
    expect([...reached].sort()).toEqual(['src/format.js', 'src/list.js', 'src/stats.js']);
  });
});

describe('affected-check inputs', () => {
  it('reads relative imports, requires, script and link tags and CSS imports, resolving extensions', () => {
    const known = new Set([
      'src/a.js',
      'src/b/index.js',
      'src/c.ts',
      'public/app.js',
      'public/site.css',
      'lib/d.js',
    ]);
    const source = [
      "import { x } from './a';",
      "import './b';",
      "const c = await import('./c');",
      "const d = require('../lib/d.js');",
      "import React from 'react';",
    ].join('\n');
    expect(importsOf('src/main.js', source, known).sort()).toEqual([
      'lib/d.js',
      'src/a.js',
      'src/b/index.js',
      'src/c.ts',
    ]);
    const page =
      '<script src="/app.js"></script><link rel="stylesheet" href="site.css"><link href="https://x/y.css">';
    expect(
      importsOf('public/index.html', `${page}<style>@import "./site.css";</style>`, known).sort(),
    ).toEqual(['public/app.js', 'public/site.css']);
  });

  it('knows the merge queue merge commits by their subject', () => {
    expect(mergedFeatureOf('nightshift(merge): F-012 from lane 3')).toBe('F-012');
    expect(mergedFeatureOf('nightshift(merge): F-012 run branch into lane 3')).toBeUndefined();
  });
});
