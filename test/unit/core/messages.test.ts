import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { intInRange, modelOption } from '../../../cli/options.js';
import { InputError } from '../../../core/errors.js';
import { closestMatch, didYouMean, editDistance } from '../../../core/suggest.js';
import { formatZodIssues } from '../../../core/zod-issues.js';
import { NightshiftConfig } from '../../../orchestrator/config.js';

const thrown = (fn: () => unknown): InputError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error('expected an InputError');
};

describe('did you mean', () => {
  it('counts edits, a swap of neighbours as one', () => {
    expect(editDistance('lanes', 'lanes')).toBe(0);
    expect(editDistance('lanse', 'lanes')).toBe(1);
    expect(editDistance('concurency', 'concurrency')).toBe(1);
    expect(editDistance('abc', '')).toBe(3);
  });

  it('suggests only a close name, ignoring case, and nothing for an exact one', () => {
    expect(closestMatch('Worker', ['worker', 'dashboard'])).toBe('worker');
    expect(closestMatch('budget', ['budgets', 'lanes'])).toBe('budgets');
    expect(closestMatch('xyz', ['budgets', 'lanes'])).toBeUndefined();
    expect(closestMatch('lanes', ['lanes', 'lane'])).toBeUndefined();
    expect(didYouMean('regsitries', ['none', 'registries', 'open'])).toBe(' (did you mean "registries"?)');
    expect(didYouMean('nothing-alike', ['none'])).toBe('');
  });
});

describe('zod issues for people', () => {
  const format = (schema: z.ZodType, input: unknown) => {
    const result = schema.safeParse(input);
    if (result.success) throw new Error('expected a failure');
    return formatZodIssues(result.error.issues, { input, schema });
  };

  it('name the field, the rule, what was given and a good value, once per field', () => {
    const schema = z.strictObject({
      count: z.number().int().min(1).max(8).default(1),
      mode: z.enum(['fast', 'slow']).default('fast'),
      name: z.string().min(1),
      when: z.iso.date().optional(),
      nested: z.strictObject({ depth: z.number().default(3) }).prefault({}),
    });
    const text = format(schema, {
      count: 99,
      mode: 'slwo',
      name: '',
      when: 'soon',
      nested: { deph: 2, depth: 'deep' },
    });
    expect(text.split('\n')).toEqual([
      'count: must be at most 8, not 99',
      'mode: must be one of "fast", "slow", not "slwo" (did you mean "slow"?)',
      'name: must not be empty, not ""',
      'when: must be a date, YYYY-MM-DD (e.g. 2027-01-31), not "soon"',
      'nested.depth: must be a number, not "deep" (e.g. 3, the default)',
      'nested.deph: unknown key (did you mean "depth"?)',
    ]);
    expect(format(schema, { mode: 'fast' })).toBe('name: is missing');
  });

  it('list the keys of the object when an unknown one is not close to any', () => {
    const text = format(NightshiftConfig, { dataDir: '/d', worker: { colour: 'blue' } });
    expect(text).toBe('worker.colour: unknown key (known here: concurrency, shutdownGraceSeconds, failover)');
  });
});

describe('option values at the edge', () => {
  it('name a bad model once, with what was given, the model meant and an example', () => {
    const parse = modelOption('--model');
    expect(parse('openai:gpt-5.1')).toBe('openai:gpt-5.1');
    const bare = thrown(() => parse('claude-sonnet-5-5'));
    expect(bare.describe()).toBe(
      '--model: model id "claude-sonnet-5-5" is not of the form provider:model (did you mean "anthropic:claude-sonnet-5-5"?).\n' +
        '  → e.g. --model anthropic:claude-sonnet-5-5 (providers: anthropic, openai, openai-compatible; docs/models.md)',
    );
    expect(thrown(() => parse('antropic:claude-opus-5-5')).message).toContain(
      '(did you mean "anthropic:claude-opus-5-5"?)',
    );
    expect(thrown(() => parse('gpt-4o')).message).toContain('(did you mean "openai:gpt-4o"?)');
    expect(thrown(() => parse('foo:bar')).message).toBe(
      '--model: model id "foo:bar" names an unknown provider "foo".',
    );
  });

  it('name a whole number out of range with the range and an example', () => {
    const lanes = intInRange('--lanes', 1, 8, 2);
    expect(lanes('4')).toBe(4);
    for (const bad of ['99', '0', '2.5', 'two']) {
      const error = thrown(() => lanes(bad));
      expect(error.describe()).toBe(
        `--lanes must be a whole number from 1 to 8, not "${bad}".\n  → e.g. --lanes 2`,
      );
    }
  });
});
