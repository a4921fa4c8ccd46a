/** The benchmark CLI's list options (`--only`, `--recovery`). */

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
