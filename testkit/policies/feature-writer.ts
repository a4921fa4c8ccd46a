/**
 * The scripted feature writer (`nightshift add`, roles/feature-writer.ts): reads the person's words and the run's list
 * from its brief, picks the catalogue feature of the run's example the words name best (one not listed yet), and
 * submits it as written in the catalogue, depending on every listed feature that comes before it there — so the
 * scripted generator and evaluator can build and check it. Words that name no catalogue feature become a plain entry
 * (valid, but no scripted generator can build it). Markers in the words pick a misbehaving writer for tests:
 * - `[scripted:sloppy]` first submits the entry depending on an id the list does not have, then fixes it from the
 *   harness's error;
 * - `[scripted:invalid]` submits entries without steps until the harness gives up.
 */
import { exampleFeatureDescribed, type ScriptedExample, TODO_EXAMPLE } from './examples.js';
import type { ScriptIO } from './script.js';
import type { ScriptedFeature } from './scripted-feature.js';
import { squash } from './todo-features.js';

/** One feature as the writer's brief lists it. */
export interface ListedFeature {
  id: string;
  description: string;
}

/** What the writer's brief says: the person's words and the run's features. */
export interface WriterBrief {
  request: string;
  listed: ListedFeature[];
}

/** Reads the brief (roles/feature-writer.ts `featureWriterMessage`). */
export function parseWriterBrief(message: string): WriterBrief {
  const request = /# What a person wants added\n+([\s\S]*?)\n+## The run's features/.exec(message)?.[1] ?? '';
  const listed = [
    ...message.matchAll(/^- (F-\d{3,}) \[(?:passing|failing)\] (.*?)(?: \(depends on [^)]*\))?$/gm),
  ].map((match) => ({ id: match[1] as string, description: match[2] as string }));
  return { request: request.trim(), listed };
}

/** Words worth comparing: lower case, four letters or more. */
function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[a-z]{4,}/g) ?? []);
}

/** The catalogue feature not listed yet whose description (and check name) shares the most words with the request. */
export function featureForRequest(
  request: string,
  listed: readonly ListedFeature[],
): { example: ScriptedExample; feature: ScriptedFeature } | undefined {
  const example =
    listed.map((entry) => exampleFeatureDescribed(entry.description)?.example).find(Boolean) ?? TODO_EXAMPLE;
  const taken = new Set(listed.map((entry) => squash(entry.description)));
  const asked = words(request);
  let best: { feature: ScriptedFeature; score: number } | undefined;
  for (const feature of example.features) {
    if (taken.has(squash(feature.description))) continue;
    const score = [...words(`${feature.description} ${feature.check}`)].filter((word) =>
      asked.has(word),
    ).length;
    if (score > (best?.score ?? 0)) best = { feature, score };
  }
  return best ? { example, feature: best.feature } : undefined;
}

/** The entry for the request: a catalogue feature with its dependencies, or a plain one from the words. */
export function entryFor(brief: WriterBrief): Record<string, unknown> {
  const request = brief.request
    .replace(/\[scripted:[a-z-]+\]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const found = featureForRequest(request, brief.listed);
  if (!found) {
    return { category: 'functional', description: request, steps: ['Open the app', request] };
  }
  const position = found.example.features.indexOf(found.feature);
  const dependsOn = brief.listed
    .filter((entry) => {
      const known = exampleFeatureDescribed(entry.description);
      return known?.example === found.example && found.example.features.indexOf(known.feature) < position;
    })
    .map((entry) => entry.id);
  const { category, description, steps } = found.feature;
  return { category, description, steps: [...steps], ...(dependsOn.length ? { depends_on: dependsOn } : {}) };
}

function refused(content: string): boolean {
  return /^The entry was refused/.test(content);
}

/** The feature writer session. */
export function featureWriterScript(io: ScriptIO): void {
  const brief = parseWriterBrief(io.firstMessage);
  const behaviour = /\[scripted:([a-z-]+)\]/.exec(brief.request)?.[1];
  const entry = entryFor(brief);
  if (behaviour === 'invalid') {
    // Each attempt differs a little (the loop refuses the same call three times in a row on its own).
    for (let attempt = 1; attempt <= 6; attempt++)
      io.call('submit_feature', { ...entry, description: `${entry.description} (${attempt})`, steps: [] });
    return;
  }
  if (behaviour === 'sloppy') {
    const slip = { ...entry, depends_on: [...((entry.depends_on as string[] | undefined) ?? []), 'F-999'] };
    const first = io.call('submit_feature', slip, 'Submitting the feature.');
    if (!refused(first.content)) {
      io.finish('Feature submitted.');
      return;
    }
  }
  const submitted = io.call('submit_feature', entry, 'Submitting the feature.');
  io.finish(
    refused(submitted.content) ? `The harness refused the entry: ${submitted.content}` : 'Submitted.',
  );
}
