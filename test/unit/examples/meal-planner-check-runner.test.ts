// The check interpreter's decisions, on canned browser results (the real browser is in
// test/integration/examples/meal-planner-app.test.ts): a pass quotes the page, a missing element fails its step with
// what the page shows, a page that never loads blocks the check, and names holding ": " are read.
import { describe, expect, it } from 'vitest';
import { MealPlannerFeature } from '../../../testkit/policies/meal-planner/catalogue.js';
import type { CheckStepInput } from '../../../testkit/policies/meal-planner/check-format.js';
import { unquoteYamlKeys } from '../../../testkit/policies/meal-planner/check-page.js';
import { runMealPlannerCheck } from '../../../testkit/policies/meal-planner/check-runner.js';
import type { CallResult, ScriptIO } from '../../../testkit/policies/script.js';

function page(url: string, snapshot: string, extra = ''): string {
  return `Done.${extra}\nPage URL: ${url}\nPage title: t\nSnapshot:\n${snapshot}`;
}

const LIST_PAGE = page(
  'http://app.test/plan',
  [
    '- heading "Meal plan" [level=1] [ref=e1]',
    '- list "Tuesday" [ref=e2]:',
    '  - listitem [ref=e3]:',
    '    - text: "Lunch: Soup k1"',
    '    - \'button "Remove Lunch: Soup k1" [ref=e4]\': Remove',
  ].join('\n'),
);

/** A ScriptIO that answers each call from `answer` and records the calls. */
function cannedIo(answer: (name: string, args: Record<string, unknown>) => CallResult): {
  io: ScriptIO;
  calls: string[];
} {
  const calls: string[] = [];
  const io: ScriptIO = {
    system: '',
    firstMessage: '',
    toolNames: [],
    tag: 'k1',
    act: (batch) => batch.map((call) => answer(call.name, call.arguments as Record<string, unknown>)),
    call: (name, args) => {
      calls.push(name);
      return answer(name, args);
    },
    finish: () => '',
  };
  return { io, calls };
}

function feature(check: CheckStepInput[]): MealPlannerFeature {
  return MealPlannerFeature.parse({
    key: 'probe',
    area: 'meal plan',
    category: 'functional',
    description: 'a probe feature for the interpreter',
    steps: check.map((_, index) => `step ${index + 1}`),
    dependsOn: [],
    sourceDir: 'none',
    insertions: [{ path: 'a', marker: 'b', lines: ['c'] }],
    verify: 'true',
    summary: 'probe',
    check,
    regression: { path: 'a', find: 'b', replace: 'c', breaks: 'd' },
  });
}

const ok = (content: string): CallResult => ({ name: 'x', arguments: {}, content, isError: false });

describe('the meal-planner check interpreter', () => {
  it('quotes what the page shows in a step that only saw things gone (a grounded pass quotes the page)', () => {
    const { io } = cannedIo(() => ok(LIST_PAGE));
    const verdict = runMealPlannerCheck(
      io,
      'http://app.test/',
      'F-001',
      feature([
        { do: [{ goto: '/plan' }], expect: [{ see: 'Meal plan' }] },
        { do: [], expect: [{ notSee: 'Signed in as' }, { noElement: { role: 'button', name: 'Log out' } }] },
      ]),
      'k1',
    );
    expect(verdict.verdict).toBe('pass');
    expect(verdict.steps[1]?.evidence).toMatch(/no longer shows Signed in as/);
    expect(verdict.steps[1]?.evidence).toMatch(/heading says "Meal plan"/);
  });

  it('passes when the page shows what the step expects, quoting it, and reads names holding ": "', () => {
    const { io } = cannedIo(() => ok(LIST_PAGE));
    const verdict = runMealPlannerCheck(
      io,
      'http://app.test/',
      'F-001',
      feature([
        { do: [{ goto: '/plan' }], expect: [{ list: 'Tuesday', has: ['Lunch: Soup {tag}'] }] },
        {
          do: [{ click: { role: 'button', name: 'Remove Lunch: Soup {tag}' } }],
          expect: [{ path: '/plan' }],
        },
      ]),
      'k1',
    );
    expect(verdict.verdict).toBe('pass');
    expect(verdict.steps[0]?.evidence).toContain('"Lunch: Soup k1"');
  });

  it('fails the step whose element is missing, with what the page shows, and marks the rest not performed', () => {
    const { io } = cannedIo(() => ok(LIST_PAGE));
    const verdict = runMealPlannerCheck(
      io,
      'http://app.test/',
      'F-002',
      feature([
        { do: [{ goto: '/plan' }] },
        { do: [{ click: { role: 'button', name: 'Clear this week' } }] },
        { expect: [{ see: 'Cleared' }] },
      ]),
      'k1',
    );
    expect(verdict.verdict).toBe('fail');
    expect(verdict.issues[0]).toMatch(
      /no button "Clear this week"\. The page is \/plan; its heading says "Meal plan"/,
    );
    expect(verdict.steps.map((step) => step.ok)).toEqual([true, false, false]);
  });

  it('blocks the check when the first page does not load, and fails a later one that does not', () => {
    const refused: CallResult = {
      name: 'browser_navigate',
      arguments: {},
      content: 'net::ERR_CONNECTION_REFUSED',
      isError: true,
    };
    const blocked = runMealPlannerCheck(
      cannedIo(() => refused).io,
      'http://app.test/',
      'F-003',
      feature([{ do: [{ goto: '/' }] }, {}]),
      'k1',
    );
    expect(blocked.verdict).toBe('blocked');
    let answered = 0;
    const later = cannedIo(() => {
      answered += 1;
      return answered === 1 ? ok(LIST_PAGE) : refused;
    });
    const failed = runMealPlannerCheck(
      later.io,
      'http://app.test/',
      'F-004',
      feature([{ do: [{ goto: '/' }] }, { do: [{ goto: '/x' }] }]),
      'k1',
    );
    expect(failed.verdict).toBe('fail');
  });

  it('sees the dialog an action reported', () => {
    const withDialog = page(
      'http://app.test/recipes/1',
      '- heading "Soup" [ref=e1]',
      '\nA confirm dialog appeared: "Delete Soup? This cannot be undone." (accepted).',
    );
    const { io } = cannedIo((name) =>
      ok(
        name === 'browser_navigate'
          ? page('http://app.test/recipes/1', '- button "Delete recipe" [ref=e2]')
          : withDialog,
      ),
    );
    const verdict = runMealPlannerCheck(
      io,
      'http://app.test/',
      'F-005',
      feature([
        {
          do: [{ goto: '/recipes/1' }, { click: { role: 'button', name: 'Delete recipe' } }],
          expect: [{ dialogSaid: 'Delete Soup?' }],
        },
        { expect: [{ dialogSaid: 'Delete Soup?' }] },
      ]),
      'k1',
    );
    expect(verdict.verdict).toBe('fail');
    expect(verdict.steps[0]?.ok).toBe(true);
    expect(verdict.issues[0]).toMatch(/dialogs seen: none/);
  });

  it("sends a form's fields and its button in one reply, and one action a reply when an element is not on the page", () => {
    const FORM = page(
      'http://app.test/recipes/new',
      [
        '- heading "New recipe" [ref=e1]',
        '- textbox "Title" [ref=e2]',
        '- textbox "Minutes" [ref=e3]',
        '- button "Save recipe" [ref=e4]',
      ].join('\n'),
    );
    const replies: string[][] = [];
    const answer = (): CallResult => ok(FORM);
    const io: ScriptIO = {
      ...cannedIo(answer).io,
      act: (batch) => {
        replies.push(
          batch.map((call) =>
            `${call.name} ${String((call.arguments as { ref?: string }).ref ?? '')}`.trim(),
          ),
        );
        return batch.map(answer);
      },
      call: (name, args) => {
        replies.push([`${name} ${String(args.ref ?? '')}`.trim()]);
        return answer();
      },
    };
    const fill = (name: string, text: string) => ({ fill: { role: 'textbox', name }, text });
    const verdict = runMealPlannerCheck(
      io,
      'http://app.test/',
      'F-006',
      feature([
        {
          do: [
            { goto: '/recipes/new' },
            fill('Title', 'Soup {tag}'),
            fill('Minutes', '20'),
            { click: { role: 'button', name: 'Save recipe' } },
          ],
          expect: [{ see: 'New recipe' }],
        },
        // "Notes" is not on the snapshot: no form can be planned, each action goes alone (and fails there).
        { do: [fill('Title', 'Stew'), fill('Notes', 'x')] },
      ]),
      'k1',
    );
    expect(replies).toEqual([
      ['browser_navigate'],
      ['browser_type e2', 'browser_type e3', 'browser_click e4'],
      ['browser_type e2'],
    ]);
    expect(verdict.steps[0]?.evidence).toContain('Typed "Soup k1" into the textbox "Title". Typed "20"');
    expect(verdict.steps[0]?.evidence).toContain('Clicked the button "Save recipe".');
    expect(verdict.issues[0]).toMatch(/no textbox "Notes"/);
  });

  it('unquotes the YAML keys of element lines only', () => {
    expect(unquoteYamlKeys("  - 'link \"A: b\" [ref=e1]':\n  - text: 'x: y'")).toBe(
      '  - link "A: b" [ref=e1]:\n  - text: \'x: y\'',
    );
  });
});
