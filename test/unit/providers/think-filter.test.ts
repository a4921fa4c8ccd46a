import { describe, expect, it } from 'vitest';
import { ThinkTagFilter } from '../../../agent/providers/think-filter.js';

function run(fragments: string[]) {
  const filter = new ThinkTagFilter();
  const visible = fragments.map((fragment) => filter.push(fragment)).join('') + filter.flush();
  return { visible, thinking: filter.thinking };
}

describe('ThinkTagFilter', () => {
  it('keeps think blocks out of the visible text', () => {
    expect(run(['<think>plan it</think>The answer.'])).toEqual({
      visible: 'The answer.',
      thinking: 'plan it',
    });
  });

  it('handles tags split across fragments at every position', () => {
    const text = 'Hi <think>secret plan</think>there <think>more</think>done';
    for (let cut = 1; cut < text.length; cut++) {
      expect(run([text.slice(0, cut), text.slice(cut)])).toEqual({
        visible: 'Hi there done',
        thinking: 'secret planmore',
      });
    }
    expect(run([...text])).toEqual({ visible: 'Hi there done', thinking: 'secret planmore' });
  });

  it('keeps an unclosed block as reasoning, and a lone < as text', () => {
    expect(run(['<think>still thinking'])).toEqual({ visible: '', thinking: 'still thinking' });
    expect(run(['a < b and <th', 'ing>'])).toEqual({ visible: 'a < b and <thing>', thinking: '' });
  });
});
