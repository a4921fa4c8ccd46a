/**
 * The example apps the scripted model knows, told apart by their spec (the initializer's first message) or by
 * a feature's text (generators and evaluators): the todo demo (examples/todo) and the app with accounts
 * (examples/accounts) and the meal planner (examples/meal-planner). Each brings its features in build order, the sources its roles write and the
 * evaluator's browser check of each feature.
 */
import path from 'node:path';
import {
  ACCOUNTS_CHECKS,
  ACCOUNTS_FEATURES,
  accountsFeatureListJson,
  isAccountsSpec,
} from './accounts-features.js';
import type { SubmittedVerdictArgs } from './evaluator.js';
import { BROWSER_CHECKS, type BrowserCheck } from './evaluator-checks.js';
import { MEAL_PLANNER_EXAMPLE } from './meal-planner/example.js';
import type { ScriptIO } from './script.js';
import {
  featureListJson,
  featureMentionedIn,
  type ScriptedFeature,
  squash,
  TODO_FEATURES,
  verifyCommand,
} from './todo-features.js';
import { SCRIPTED_SOURCES_DIR } from './todo-sources.js';

/** One example app the scripted roles can build and check. */
export interface ScriptedExample {
  name: string;
  /** Whether the text is this example's spec. */
  isSpec(text: string): boolean;
  features: readonly ScriptedFeature[];
  /** The folder holding `skeleton/` and `features/<dir>/`. */
  sourcesDir: string;
  featureListJson(count?: number): string;
  /** A shell check (`verifyCommand` body) that the skeleton serves its page. */
  skeletonServes: string;
  /** The whole shell script of a check (`verify`) against the app started from `init.sh`. */
  verifyCommand(checks: string, okMessage: string): string;
  checks: Readonly<Record<string, BrowserCheck>>;
  /** The evaluator's check of a feature when the example brings its own runner (else `checks[feature.check]`). */
  evaluate?(
    io: ScriptIO,
    url: string,
    featureId: string,
    feature: ScriptedFeature,
    tag: string,
  ): SubmittedVerdictArgs;
}

/** The todo demo (examples/todo). */
export const TODO_EXAMPLE: ScriptedExample = {
  name: 'todo',
  isSpec: (text) => /todo/i.test(text) && /items? left/i.test(text),
  features: TODO_FEATURES,
  sourcesDir: SCRIPTED_SOURCES_DIR,
  featureListJson,
  skeletonServes: `curl -sf "$base/" | grep -q '<h1>Todos</h1>' || fail "the page did not load"`,
  verifyCommand,
  checks: BROWSER_CHECKS,
};

/** The app with accounts (examples/accounts): sign up, log in and out, private notes. */
export const ACCOUNTS_EXAMPLE: ScriptedExample = {
  name: 'accounts',
  isSpec: isAccountsSpec,
  features: ACCOUNTS_FEATURES,
  sourcesDir: path.resolve(SCRIPTED_SOURCES_DIR, '../../accounts/scripted'),
  featureListJson: accountsFeatureListJson,
  skeletonServes: `curl -sf "$base/" | grep -q '<h1>Notes</h1>' || fail "the page did not load"`,
  verifyCommand,
  checks: ACCOUNTS_CHECKS,
};

/**
 * Every example, the accounts one before the todo one (the todo spec's "Out of scope" names accounts, not the
 * reverse) and the meal planner first (its long descriptions hold no other example's).
 */
export const EXAMPLES: readonly ScriptedExample[] = [MEAL_PLANNER_EXAMPLE, ACCOUNTS_EXAMPLE, TODO_EXAMPLE];

/** The example whose spec the text is. */
export function exampleOfSpec(text: string): ScriptedExample | undefined {
  return EXAMPLES.find((example) => example.isSpec(text));
}

/** A feature of some example and that example. */
export interface ExampleFeature {
  example: ScriptedExample;
  feature: ScriptedFeature;
}

/** The feature (of any example) whose description, or else all of whose steps, the text holds. */
export function exampleFeatureIn(text: string): ExampleFeature | undefined {
  for (const example of EXAMPLES) {
    const feature = featureMentionedIn(text, example.features);
    if (feature) return { example, feature };
  }
  return undefined;
}

/** The feature (of any example) with exactly this description. */
export function exampleFeatureDescribed(description: string): ExampleFeature | undefined {
  for (const example of EXAMPLES) {
    const feature = example.features.find(
      (candidate) => squash(candidate.description) === squash(description),
    );
    if (feature) return { example, feature };
  }
  return undefined;
}

/** The example a feature belongs to. */
export function exampleOf(feature: ScriptedFeature): ScriptedExample {
  return EXAMPLES.find((example) => example.features.includes(feature)) ?? TODO_EXAMPLE;
}
