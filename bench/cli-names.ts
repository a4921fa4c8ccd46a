/** The benchmark CLI's list options (`--only`, `--recovery`). */

/** A comma-separated list of names out of `known` (all of them when absent); an unknown name says the known ones. */
export function parseNames<T extends string>(
  option: string,
  value: string | undefined,
  known: readonly T[],
): Set<T> {
  if (value === undefined) return new Set(known);
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(known as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(`${option} ${unknown.join(',')}: unknown; choose from ${known.join(', ')}`);
  return new Set(names as T[]);
}
