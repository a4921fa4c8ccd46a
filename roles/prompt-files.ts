import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RoleName } from './session-result.js';

/** Roles with a prompt file: the run's three, the planner (before a run exists), the feature writer (`nightshift add`). */
export type PromptRole = RoleName | 'planner' | 'feature-writer';

const cache = new Map<PromptRole, string>();

/**
 * The system prompt of a role, read from `roles/prompts/<role>.md` in the harness's install (never from
 * the workspace, so a session cannot rewrite its own or a later session's prompt).
 */
export function rolePrompt(role: PromptRole): string {
  let prompt = cache.get(role);
  if (prompt === undefined) {
    prompt = readFileSync(fileURLToPath(new URL(`./prompts/${role}.md`, import.meta.url)), 'utf8').trim();
    cache.set(role, prompt);
  }
  return prompt;
}
