/** The benchmark CLI's options: the list options (`--only`, `--recovery`) and the whole parse. */
import { parseArgs } from 'node:util';

/**
 * A comma-separated list of names out of `known` (`defaults` when absent: all of them unless told); an unknown name
 * says the known ones.
 */
export function parseNames<T extends string>(
  option: string,
  value: string | undefined,
  known: readonly T[],
  defaults: readonly T[] = known,
): Set<T> {
  if (value === undefined) return new Set(defaults);
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(known as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(`${option} ${unknown.join(',')}: unknown; choose from ${known.join(', ')}`);
  return new Set(names as T[]);
}

/** The bench's command-line options: `--quick`, `--report-only`, `--only`, `--recovery`, and the overnight sections' `--features`, `--compression`, `--seed`. */
export function parseBenchArgs(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      'report-only': { type: 'boolean', default: false },
      only: { type: 'string' },
      /** The parts of the recovery section to measure (`workers`, `sentinel`); the others are kept. */
      recovery: { type: 'string' },
      /** The overnight sections: the first N features (of the todo app, of the meal planner), the compression of model turns, the seed. */
      features: { type: 'string' },
      compression: { type: 'string', default: process.env.NSBENCH_COMPRESSION },
      seed: { type: 'string' },
    },
  });
  return values;
}
