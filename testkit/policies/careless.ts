/**
 * A scripted model whose generator slips like a real one: on its first try at a feature it writes one of the
 * texts the evaluator looks for wrong (a button called "SIGN UP" where the steps say "Sign up"), at a seeded
 * rate, unless the sprint contract in its first message (roles/contract.ts) lists that text — then it writes it
 * as listed. Given the evaluator's feedback it writes the feature again, right. For measuring what the contract
 * saves (`bench/contract.ts`); everything else plays like the demo policy.
 */
import type { Policy } from '../types.js';
import { scriptedPolicy } from './demo.js';
import { exampleOf } from './examples.js';
import { generatorScript, type Slip } from './generator.js';
import { unitHash } from './seeded.js';
import type { ScriptedFeature } from './todo-features.js';
import { featureFiles } from './todo-sources.js';

/** How the careless generator behaves. */
export interface CarelessOptions {
  /** Seed of the slips: the same seed slips on the same features. */
  seed: number;
  /** Share of features whose first try slips (0–1). */
  rate: number;
  /** Whether the generator reads the contract's list of texts (false: as if the harness showed none). */
  readsContract: boolean;
}

/** The line of the contract that lists the texts the evaluator looks for. */
const CONTRACT_TEXTS = /^It looks for these texts on the page[^\n]*$/m;

/** The texts the contract in a generator's first message lists. */
export function contractTexts(firstMessage: string): string[] {
  const line = CONTRACT_TEXTS.exec(firstMessage)?.[0] ?? '';
  const listed = line.slice(line.indexOf(':') + 1);
  return [...listed.matchAll(/"([^"]+)"/g)].map((match) => match[1] as string);
}

/** The slip of a feature's first try under these options, or undefined when it is written right. */
export function slipOf(
  options: CarelessOptions,
  featureId: string,
  feature: ScriptedFeature,
  firstMessage: string,
): Slip | undefined {
  if (unitHash(`${options.seed}:${featureId}`) >= options.rate) return undefined;
  const files = featureFiles(feature.sourceDir, exampleOf(feature).sourcesDir);
  const looked = feature.steps.flatMap((step) => [...step.matchAll(/"([^"]+)"/g)].map((m) => m[1] as string));
  const label = looked.find((text) => files.some((file) => file.content.includes(`'${text}'`)));
  if (!label) return undefined;
  if (options.readsContract && contractTexts(firstMessage).includes(label)) return undefined;
  const wrong = label.toUpperCase() === label ? label.toLowerCase() : label.toUpperCase();
  return { from: `'${label}'`, to: `'${wrong}'` };
}

/** The demo policy with the careless generator. */
export function carelessPolicy(options: CarelessOptions): Policy {
  const habits = {
    slip: (id: string, feature: ScriptedFeature, message: string) => slipOf(options, id, feature, message),
  };
  return scriptedPolicy({ generator: (io) => generatorScript(io, habits) });
}
