import { describe, expect, it } from 'vitest';
import type { ObservationEntry } from '../../../agent/tools/browser-log.js';
import { groundPass } from '../../../evaluation/grounding.js';
import { actionWording, namesStep, stepActions, stepWords } from '../../../evaluation/grounding-steps.js';
import { contentWords, stem } from '../../../evaluation/grounding-words.js';
import type { VerdictStep } from '../../../handoff/formats.js';
import { TODO_FEATURES } from '../../../testkit/policies/todo-features.js';
import { observedSession, type SessionMove } from './observed-session.js';

const URL = 'http://127.0.0.1:4000/';

/** The todo page as the browser tools show it. */
function page(options: { items?: [string, boolean][]; left: number; typing?: string }): string {
  const items = (options.items ?? []).flatMap(([text, done], index) => [
    `    - listitem [ref=e${20 + index}]:`,
    `      - checkbox "Toggle ${text}"${done ? ' [checked]' : ''} [ref=e${30 + index}]`,
    `      - generic [ref=e${40 + index}]: ${text}`,
  ]);
  return [
    `Page URL: ${URL}`,
    'Page title: Todos',
    'Snapshot:',
    '- main [ref=e1]:',
    '  - heading "Todos" [level=1] [ref=e2]',
    `  - textbox "New todo" [ref=e3]${options.typing ? `: ${options.typing}` : ''}`,
    '  - button "Add" [ref=e4]',
    `  - list "Todos"${items.length ? ' [ref=e5]:' : ''}`,
    ...items,
    `  - status [ref=e6]: ${options.left} ${options.left === 1 ? 'item' : 'items'} left`,
  ].join('\n');
}

const MOVES: Record<string, SessionMove> = {
  open: { tool: 'browser_navigate', args: { url: URL }, view: page({ left: 0 }) },
  addMilk: {
    tool: 'browser_type',
    args: { ref: 'e3', text: 'Buy milk', submit: true },
    view: page({ items: [['Buy milk', false]], left: 1 }),
  },
  typeMum: {
    tool: 'browser_type',
    args: { ref: 'e3', text: 'Call mum' },
    view: page({ items: [['Buy milk', false]], left: 1, typing: 'Call mum' }),
  },
  clickAdd: {
    tool: 'browser_click',
    args: { ref: 'e4' },
    target: { ref: 'e4', role: 'button', name: 'Add' },
    view: page({
      items: [
        ['Buy milk', false],
        ['Call mum', false],
      ],
      left: 2,
    }),
  },
  tickMilk: {
    tool: 'browser_click',
    args: { ref: 'e30' },
    target: { ref: 'e30', role: 'checkbox', name: 'Toggle Buy milk' },
    view: page({
      items: [
        ['Buy milk', true],
        ['Call mum', false],
      ],
      left: 1,
    }),
  },
  reload: {
    tool: 'browser_navigate',
    args: { url: URL },
    view: page({
      items: [
        ['Buy milk', true],
        ['Call mum', false],
      ],
      left: 1,
    }),
  },
  look: {
    tool: 'browser_snapshot',
    args: {},
    view: page({
      items: [
        ['Buy milk', true],
        ['Call mum', false],
      ],
      left: 1,
    }),
    look: true,
  },
  lookTyping: {
    tool: 'browser_snapshot',
    args: {},
    view: page({ items: [['Buy milk', false]], left: 1, typing: 'Call mum' }),
    look: true,
  },
};

const ALL_MOVES = ['open', 'addMilk', 'typeMum', 'clickAdd', 'tickMilk', 'reload', 'look'];

/** A session as the observation log records it: the moves in order, a page error after the tick if asked. */
function session(moves = ALL_MOVES, pageError?: string): readonly ObservationEntry[] {
  const made = moves.map((name) => {
    const move = MOVES[name] as SessionMove;
    return pageError && name === 'reload' ? { ...move, consoleBefore: `[pageerror] ${pageError}` } : move;
  });
  return observedSession(made, URL);
}

const FEATURE = {
  description: 'Todos: add todos with the "New todo" box and tick them done; the list survives a reload',
  steps: [
    'Open the app',
    'Type "Buy milk" into the "New todo" box and press Enter',
    'The list shows the new todo and the "New todo" box is empty',
    'Type "Call mum" into the "New todo" box and click the "Add" button',
    'The status line says "2 items left"',
    'Tick the checkbox of "Buy milk"',
    'Reload the page',
    'The checkbox of "Buy milk" is still checked and the status says "1 item left"',
  ],
};

const HONEST: VerdictStep[] = [
  { step: FEATURE.steps[0] as string, ok: true, evidence: 'The page shows the heading "Todos".' },
  { step: FEATURE.steps[1] as string, ok: true, evidence: 'Typed "Buy milk" and pressed Enter.' },
  { step: FEATURE.steps[2] as string, ok: true, evidence: 'The list shows "Buy milk"; the box is empty.' },
  { step: FEATURE.steps[3] as string, ok: true, evidence: 'Typed "Call mum" and clicked "Add".' },
  { step: FEATURE.steps[4] as string, ok: true, evidence: 'The status says "2 items left".' },
  { step: FEATURE.steps[5] as string, ok: true, evidence: 'Ticked "Toggle Buy milk".' },
  { step: FEATURE.steps[6] as string, ok: true, evidence: 'Reloaded.' },
  {
    step: FEATURE.steps[7] as string,
    ok: true,
    evidence:
      'Still `- checkbox "Toggle Buy milk" [checked] [ref=e30]`, and `- status [ref=e6]: 1 item left`.',
  },
];

/** The honest pass with step `index`'s entry changed. */
function changed(index: number, change: Partial<VerdictStep>): VerdictStep[] {
  return HONEST.map((step, at) => (at === index ? { ...step, ...change } : step));
}

function problems(steps: VerdictStep[], entries = session()): string[] {
  const result = groundPass(FEATURE, { steps }, entries);
  return result.grounded ? [] : result.problems;
}

describe('grounding accepts what an honest model writes', () => {
  it('accepts the plain honest pass', () => {
    expect(problems(HONEST)).toEqual([]);
  });

  it.each([
    ['a past tense step', 1, { step: 'Typed "Buy milk" into the "New todo" box and pressed Enter' }],
    [
      '"the X field" and another preposition',
      1,
      { step: 'Typed Buy milk in the New todo field and hit Enter' },
    ],
    ['a leading "I"', 0, { step: 'I opened the app' }],
    ['numbering and no articles', 6, { step: 'Step 7: Reload page' }],
    ['"the X button"', 3, { step: 'Typed Call mum and pressed the Add button' }],
    ['a terse step', 2, { step: 'Todo listed, box empty' }],
    ['single quotes', 2, { evidence: "The list shows 'Buy milk'; the box is empty." }],
    ['curly double quotes', 2, { evidence: 'The list shows “Buy milk”.' }],
    ['curly single quotes with the full stop inside', 2, { evidence: 'The list shows ‘Buy milk.’' }],
    ['backticks', 2, { evidence: 'The list shows `Buy milk`.' }],
    ['extra spaces inside the quote', 4, { evidence: 'The status says "  2 items left ".' }],
    [
      'apostrophes in the prose',
      2,
      { evidence: "It's there: 'Buy milk' (the todo's text); nothing didn't render." },
    ],
    ['a copied snapshot line', 0, { evidence: 'I see `heading "Todos" [level=1]`.' }],
    [
      'a snapshot line without backticks',
      5,
      { evidence: '- checkbox "Toggle Buy milk" [checked] [ref=e30]' },
    ],
    ['the name of the element it clicked', 5, { evidence: 'Clicked the checkbox "Toggle Buy milk".' }],
    ['an action step without a quote', 5, { evidence: 'Done.' }],
    ['the step repeated with the outcome quoted', 4, { evidence: 'The status line says "2 items left".' }],
  ])('accepts %s', (_name, index, change) => {
    expect(problems(changed(index, change))).toEqual([]);
  });
});

describe('grounding refuses what a cheating model writes', () => {
  it.each([
    [
      'a quote never shown',
      2,
      { evidence: 'The list shows "Buy bread".' },
      /Step 3 .* quotes "Buy bread" but the browser never showed/,
    ],
    [
      'a quote shown only before the step',
      7,
      { evidence: 'It says "2 items left".' },
      /Step 8 .* quotes "2 items left", which the page showed only before reloading the page/,
    ],
    [
      'text shown only as its own typing',
      4,
      { evidence: 'The status says "2 items left" and the list "Call mum".' },
      undefined,
    ],
    [
      'an outcome without a quote',
      2,
      { evidence: 'It worked.' },
      /Step 3 .* quotes nothing; put in quotes the text the page showed after typing "Buy milk"/,
    ],
    [
      'the step copied as evidence',
      2,
      { evidence: FEATURE.steps[2] },
      /Step 3 .* only repeats the step's own words/,
    ],
    [
      'the description as evidence',
      2,
      { evidence: FEATURE.description },
      /Step 3 .* only repeats the feature description/,
    ],
    [
      'an entry naming another step',
      2,
      { step: FEATURE.steps[1] },
      /Step 3 .* your entry reads .*which reads like step 2; write this step as the feature has it/,
    ],
    [
      'an unrelated entry',
      6,
      { step: 'Admire the colours' },
      /Step 7 "Reload the page" — your entry reads "Admire the colours"/,
    ],
    ['a step that is not ok', 4, { ok: false }, /Step 5 .* you marked it not ok/],
  ])('refuses %s', (_name, index, change, expected) => {
    const found = problems(changed(index, change as Partial<VerdictStep>));
    if (expected) expect(found.join('\n')).toMatch(expected);
    else expect(found).toEqual([]);
  });

  it('refuses a quote the page showed only in a field the session typed it into', () => {
    const feature = { steps: ['Open the app', 'Type "Call mum" into the box', 'The list shows "Call mum"'] };
    const steps = [
      { step: 'Open the app', ok: true, evidence: 'The heading "Todos".' },
      { step: 'Type "Call mum" into the box', ok: true, evidence: 'Typed.' },
      { step: 'The list shows "Call mum"', ok: true, evidence: 'It shows "Call mum".' },
    ];
    const result = groundPass(feature, { steps }, session(['open', 'addMilk', 'typeMum', 'lookTyping']));
    expect(result).toEqual({
      grounded: false,
      problems: [
        expect.stringMatching(
          /^Step 3 .* "Call mum", which the page showed only in a field you typed it into/,
        ),
      ],
    });
  });

  it('refuses a missing entry, naming the step that has none', () => {
    const steps = HONEST.filter((_, index) => index !== 6);
    expect(problems(steps)).toEqual([
      'Step 7 "Reload the page" has no entry in your pass — add one (one entry per feature step, 8 in all, in the feature\'s order).',
    ]);
  });

  it('refuses a step whose action was never performed', () => {
    const skipped = session(ALL_MOVES.filter((move) => move !== 'reload'));
    expect(problems(HONEST, skipped)).toEqual([
      'Step 7 "Reload the page" — the session shows no navigation or reload after step 6; perform it (browser_navigate), then quote what the page showed.',
    ]);
    // Without the click on Add, the tick and the reload stand in for it, and the actions run out at step 7; the
    // outcome between them was never on screen.
    const noClick = problems(HONEST, session(ALL_MOVES.filter((move) => move !== 'clickAdd')));
    expect(noClick).toEqual([
      expect.stringMatching(/^Step 5 .* quotes "2 items left" but the browser never showed that text/),
      expect.stringMatching(
        /^Step 7 "Reload the page" — the session shows no navigation or reload after step 6/,
      ),
    ]);
  });

  it('refuses a pass with no browser action at all', () => {
    expect(problems(HONEST, session(['look']))).toEqual([
      'No browser action was performed in this session: open the app and perform the steps before passing.',
    ]);
  });

  it('refuses a pass over a page error unless a step quotes and explains it', () => {
    const entries = session(ALL_MOVES, 'TypeError: badge is undefined');
    expect(problems(HONEST, entries)).toEqual([
      expect.stringMatching(/^The page raised an error \(observation 6\)/),
    ]);
    const explained = changed(6, {
      evidence: 'Reloaded; the console\'s "TypeError: badge is undefined" comes from an extension.',
    });
    expect(problems(explained, entries)).toEqual([]);
  });

  it('does not take snapshot refs for page text', () => {
    expect(problems(changed(2, { evidence: 'The element "ref=e5" and "e30".' })).join('\n')).toMatch(
      /quotes "ref=e5" but the browser never showed/,
    );
  });
});

describe('matching steps by meaning', () => {
  // The demo's "complete a todo": seven steps, five of them about one checkbox.
  const complete = TODO_FEATURES.find((feature) => feature.check === 'complete');
  const todoSteps = (complete?.steps ?? []).map(stepWords);

  it.each([
    ['Opened the app and created a todo with a unique title', 0],
    ['I clicked the checkbox next to the todo', 1],
    ['Checked', 2],
    ['Refreshed the page', 3],
    ['Still checked after the reload', 4],
    ['Click it again', 5],
    ['Unchecked', 6],
  ])('names the step: "%s" is step %i', (entry, index) => {
    expect(namesStep(entry, todoSteps, index)).toBe(true);
  });

  it.each([
    ['Reload the page', 1],
    ['Click the checkbox again', 2],
    ['The checkbox is unchecked', 4],
    ['Admire the colours', 0],
  ])('does not take "%s" for step %i', (entry, index) => {
    expect(namesStep(entry, todoSteps, index)).toBe(false);
  });

  it('stems inflections and maps interface synonyms', () => {
    expect(['typed', 'typing', 'types', 'type'].map(stem)).toEqual(['type', 'type', 'type', 'type']);
    expect(['added', 'adding', 'clicked', 'noted', 'replaced', 'replace'].map(stem)).toEqual([
      'add',
      'add',
      'click',
      'note',
      'replac',
      'replac',
    ]);
    expect(contentWords('I typed it in the Title field')).toEqual(contentWords('Type it into the title box'));
  });

  it.each([
    ['Open the app', ['navigate']],
    ['Reload the page', ['navigate']],
    ['Type a todo (e.g. "Buy milk") into the box and press Enter', ['any']],
    ['Type another todo and click the "Add" button', ['any', 'any']],
    [
      'Open the app, add two todos and tick the checkbox of the second one',
      ['navigate', 'any', 'any', 'any'],
    ],
    ['Open the app and note the number N in the status line', ['navigate']],
    ['Replace the text with a new unique text and press Enter', ['any']],
    ['The list shows the new todo and the "New todo" box is empty', []],
    ["An edit box holding the todo's text appears", []],
    ['Check that the list shows "Buy milk"', []],
    ['Then click "Save"', ['any']],
  ])('knows what "%s" asks of the browser', (step, needs) => {
    expect(stepActions(step)).toEqual(needs);
  });

  it('words a step as what was done, for a send-back', () => {
    expect(actionWording('Press Enter')).toBe('pressing Enter');
    expect(actionWording('Type a todo (e.g. "Buy milk") into the box and press Enter')).toBe(
      'typing a todo into the box and pressing Enter',
    );
    expect(actionWording('Open the app, add two todos and tick the checkbox of the second one')).toBe(
      'opening the app, adding two todos and ticking the checkbox of the second one',
    );
  });
});
