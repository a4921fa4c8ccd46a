import { describe, expect, it } from 'vitest';
import { planCommitBody, planRecordMarkdown, type SpecOrigin } from '../../../handoff/spec-origin.js';
import { checkPlannerPrompt, PLANNER_ROLE, plannerMessage } from '../../../roles/planner.js';
import { MAX_PLANNED_SPEC_BYTES, plannedSpecProblems, SPEC_SECTIONS } from '../../../roles/planner-spec.js';
import { createAskUserTool, PlannerRecord } from '../../../roles/planner-tools.js';
import { todoSpecFor } from '../../../testkit/policies/planner.js';

const GOOD = [
  '# Recipe box',
  '## Overview',
  'Keep family recipes in one place.',
  '## Users and flows',
  '- A cook adds a recipe, then finds it again by name.',
  '## Features',
  '### Recipes',
  '- Click "New recipe", type "Soup" as the title and save: "Soup" is listed.',
  '### Search',
  '1. Type "so" in "Search": only "Soup" is listed.',
  '## Visual direction',
  'Warm, paper-like, large type.',
  '## Stack and constraints',
  'Runs in a browser; starts with ./init.sh on $PORT.',
  '## Out of scope',
  'Accounts, sharing.',
].join('\n\n');

describe('plannedSpecProblems', () => {
  it('accepts a spec with a title, every section and feature areas with criteria', () => {
    expect(plannedSpecProblems(GOOD)).toEqual([]);
    expect(plannedSpecProblems(todoSpecFor('A todo list'))).toEqual([]);
  });

  it('accepts the headings it names and close variants, in any case', () => {
    const variant = GOOD.replace('## Overview', '## Product overview')
      .replace('## Visual direction', '## Look and feel')
      .replace('## Stack and constraints', '## CONSTRAINTS')
      .replace('## Out of scope', '## Non-goals');
    expect(plannedSpecProblems(variant)).toEqual([]);
  });

  it('names an empty spec as empty, and nothing else', () => {
    expect(plannedSpecProblems('')).toEqual(['The spec is empty: submit the whole spec as markdown.']);
    expect(plannedSpecProblems(' \n\t\n')).toHaveLength(1);
  });

  it('names every missing or empty section, and a missing title, at once', () => {
    const broken = GOOD.replace('# Recipe box', 'Recipe box')
      .replace('## Visual direction\n\nWarm, paper-like, large type.', '## Visual direction\n\n   ')
      .replace(/## Out of scope[\s\S]*$/, '');
    expect(plannedSpecProblems(broken)).toEqual([
      'The spec has no title: start with "# <product name>".',
      'Section "## Visual direction" is empty (look, tone, layout).',
      'Section "## Out of scope" is missing (what it deliberately does not do).',
    ]);
  });

  it('wants feature areas, each with list items a browser can check', () => {
    const flat = GOOD.replace('### Recipes', 'Recipes').replace('### Search', 'Search');
    expect(plannedSpecProblems(flat)).toEqual([
      '"Features" has no areas: group the features under "### <area>" headings.',
    ]);
    const vague = GOOD.replace(
      '1. Type "so" in "Search": only "Soup" is listed.',
      'Searching should be nice.',
    );
    expect(plannedSpecProblems(vague)).toEqual([
      'Features area "Search" lists no acceptance criteria: add list items a user can check in a browser.',
    ]);
  });

  it('does not take headings inside code fences for sections', () => {
    const fenced = GOOD.replace(
      '## Out of scope\n\nAccounts, sharing.',
      '```\n## Out of scope\nAccounts\n```',
    );
    expect(plannedSpecProblems(fenced)).toContain(
      'Section "## Out of scope" is missing (what it deliberately does not do).',
    );
  });

  it('refuses control characters and a spec past the size cap', () => {
    expect(plannedSpecProblems(`${GOOD}\u0000`)).toEqual([
      'The spec contains control characters: submit plain markdown text.',
    ]);
    const huge = `${GOOD}\n\n${'word '.repeat(MAX_PLANNED_SPEC_BYTES / 5)}`;
    expect(plannedSpecProblems(huge)[0]).toMatch(/^The spec is \d+ bytes; the limit is 65536\./);
  });

  it('lists the sections the prompt file asks for', async () => {
    const { rolePrompt } = await import('../../../roles/prompt-files.js');
    const prompt = rolePrompt('planner');
    for (const section of SPEC_SECTIONS) expect(prompt).toContain(`## ${section.heading}`);
  });
});

describe('planner tools', () => {
  it('refuses questions with control characters (a terminal would act on them)', () => {
    const tool = createAskUserTool(new PlannerRecord(), async () => [], PLANNER_ROLE.bounds);
    expect(tool.parameters.safeParse({ questions: ['Which colour?'] }).success).toBe(true);
    const painted = tool.parameters.safeParse({ questions: ['\u001b[2JWhich colour?'] });
    expect(painted.success).toBe(false);
    expect(JSON.stringify(painted.error?.issues)).toContain('plain text only');
  });
});

describe('planner input', () => {
  it('trims the prompt and refuses an empty or overlong one with a hint', () => {
    expect(checkPlannerPrompt('  a todo list \n')).toBe('a todo list');
    expect(() => checkPlannerPrompt(' ')).toThrow(/The prompt is empty/);
    expect(() => checkPlannerPrompt('x'.repeat(PLANNER_ROLE.maxPromptChars + 1))).toThrow(/at most 8000/);
  });

  it('tells the model whether it may ask, and what to submit', () => {
    const bounds = PLANNER_ROLE.bounds;
    const interactive = plannerMessage({ prompt: 'idea', interactive: true, bounds, maxSteps: 12 });
    expect(interactive).toContain('up to 5 short questions with ask_user (at most 2 call(s))');
    const unattended = plannerMessage({ prompt: 'idea', interactive: false, bounds, maxSteps: 12 });
    expect(unattended).toContain('nobody can answer questions');
    expect(unattended).not.toContain('ask_user');
    expect(unattended).toContain('"## Out of scope"');
  });
});

describe('spec origin record', () => {
  const origin: SpecOrigin = {
    prompt: 'A recipe box.\nFor the family.',
    planId: 'p-1',
    model: 'anthropic:claude-sonnet-4-5',
    exchanges: [
      { question: 'Who?', answer: 'us' },
      { question: 'Look?', answer: '' },
    ],
    costUsd: 0.0123,
    plannedAt: '2026-01-01T00:00:00.000Z',
    edited: false,
  };

  it('quotes the prompt verbatim and lists the exchanges, unanswered ones said so', () => {
    const record = planRecordMarkdown(origin, 'app_spec.md');
    expect(record).toContain('> A recipe box.\n> For the family.');
    expect(record).toContain('1. Who?\n   Answer: us');
    expect(record).toContain('2. Look?\n   Answer: (none: the planner decided)');
    expect(record).toContain('- cost: $0.0123');
    expect(planRecordMarkdown({ ...origin, costUsd: null }, 'x.md')).toContain('cost: unknown');
  });

  it('puts the prompt in the commit body, and says when a person edited the spec', () => {
    expect(planCommitBody(origin)).toContain('from the prompt:\n\n> A recipe box.\n> For the family.');
    expect(planCommitBody(origin)).not.toContain('edited');
    expect(planCommitBody({ ...origin, edited: true })).toContain('The spec was edited by a person');
  });
});
