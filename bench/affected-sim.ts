/**
 * Which affected-check strategy catches breakage best (issue 29), on a simulated app grown merge by merge: every
 * feature has its own page module, registers a route and a nav link in two shared files (the route table imports
 * every page module), some add helper modules
 * that later features import, all import the initializer's store. A sixth of the merges break another feature, in
 * four ways: a helper's code (its importers break), another feature's route line, the initializer's store (a few
 * users break) or the stylesheet (one page breaks, no import leads there). For each strategy of
 * evaluation/affected-checks.ts it counts breaking merges caught at merge time, broken features left for the full
 * sweep, and checks replayed per merge at 24, 100 and 200 passing features. `npx tsx bench/affected-sim.ts`.
 */
import { performance } from 'node:perf_hooks';
import {
  AffectedStrategy,
  affectedChecks,
  type CheckFootprint,
  type LaneChange,
} from '../evaluation/affected-checks.js';

/** A breakage a merge makes, and the features it breaks. */
type Breakage = 'helper' | 'route' | 'store' | 'style';

/** What one strategy did over a simulated run. */
export interface StrategyFigures {
  strategy: AffectedStrategy;
  breakingMerges: number;
  /** Breaking merges where at least one broken feature's check was replayed (the merge is rejected). */
  caughtAtMerge: number;
  /** Broken features whose check the merge did not replay: found by the next full sweep. */
  victimsMissed: number;
  victims: number;
  missedByKind: Record<Breakage, number>;
  /** Mean checks replayed per merge at these passing-feature counts (the 10 merges before reaching each). */
  checksPerMerge: Record<number, number>;
  /** Mean time to select (ms) per merge. */
  selectMs: number;
}

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const pick = <T>(rand: () => number, list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;

/** Simulates `features` merges with one strategy; the same seed gives every strategy the same run. */
export function simulate(strategy: AffectedStrategy, features: number, seed = 29): StrategyFigures {
  const rand = random(seed);
  const footprints: CheckFootprint[] = [];
  const graph = new Map<string, string[]>();
  const helpers: Array<{ file: string; owner: string }> = [];
  const kinds: Breakage[] = ['helper', 'route', 'store', 'style'];
  const figures: StrategyFigures = {
    strategy,
    breakingMerges: 0,
    caughtAtMerge: 0,
    victimsMissed: 0,
    victims: 0,
    missedByKind: { helper: 0, route: 0, store: 0, style: 0 },
    checksPerMerge: {},
    selectMs: 0,
  };
  const sizes = [24, 100, 200].filter((size) => size <= features);
  const replayed = new Map<number, number[]>(sizes.map((size) => [size, []]));
  for (let index = 1; index <= features; index++) {
    const id = `F-${String(index).padStart(3, '0')}`;
    const module = `src/features/f${index}.js`;
    const files = [module, 'src/routes.js', 'public/nav.html'];
    const imports = ['src/store.js'];
    if (helpers.length > 0 && rand() < 0.4) imports.push(pick(rand, helpers).file);
    if (rand() < 0.3) {
      const helper = `src/lib/h${index}.js`;
      files.push(helper);
      helpers.push({ file: helper, owner: id });
    }
    graph.set(module, imports);
    // The route table imports every page module, as a real one does (a link no check may be made through).
    graph.set('src/routes.js', [...(graph.get('src/routes.js') ?? []), module]);
    const changedLines = [
      `  { path: '/f${index}', module: './features/f${index}.js' },`,
      `<li><a href="/f${index}">Feature ${index}</a></li>`,
      'export function render(root) {',
    ];
    const change: LaneChange = { featureId: id, files: [...files], changedLines };
    let victims: string[] = [];
    let kind: Breakage | undefined;
    if (footprints.length >= 3 && rand() < 1 / 6) {
      kind = pick(rand, kinds);
      victims = breakSomething(rand, kind, { footprints, graph, helpers, change });
    }
    const started = performance.now();
    const selected = affectedChecks({ changes: [change], footprints, graph, strategy });
    figures.selectMs += performance.now() - started;
    for (const size of sizes) if (index > size - 10 && index <= size) replayed.get(size)?.push(selected.size);
    if (kind && victims.length > 0) {
      figures.breakingMerges += 1;
      figures.victims += victims.length;
      const missed = victims.filter((victim) => !selected.has(victim));
      if (missed.length < victims.length) figures.caughtAtMerge += 1;
      figures.victimsMissed += missed.length;
      figures.missedByKind[kind] += missed.length;
    }
    footprints.push({ featureId: id, files, pages: [`/f${index}`] });
  }
  for (const [size, counts] of replayed)
    figures.checksPerMerge[size] = counts.reduce((sum, count) => sum + count, 0) / Math.max(1, counts.length);
  figures.selectMs /= features;
  return figures;
}

/** Adds one breakage of `kind` to the lane's change; returns the features it breaks. */
function breakSomething(
  rand: () => number,
  kind: Breakage,
  app: {
    footprints: CheckFootprint[];
    graph: Map<string, string[]>;
    helpers: Array<{ file: string; owner: string }>;
    change: LaneChange;
  },
): string[] {
  const { footprints, graph, helpers, change } = app;
  const files = change.files as string[];
  const lines = change.changedLines as string[];
  if (kind === 'helper' && helpers.length > 0) {
    const helper = pick(rand, helpers);
    files.push(helper.file);
    lines.push('  return items.filter(Boolean);', '  return items;');
    const importers = [...graph].filter(([, imports]) => imports.includes(helper.file));
    return [helper.owner, ...importers.map(([file]) => `F-${file.replace(/\D/g, '').padStart(3, '0')}`)];
  }
  if (kind === 'route') {
    const victim = pick(rand, footprints);
    const number = Number(victim.featureId.slice(2));
    lines.push(`  { path: '/f${number}', module: './features/f${number}.js' },`);
    return [victim.featureId];
  }
  if (kind === 'store') {
    files.push('src/store.js');
    lines.push("  const key = 'items:' + name;", '  const key = name;');
    return [pick(rand, footprints), pick(rand, footprints), pick(rand, footprints)].map((f) => f.featureId);
  }
  files.push('public/style.css');
  lines.push('.panel { display: none; }');
  return [pick(rand, footprints).featureId];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const features = Number(process.argv[2] ?? 200);
  for (const seed of [29, 7, 2026]) {
    for (const strategy of AffectedStrategy.options) {
      const f = simulate(strategy, features, seed);
      const perMerge = Object.entries(f.checksPerMerge)
        .map(([size, count]) => `${size}: ${count.toFixed(1)}`)
        .join(', ');
      console.log(
        `seed ${seed} ${strategy.padEnd(7)} breaking merges ${f.breakingMerges}, caught at merge ${f.caughtAtMerge}, ` +
          `victims missed ${f.victimsMissed}/${f.victims} ${JSON.stringify(f.missedByKind)}, checks per merge {${perMerge}}, select ${f.selectMs.toFixed(2)} ms`,
      );
    }
  }
}
