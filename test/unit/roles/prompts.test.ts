import { describe, expect, it } from 'vitest';
import { BROWSER_TOOL_NAMES } from '../../../agent/tools/browser.js';
import { rolePrompt } from '../../../roles/prompt-files.js';

describe('role prompts', () => {
  it('tell the initializer and the evaluator every browser tool the evaluator has', () => {
    for (const role of ['initializer', 'evaluator'] as const) {
      const prompt = rolePrompt(role);
      const missing = BROWSER_TOOL_NAMES.filter((name) => !prompt.includes(`\`${name}\``));
      expect({ role, missing }).toEqual({ role, missing: [] });
    }
  });

  it('give the evaluator calibration and a way to say blocked', () => {
    const prompt = rolePrompt('evaluator');
    expect(prompt).toMatch(/any defect fails the step/);
    expect(prompt).toMatch(/`blocked` only when the check could not run/);
    expect(prompt).toMatch(/in quotes, exactly/);
  });
});
