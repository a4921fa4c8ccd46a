import { describe, expect, it } from 'vitest';
import { countedFromBaseline, recordSegment } from '../../../checks/recorder.js';
import {
  expectedNumbers,
  numberPattern,
  numbersMatched,
  sourceWithNumbers,
} from '../../../checks/relative-text.js';
import { BASE, entry } from './observations.js';

const TEXTBOX = {
  ref: 'e3',
  role: 'textbox',
  name: 'New todo',
  locator: "getByRole('textbox', { name: 'New todo' })",
};

const status = (text: string) => `- heading "Todos" [level=1]\n- status [ref=e9]: ${text}`;

describe('numbers counted from what the check saw itself', () => {
  it('turns a text into a pattern of its numbers, tolerant of plural endings and spacing', () => {
    const pattern = numberPattern('1 item left');
    expect(pattern?.numbers).toEqual([1]);
    const regex = new RegExp(pattern?.source ?? '', 'i');
    for (const shown of ['0 items left', '1 item left', '12  items left', 'Status: 3 items left today'])
      expect(regex.test(shown), shown).toBe(true);
    for (const shown of ['items left', '1 thing left', '1item left'])
      expect(regex.test(shown), shown).toBe(false);
    expect(numbersMatched(pattern as NonNullable<typeof pattern>, 'now 27 items left')).toEqual([27]);
    expect(numberPattern('No todos yet')).toBeUndefined();
  });

  it('expects the numbers read at the baseline plus what the recording changed, number by number', () => {
    expect(expectedNumbers('1 item left', '0 items left', [7])).toEqual([8]);
    expect(expectedNumbers('2 of 5 done', '0 of 3 done', [4, 10])).toEqual([6, 12]);
    const pattern = numberPattern('2 of 5 done') as NonNullable<ReturnType<typeof numberPattern>>;
    const wanted = new RegExp(sourceWithNumbers(pattern, [6, 12]), 'i');
    expect(wanted.test('6 of 12 done')).toBe(true);
    expect(wanted.test('16 of 12 done')).toBe(false);
    expect(wanted.test('6 of 120 done')).toBe(false);
  });

  it('records "1 item left" as one more than the "0 items left" seen after opening the page', () => {
    const log = [
      entry(
        'browser_navigate',
        { url: BASE },
        { navigation: { url: BASE }, snapshot: status('0 items left') },
      ),
      entry(
        'browser_type',
        { ref: 'e3', text: 'Book dentist', submit: true },
        { target: TEXTBOX, snapshot: status('1 item left') },
      ),
      entry(
        'browser_type',
        { ref: 'e3', text: 'Renew passport', submit: true },
        { target: TEXTBOX, snapshot: status('2 items left') },
      ),
      entry('browser_snapshot', {}, { snapshot: status('2 items left') }),
    ];
    const segment = recordSegment(log, 0, BASE);
    expect(segment.actionSeqs).toHaveLength(segment.actions.length);
    const counted = countedFromBaseline(
      [
        { kind: 'text', text: '2 items left', visible: true },
        { kind: 'text', text: 'Book dentist', visible: true },
        { kind: 'text', text: 'Gone', visible: false },
      ],
      log,
      segment,
    );
    expect(counted).toEqual([
      { kind: 'relativeText', text: '2 items left', baseline: { afterAction: 0, text: '0 items left' } },
      { kind: 'text', text: 'Book dentist', visible: true },
      { kind: 'text', text: 'Gone', visible: false },
    ]);
  });

  it('keeps a number first shown after the last action, and a text holding typed data, as they are', () => {
    const log = [
      entry('browser_navigate', { url: BASE }, { navigation: { url: BASE }, snapshot: '- heading "Todos"' }),
      entry(
        'browser_type',
        { ref: 'e3', text: 'Buy 2 apples', submit: true },
        { target: TEXTBOX, snapshot: status('Saved 1 todo') },
      ),
    ];
    const segment = recordSegment(log, 0, BASE);
    const kept = [
      { kind: 'text' as const, text: 'Saved 1 todo', visible: true },
      { kind: 'text' as const, text: 'Buy 2 apples', visible: true },
    ];
    expect(countedFromBaseline(kept, log, segment)).toEqual(kept);
  });
});
