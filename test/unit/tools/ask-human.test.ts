import { describe, expect, it } from 'vitest';
import { createAskHumanTool } from '../../../agent/tools/ask-human.js';
import { type Question, questionsMarkdown } from '../../../handoff/questions.js';
import { answersText } from '../../../roles/ask-human.js';
import { generatorMessage } from '../../../roles/orientation.js';
import { answersInBrief } from '../../../testkit/policies/asking.js';

const context = { workspace: '/tmp', protectedPaths: [], signal: new AbortController().signal };

describe('ask_human', () => {
  it('hands the question to the asker and says the session ends, or passes on "decide yourself"', async () => {
    const seen: unknown[] = [];
    const asked = createAskHumanTool(async (request) => {
      seen.push(request);
      return { kind: 'asked', id: 'Q-2' };
    });
    const output = await asked.execute({ question: '  todos or tasks? ', options: ['todos'] }, context);
    expect(seen).toEqual([{ question: 'todos or tasks?', options: ['todos'], featureId: undefined }]);
    expect(output).toMatchObject({
      content: expect.stringMatching(/^Question Q-2 is recorded.*Do not go on\.$/),
    });
    const capped = createAskHumanTool(async () => ({ kind: 'decide', reason: 'Decide yourself.' }));
    expect(await capped.execute({ question: 'x' }, context)).toMatchObject({ content: 'Decide yourself.' });
  });
});

describe('answers in the brief and in .nightshift/questions.md', () => {
  const question: Question = {
    id: 'Q-1',
    featureId: 'F-003',
    role: 'generator',
    seq: 4,
    question: 'todos or tasks?',
    options: ['todos', 'tasks'],
    askedAt: '2026-12-01T00:00:00.000Z',
    answer: null,
    answeredAt: null,
    answeredBy: null,
  };
  const answered: Question = {
    ...question,
    answer: 'tasks',
    answeredAt: '2026-12-01T01:00:00.000Z',
    answeredBy: 'cli',
  };

  it('gives a feature only its own answered questions', () => {
    expect(answersText([question], 'F-003')).toBeUndefined();
    expect(answersText([answered, { ...answered, id: 'Q-2', featureId: 'F-004' }], 'F-003')).toBe(
      'Q-1: todos or tasks?\nOptions you gave: todos | tasks\nAnswer: tasks',
    );
    expect(answersText([{ ...answered, answeredBy: 'timeout' }], 'F-003')).toContain(
      'Answer (nobody answered in time): tasks',
    );
  });

  it('the asking scripted generator finds every answer line of the brief, not only the first line', () => {
    const brief = generatorMessage({
      feature: {
        id: 'F-003',
        category: 'functional',
        description: 'Add a todo',
        steps: ['Add one'],
        passes: false,
      },
      feedback: null,
      snapshot: { files: [], gitLog: '', progressTail: '' },
      remainingFailing: 1,
      answers: answersText([answered, { ...answered, id: 'Q-2', answer: 'say it' }], 'F-003'),
    });
    expect(answersInBrief(brief)).toEqual(['tasks', 'say it']);
    expect(answersInBrief('## Answers to the questions asked about this feature\nQ-1: x\nAnswer: y')).toEqual(
      ['y'],
    );
  });

  it('records open and answered questions in the order asked', () => {
    expect(questionsMarkdown([answered, { ...question, id: 'Q-2' }])).toBe(
      [
        '# Questions to a person',
        '',
        '## Q-1 (F-003, session 4, 2026-12-01T00:00:00.000Z)',
        '',
        'Question: todos or tasks?',
        'Options: todos | tasks',
        'Answer (cli, 2026-12-01T01:00:00.000Z): tasks',
        '',
        '## Q-2 (F-003, session 4, 2026-12-01T00:00:00.000Z)',
        '',
        'Question: todos or tasks?',
        'Options: todos | tasks',
        'Answer: (open: waiting for a person)',
        '',
      ].join('\n'),
    );
  });
});
