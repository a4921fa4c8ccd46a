import { describe, expect, it } from 'vitest';
import {
  comparableText,
  containsPhrase,
  evidenceQuotes,
  parseSnapshotLine,
} from '../../../handoff/evidence.js';

const texts = (evidence: string) => evidenceQuotes(evidence).map((quote) => quote.text);

describe('evidence quotes', () => {
  it.each([
    ['double quotes', 'The list shows "Buy milk" and "Call mum".', ['Buy milk', 'Call mum']],
    ['single quotes', "The list shows 'Buy milk' and 'Call mum'.", ['Buy milk', 'Call mum']],
    ['curly double quotes', 'The list shows “Buy milk”.', ['Buy milk']],
    ['curly single quotes', 'The list shows ‘Buy milk’.', ['Buy milk']],
    ['backticks', 'The list shows `Buy milk`.', ['Buy milk']],
    ['guillemets and low quotes', 'Shows «Buy milk» and „Call mum“.', ['Buy milk', 'Call mum']],
    ['trailing punctuation inside', 'It says "1 item left." and "Saved!"', ['1 item left', 'Saved']],
    ['extra spaces inside', 'It says "  1   item left  ".', ['1 item left']],
    ['an ellipsis at the end', 'The heading reads "Todos…"', ['Todos']],
    ['apostrophes in words', "I didn't see 'Buy milk' in the todo's row, it's gone", ['Buy milk']],
    ['an apostrophe inside a single-quoted text', "The page says 'Don't forget'", ["Don't forget"]],
    ['a double-quoted text with an apostrophe', 'The page says "Don\'t forget"', ["Don't forget"]],
    ['a possessive plural', "the todos' boxes show 'Buy milk'", ['Buy milk']],
    ['an unterminated quote', 'It says "Buy milk and nothing closes', []],
    [
      'a typed value over two lines, each line leaving its mark unpaired',
      'Typed "200 g lentils\n1 onion" into the textbox "Ingredients". Typed "Simmer." into "Method".',
      ['200 g lentils 1 onion', 'Ingredients', 'Simmer', 'Method'],
    ],
    [
      'curly quotes over lines',
      'Typed “200 g lentils\n1 onion\nsalt” into it',
      ['200 g lentils 1 onion salt'],
    ],
    [
      'a stray mark before a line whose own quotes pair up (not swallowed)',
      'Clicked "Save\nThe page shows "Saved" and "Done".',
      ['Saved', 'Done'],
    ],
    ['a stray mark before a line with a quote of its own', 'It says "Buy\nthen "milk".', ['milk']],
    ['a mark that closes only six lines down', 'It says "a\nb\nc\nd\ne\nf" g', []],
    ['single quotes over lines (they double as apostrophes)', "It says 'Buy\nmilk' now", []],
  ])('reads %s', (_name, evidence, expected) => {
    expect(texts(evidence)).toEqual(expected);
  });

  it('reads a quote over lines only up to 300 characters', () => {
    const line = 'x'.repeat(140);
    expect(texts(`Typed "${line}\n${line}" here`)).toEqual([`${line} ${line}`]);
    expect(texts(`Typed "${line}\n${line}\n${line}" here`)).toEqual([]);
  });

  it('takes a snapshot line in backticks whole, with its parts', () => {
    const [quote] = evidenceQuotes('See `- checkbox "Toggle Buy milk" [checked] [ref=e12]` now.');
    expect(quote).toEqual({
      written: '- checkbox "Toggle Buy milk" [checked] [ref=e12]',
      text: 'Toggle Buy milk',
      line: { role: 'checkbox', name: 'Toggle Buy milk', states: ['checked'] },
    });
    expect(texts('`heading "Todos" [level=1]`')).toEqual(['Todos']);
    expect(texts('`- status [ref=e14]: 2 items left`')).toEqual(['2 items left']);
  });

  it('reads each line of a fenced block as a quote', () => {
    const evidence =
      'The page:\n```yaml\n- heading "Todos" [level=1]\n- status: 1 item left\n```\nand "Add".';
    expect(texts(evidence)).toEqual(['Todos', '1 item left', 'Add']);
  });

  it('reads a bounded part of long evidence: the first 20,000 characters, quotes of at most 1,000', () => {
    expect(texts(`${'x'.repeat(19_990)} "late one" and "too late"`)).toEqual([]);
    expect(texts(`"${'y'.repeat(1_001)}" then "short"`)).toEqual(['short']);
    expect(texts(`${'«'.repeat(50_000)} "never reached"`)).toEqual([]);
  });

  it('tells snapshot lines from ordinary quotes', () => {
    expect(parseSnapshotLine('button "Add"')).toEqual({ role: 'button', name: 'Add', states: [] });
    expect(parseSnapshotLine('status: 2 items left')).toEqual({
      role: 'status',
      states: [],
      text: '2 items left',
    });
    expect(parseSnapshotLine('- generic [ref=e5]: "Buy: milk"')).toEqual({
      role: 'generic',
      states: [],
      text: 'Buy: milk',
    });
    expect(parseSnapshotLine('Buy milk')).toBeUndefined();
    expect(parseSnapshotLine('todo')).toBeUndefined();
    expect(parseSnapshotLine('http://127.0.0.1:4000/')).toBeUndefined();
  });

  it('compares typography-insensitively and by whole words', () => {
    expect(comparableText('Don’t  stop — “now”…')).toBe('don\'t stop - "now"...');
    expect(containsPhrase('status: 12 items left', '2 items left')).toBe(false);
    expect(containsPhrase('status: 2 items left', '2 items left')).toBe(true);
    expect(containsPhrase('buy milkshake', 'buy milk')).toBe(false);
    expect(containsPhrase('"toggle buy milk k3f9a"', 'buy milk')).toBe(true);
  });
});
