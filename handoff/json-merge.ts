/**
 * Key-by-key three-way merge of JSON documents (package.json and other manifests): what each side changed since
 * the base is kept when the sides touched different keys; the same key changed two different ways is not
 * mechanical (undefined: a model must decide). Pure.
 */

/** A JSON value as `JSON.parse` returns it; `undefined` stands for a key that is absent on one side. */
type Json = unknown;

const CONFLICT = Symbol('conflict');

/**
 * The three-way merge of three JSON texts, the run branch's keys first and formatted like its text; undefined
 * when a text is not JSON or both sides changed one key differently.
 */
export function mergeJsonText(base: string, runSide: string, laneSide: string): string | undefined {
  let parsed: [Json, Json, Json];
  try {
    parsed = [JSON.parse(base), JSON.parse(runSide), JSON.parse(laneSide)];
  } catch {
    return undefined;
  }
  const merged = mergeValue(...parsed);
  if (merged === CONFLICT || merged === undefined) return undefined;
  const indent = /^([ \t]+)"/m.exec(runSide)?.[1] ?? '';
  const text = JSON.stringify(merged, null, indent === '' && runSide.includes('\n') ? 2 : indent);
  return runSide.endsWith('\n') ? `${text}\n` : text;
}

function mergeValue(base: Json, runSide: Json, laneSide: Json): Json | typeof CONFLICT {
  if (same(runSide, laneSide)) return runSide;
  if (same(base, runSide)) return laneSide;
  if (same(base, laneSide)) return runSide;
  if (isObject(runSide) && isObject(laneSide) && (base === undefined || isObject(base)))
    return mergeObject(base ?? {}, runSide, laneSide);
  return CONFLICT;
}

/** Every key of either side, the run branch's order first; a key deleted on one side and untouched stays deleted. */
function mergeObject(
  base: Record<string, Json>,
  runSide: Record<string, Json>,
  laneSide: Record<string, Json>,
): Json | typeof CONFLICT {
  const keys = [
    ...Object.keys(runSide),
    ...Object.keys(laneSide).filter((key) => !Object.hasOwn(runSide, key)),
  ];
  const entries: Array<[string, Json]> = [];
  for (const key of keys) {
    const value = mergeValue(own(base, key), own(runSide, key), own(laneSide, key));
    if (value === CONFLICT) return CONFLICT;
    if (value !== undefined) entries.push([key, value]);
  }
  // fromEntries defines own properties: a "__proto__" key stays a key, never a prototype.
  return Object.fromEntries(entries);
}

function own(object: Record<string, Json>, key: string): Json {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep equality of JSON values (key order ignored). */
function same(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, index) => same(item, b[index]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => Object.hasOwn(b, key) && same(a[key], b[key]))
    );
  }
  return false;
}
