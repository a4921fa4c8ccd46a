/**
 * A feature a person adds to a running run (`nightshift add`): the entry a writer session proposes, checked against
 * the list it joins. Pure: the problems are sentences for the model that proposed it (it fixes them and tries again).
 */
import { z } from 'zod';
import { featureIdFor } from './feature-list.js';
import { type Feature, FeatureId, type FeatureList } from './formats.js';
import { issueLines } from './schema-io.js';

/** Bounds of a new entry: one feature a session can build, not a spec. */
export const NEW_FEATURE_LIMITS = { category: 60, description: 1_000, steps: 30, step: 500 } as const;

/**
 * What a writer proposes: the fields of a feature entry but its id (the harness gives the next free one) and
 * `passes` (a new feature fails until the evaluator says otherwise).
 */
export const NewFeatureEntry = z.strictObject({
  category: z.string().trim().min(1, 'is empty').max(NEW_FEATURE_LIMITS.category),
  description: z.string().trim().min(1, 'is empty').max(NEW_FEATURE_LIMITS.description),
  steps: z
    .array(z.string().trim().min(1, 'is empty').max(NEW_FEATURE_LIMITS.step))
    .min(1, 'needs at least one step a person can check in a browser')
    .max(NEW_FEATURE_LIMITS.steps),
  depends_on: z.array(FeatureId).max(50).optional(),
});
export type NewFeatureEntry = z.infer<typeof NewFeatureEntry>;

/** The validated entry with its id, or every problem found (one sentence each). */
export type NewFeatureResult = { ok: true; feature: Feature } | { ok: false; problems: string[] };

/** The id after the highest `F-nnn` of the list (`F-001` for an empty one): ids are never reused. */
export function nextFeatureId(list: readonly Pick<Feature, 'id'>[]): string {
  const highest = Math.max(0, ...list.map((feature) => Number(feature.id.slice(2))));
  return featureIdFor(highest + 1);
}

/**
 * Checks a proposed entry against the list it joins: the schema (non-empty texts, at least one step, ids that look
 * like ids), `depends_on` naming features of the list, and a description no feature of the list has already. Returns
 * the entry as it is appended (next free id, `passes: false`, duplicate dependencies dropped).
 */
export function validateNewFeature(list: FeatureList, raw: unknown): NewFeatureResult {
  const parsed = NewFeatureEntry.safeParse(raw);
  if (!parsed.success) return { ok: false, problems: issueLines(parsed.error) };
  const entry = parsed.data;
  const known = new Set(list.map((feature) => feature.id));
  const dependsOn = [...new Set(entry.depends_on ?? [])];
  const problems = dependsOn
    .filter((id) => !known.has(id))
    .map((id) => `depends_on: ${id} is not a feature of this run (its features: ${idRange(list)})`);
  const twin = list.find((feature) => squash(feature.description) === squash(entry.description));
  if (twin)
    problems.push(
      `description: ${twin.id} has this description already; describe what is new, or add nothing`,
    );
  if (problems.length > 0) return { ok: false, problems };
  const feature: Feature = {
    id: nextFeatureId(list),
    category: entry.category,
    description: entry.description,
    steps: entry.steps,
    passes: false,
    ...(dependsOn.length > 0 ? { depends_on: dependsOn } : {}),
  };
  return { ok: true, feature };
}

/** `F-001…F-012`, or `none` for an empty list. */
function idRange(list: FeatureList): string {
  const first = list[0];
  const last = list.at(-1);
  if (!first || !last) return 'none';
  return first === last ? first.id : `${first.id}…${last.id}`;
}

function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}
