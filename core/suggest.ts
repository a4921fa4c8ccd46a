/** "Did you mean": the known name closest to a misspelt one (config keys, option values, commands). Pure. */

/** Edit distance between two strings: insertions, deletions, substitutions and swaps of neighbours. */
export function editDistance(from: string, to: string): number {
  const rows = from.length + 1;
  const columns = to.length + 1;
  const distance: number[][] = Array.from({ length: rows }, (_, row) =>
    Array.from({ length: columns }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)),
  );
  const at = (row: number, column: number) => (distance[row] as number[])[column] as number;
  for (let row = 1; row < rows; row++) {
    for (let column = 1; column < columns; column++) {
      const cost = from[row - 1] === to[column - 1] ? 0 : 1;
      let best = Math.min(at(row - 1, column) + 1, at(row, column - 1) + 1, at(row - 1, column - 1) + cost);
      const swapped =
        row > 1 && column > 1 && from[row - 1] === to[column - 2] && from[row - 2] === to[column - 1];
      if (swapped) best = Math.min(best, at(row - 2, column - 2) + 1);
      (distance[row] as number[])[column] = best;
    }
  }
  return at(rows - 1, columns - 1);
}

/**
 * The candidate closest to `input` (ignoring case), when it is close enough to be a slip: at most a third of the
 * longer word's letters differ (at least one may). Undefined when none is close, or `input` is a candidate.
 */
export function closestMatch(input: string, candidates: Iterable<string>): string | undefined {
  const wanted = input.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const candidate of candidates) {
    if (candidate === input) return undefined;
    const distance = editDistance(wanted, candidate.toLowerCase());
    const allowed = Math.max(1, Math.floor(Math.max(wanted.length, candidate.length) / 3));
    if (distance <= allowed && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

/** ` (did you mean "x"?)` when a candidate is close to `input`, else an empty string. */
export function didYouMean(input: string, candidates: Iterable<string>): string {
  const match = closestMatch(input, candidates);
  return match === undefined ? '' : ` (did you mean "${match}"?)`;
}
