/**
 * The recorded check of a feature: what the evaluator did in the browser (with stable locators) and what it
 * saw afterwards. One zod schema for the file `.nightshift/checks/<id>.json`, the replay and the codegen.
 */
import { z } from 'zod';
import { FeatureId } from '../handoff/formats.js';
import { appPathOf, STORED_PATH_ORIGIN } from './app-path.js';
import { canonicalLocatorCode, LocatorCodeError } from './locator-code.js';

/** Locator code in the safe grammar of `locator-code.ts`, stored canonically. */
export const LocatorCode = z.string().transform((code, ctx) => {
  try {
    return canonicalLocatorCode(code);
  } catch (error) {
    ctx.addIssue({
      code: 'custom',
      message: error instanceof LocatorCodeError ? error.message : String(error),
    });
    return z.NEVER;
  }
});

/**
 * A page of the app a check opens, stored as `/path?query#hash` (checks/app-path.ts): anything that would leave the
 * app's origin once resolved (`//host`, `/\host`, another scheme or host) is refused, not rewritten.
 */
export const AppPath = z
  .string()
  .min(1)
  .transform((path, ctx) => {
    const canonical = appPathOf(path, STORED_PATH_ORIGIN);
    if (canonical !== null) return canonical;
    ctx.addIssue({
      code: 'custom',
      message: `${JSON.stringify(path.slice(0, 200))} is not a path on the app (it resolves to another origin); a check opens only /path?query#hash on the app`,
    });
    return z.NEVER;
  });

/** What to do with a dialog (alert, confirm, prompt) the action opens. */
export const DialogChoice = z.enum(['accept', 'dismiss']);

/** One browser action of a check, in order. */
export const CheckAction = z.discriminatedUnion('kind', [
  /** A path on the app (`/path?query#hash`): replays resolve it against the app's base URL. */
  z.object({ kind: z.literal('goto'), path: AppPath }),
  z.object({
    kind: z.literal('click'),
    target: LocatorCode,
    /** How the dialog the click opens is answered (dialogs are accepted when not said). */
    dialog: DialogChoice.optional(),
    /** Text entered into the prompt() the click opens, when it is accepted. */
    promptText: z.string().optional(),
    /** The click opened a popup; the check goes on in it. */
    popup: z.boolean().optional(),
  }),
  /** Replaces the field's value. */
  z.object({ kind: z.literal('fill'), target: LocatorCode, text: z.string() }),
  /** Replaces the field's value key by key (for fields that react to keystrokes): `browser_type` with `slowly`. */
  z.object({ kind: z.literal('type'), target: LocatorCode, text: z.string() }),
  /** A key on the target, or on the focused element without one. */
  z.object({ kind: z.literal('press'), key: z.string().min(1), target: LocatorCode.optional() }),
  z.object({ kind: z.literal('select'), target: LocatorCode, values: z.array(z.string()).min(1) }),
  z.object({ kind: z.literal('hover'), target: LocatorCode }),
  z.object({ kind: z.literal('check'), target: LocatorCode, checked: z.boolean() }),
  z.object({ kind: z.literal('back') }),
  /** Drags the target onto `to`. */
  z.object({ kind: z.literal('drag'), target: LocatorCode, to: LocatorCode }),
  z.object({
    kind: z.literal('resize'),
    width: z.number().int().positive(),
    height: z.number().int().positive(),
  }),
  /** Goes on in the tab at this index (0 = the first page, then popups in opening order). */
  z.object({ kind: z.literal('tab'), index: z.number().int().nonnegative() }),
]);
export type CheckAction = z.infer<typeof CheckAction>;

/** One expectation, checked after the actions. */
export const CheckExpectation = z.discriminatedUnion('kind', [
  /** Text on the page (whitespace-tolerant); `visible: false` asserts it is gone. */
  z.object({ kind: z.literal('text'), text: z.string().min(1), visible: z.boolean().default(true) }),
  /** The page's path (and query), compared without the origin. */
  z.object({ kind: z.literal('url'), path: z.string().min(1) }),
  z.object({ kind: z.literal('title'), title: z.string() }),
  z.object({ kind: z.literal('value'), target: LocatorCode, value: z.string() }),
  z.object({ kind: z.literal('checked'), target: LocatorCode, checked: z.boolean() }),
  z.object({ kind: z.literal('count'), target: LocatorCode, count: z.number().int().nonnegative() }),
  /**
   * A text whose numbers are counted from the same text read after one of the check's own actions ("1 item left"
   * as one more than the "0 items left" shown after it opened the page), so it holds whatever data other checks
   * or sessions left in the app. `text` is what the recording saw at the end, `baseline` what it saw then.
   */
  z.object({
    kind: z.literal('relativeText'),
    text: z.string().min(1),
    baseline: z.object({ afterAction: z.number().int().nonnegative(), text: z.string().min(1) }),
  }),
]);
export type CheckExpectation = z.infer<typeof CheckExpectation>;

/** Where a check version came from. */
export const CheckOrigin = z.object({
  runId: z.string(),
  session: z.number().int().nonnegative(),
  /** `evaluate`: a first pass; `rerecord`: an LLM evaluator passed the feature after its old check went red. */
  reason: z.enum(['evaluate', 'rerecord', 'manual']),
});

/** One version of a feature's recorded check. */
export const RecordedCheck = z
  .object({
    featureId: FeatureId,
    version: z.number().int().positive(),
    recordedAt: z.string(),
    origin: CheckOrigin,
    actions: z.array(CheckAction).min(1, 'a check performs at least one action'),
    expectations: z.array(CheckExpectation).min(1, 'a check states at least one expectation'),
  })
  .superRefine((check, ctx) => {
    check.expectations.forEach((expectation, index) => {
      if (expectation.kind === 'relativeText' && expectation.baseline.afterAction >= check.actions.length) {
        ctx.addIssue({
          code: 'custom',
          path: ['expectations', index, 'baseline', 'afterAction'],
          message: `the check has ${check.actions.length} action(s): a baseline is read after one of them (0-based)`,
        });
      }
    });
  });
export type RecordedCheck = z.infer<typeof RecordedCheck>;
/** A check as written before the schema fills defaults (what callers build). */
export type RecordedCheckInput = z.input<typeof RecordedCheck>;

/** `.nightshift/checks/<id>.json`: the current version, the ones it replaced (oldest first), flakiness. */
export const CheckFile = z.object({
  featureId: FeatureId,
  current: RecordedCheck,
  history: z.array(RecordedCheck),
  /** Set when the check failed its replay right after it was recorded (the expectation that failed). */
  flaky: z.object({ at: z.string(), failure: z.string() }).nullable(),
});
export type CheckFile = z.infer<typeof CheckFile>;

/** One line describing an expectation, for tables, feedback and test titles. */
export function describeExpectation(expectation: CheckExpectation): string {
  switch (expectation.kind) {
    case 'text':
      return `text ${JSON.stringify(expectation.text)} ${expectation.visible ? 'is visible' : 'is not visible'}`;
    case 'url':
      return `the URL path is ${expectation.path}`;
    case 'title':
      return `the title is ${JSON.stringify(expectation.title)}`;
    case 'value':
      return `${expectation.target} has the value ${JSON.stringify(expectation.value)}`;
    case 'checked':
      return `${expectation.target} is ${expectation.checked ? 'checked' : 'not checked'}`;
    case 'count':
      return `${expectation.target} matches ${expectation.count} element(s)`;
    case 'relativeText':
      return `text like ${JSON.stringify(expectation.text)} is visible, its numbers counted from ${JSON.stringify(expectation.baseline.text)} after action ${expectation.baseline.afterAction + 1}`;
  }
}

/** One line describing an action, for failure reports and the sprint contract. */
export function describeAction(action: CheckAction): string {
  switch (action.kind) {
    case 'goto':
      return `open ${action.path}`;
    case 'fill':
    case 'type':
      return `${action.kind} ${JSON.stringify(action.text)} into ${action.target}`;
    case 'press':
      return `press ${action.key}${action.target ? ` on ${action.target}` : ''}`;
    case 'select':
      return `select ${JSON.stringify(action.values)} in ${action.target}`;
    case 'check':
      return `${action.checked ? 'check' : 'uncheck'} ${action.target}`;
    case 'back':
      return 'go back';
    case 'drag':
      return `drag ${action.target} onto ${action.to}`;
    case 'resize':
      return `resize the viewport to ${action.width} x ${action.height}`;
    case 'tab':
      return `switch to tab ${action.index}`;
    default:
      return `${action.kind} ${action.target}`;
  }
}
