import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Message, ToolResultBlock } from '../../../agent/messages.js';
import { createAnthropicProvider } from '../../../agent/providers/index.js';
import { checkpoint, ensureRepo } from '../../../handoff/git.js';
import { runRoleSession } from '../../../roles/session.js';
import type { RoleSessionInput } from '../../../roles/types.js';
import type { ModelServer, ScriptedConversation } from '../../../testkit/types.js';

/** A git workspace in a temp dir with the given files committed, plus a data dir beside it. */
export async function makeWorkspace(
  files: Record<string, string>,
): Promise<{ workspace: string; dataDir: string }> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ns-roles-')));
  const workspace = path.join(root, 'ws');
  const dataDir = path.join(root, 'data');
  fs.mkdirSync(workspace);
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workspace, name), content, { mode: name.endsWith('.sh') ? 0o755 : 0o644 });
  }
  const repo = await ensureRepo(workspace);
  await checkpoint(repo, { role: 'harness', runId: 'test', session: 0, summary: 'workspace created' });
  return { workspace, dataDir };
}

/** Removes the temp root of a workspace made by {@link makeWorkspace}. */
export function removeWorkspace(workspace: string): void {
  fs.rmSync(path.dirname(workspace), { recursive: true, force: true });
}

/** Runs one role session against the scripted server through the real Anthropic SDK. */
export function runSession(
  server: ModelServer,
  input: Pick<RoleSessionInput, 'role' | 'workspace' | 'dataDir' | 'featureIds'> & Partial<RoleSessionInput>,
) {
  return runRoleSession({
    runId: 'r-test',
    session: 1,
    provider: createAnthropicProvider({
      model: 'scripted',
      apiKey: 'sk-ant-test-000000',
      baseURL: server.anthropicBaseURL,
      maxRetries: 0,
    }),
    limits: { maxSteps: 30, maxMinutes: 2 },
    sandbox: { sandbox: 'none' },
    ...input,
  });
}

/** Assistant turns so far. */
export function turnOf(conversation: ScriptedConversation): number {
  return conversation.messages.filter((message) => message.role === 'assistant').length;
}

/** Text of the first user message (the harness's orientation). */
export function firstMessage(conversation: ScriptedConversation): string {
  const first = conversation.messages[0] as Message;
  return first.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/** All text of the last user message: tool results and harness notes. */
export function lastUserText(conversation: ScriptedConversation): string {
  const last = conversation.messages.at(-1);
  if (last?.role !== 'user') return '';
  return last.content
    .map((block) => (block.type === 'text' ? block.text : (block as ToolResultBlock).content))
    .join('\n');
}

/** The ref of the first snapshot line matching `pattern`. */
export function refOf(snapshot: string, pattern: RegExp): string | undefined {
  const line = snapshot.split('\n').find((candidate) => pattern.test(candidate));
  return line ? /\[ref=((?:f\d+)?e\d+)\]/.exec(line)?.[1] : undefined;
}

/** A valid quickstart-style feature list (no ids) for tests. */
export const TWO_FEATURES = [
  {
    category: 'functional',
    description: 'Add a todo',
    steps: ['Type a title and press Enter', 'The todo is listed'],
    passes: false,
  },
  {
    category: 'functional',
    description: 'Remaining count',
    steps: ['Add two todos, complete one', 'The page says 1 item left'],
    passes: false,
  },
];
