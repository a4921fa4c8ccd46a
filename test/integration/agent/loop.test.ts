import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgent } from '../../../agent/loop.js';
import { createFileTools } from '../../../agent/tools/index.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer, Policy } from '../../../testkit/types.js';
import { lastResults, providersFor, tempWorkspace, turnOf } from './loop-helpers.js';

const limits = { maxSteps: 20, maxWallMs: 30_000 };
let server: ModelServer;

beforeAll(async () => {
  server = await startModelServer({ policy: () => ({ text: 'idle' }) });
});
afterAll(async () => {
  await server.close();
});

/** write → edit → read → stop, checking each tool result on the way. */
const buildFilesPolicy: Policy = (conversation) => {
  const turn = turnOf(conversation);
  const results = lastResults(conversation);
  if (results.some((result) => result.isError)) return { text: `tool failed: ${results[0]?.content}` };
  switch (turn) {
    case 0:
      return {
        toolCalls: [
          { name: 'write', arguments: { path: 'src/app.js', content: 'const greeting = "hi";\n' } },
        ],
      };
    case 1:
      return {
        toolCalls: [
          { name: 'edit', arguments: { path: 'src/app.js', old_string: '"hi"', new_string: '"hello"' } },
          { name: 'write', arguments: { path: 'notes.md', content: '# notes\n' } },
        ],
      };
    case 2:
      return { toolCalls: [{ name: 'read', arguments: { path: 'src/app.js' } }] };
    default:
      return { text: results[0]?.content.includes('hello') ? 'done: saw hello' : 'done: did not see hello' };
  }
};

describe('runAgent over the real SDKs and the scripted server', () => {
  it('produces the same files through either provider', async () => {
    server.setPolicy(buildFilesPolicy);
    const trees: Record<string, Record<string, string>> = {};
    for (const [name, provider] of Object.entries(providersFor(server))) {
      const workspace = tempWorkspace();
      const result = await runAgent({
        sessionId: `same-${name}`,
        provider,
        system: 'You build files.',
        firstMessage: 'Build the app.',
        tools: createFileTools(),
        toolContext: { workspace, protectedPaths: ['.git'] },
        limits,
      });
      expect(result.outcome).toBe('completed');
      expect(result.lastText).toBe('done: saw hello');
      expect(result.steps).toBe(4);
      trees[name] = {
        'src/app.js': fs.readFileSync(path.join(workspace, 'src/app.js'), 'utf8'),
        'notes.md': fs.readFileSync(path.join(workspace, 'notes.md'), 'utf8'),
      };
      fs.rmSync(workspace, { recursive: true, force: true });
    }
    expect(trees.anthropic).toEqual(trees.openai);
    expect(trees.anthropic?.['src/app.js']).toBe('const greeting = "hello";\n');
  });

  it('keeps the context append-only: every request extends the previous one byte for byte', async () => {
    server.setPolicy(buildFilesPolicy);
    for (const provider of Object.values(providersFor(server))) {
      const seen: unknown[][] = [];
      const workspace = tempWorkspace();
      const recording = {
        id: provider.id,
        complete: (request: Parameters<typeof provider.complete>[0]) => {
          seen.push(JSON.parse(JSON.stringify(request.messages)));
          return provider.complete(request);
        },
      };
      await runAgent({
        sessionId: 'prefix',
        provider: recording,
        system: 's',
        firstMessage: 'go',
        tools: createFileTools(),
        toolContext: { workspace, protectedPaths: [] },
        limits: { ...limits, maxSteps: 3, reminderAt: 0.5 },
      });
      expect(seen.length).toBe(3);
      for (let i = 1; i < seen.length; i++) {
        expect(seen[i]?.slice(0, seen[i - 1]?.length)).toEqual(seen[i - 1]);
      }
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });

  it('turns malformed tool JSON, unknown tools, bad arguments and empty replies into results, not crashes', async () => {
    const seenErrors: string[] = [];
    server.setPolicy((conversation) => {
      const turn = turnOf(conversation);
      // The OpenAI wire format has no error flag on tool results, so collect every result's text.
      for (const result of lastResults(conversation)) seenErrors.push(result.content);
      if (turn === 0) return { toolCalls: [{ name: 'write', arguments: '{"path": "a.txt", "content": ' }] };
      if (turn === 1) return { toolCalls: [{ name: 'teleport', arguments: { to: 'mars' } }] };
      if (turn === 2) return { toolCalls: [{ name: 'write', arguments: { path: 42 } }] };
      if (turn === 3) return { fault: { kind: 'empty' } };
      return { text: 'should not be reached' };
    });
    for (const provider of Object.values(providersFor(server))) {
      seenErrors.length = 0;
      const workspace = tempWorkspace();
      const result = await runAgent({
        sessionId: 'faults',
        provider,
        system: 's',
        firstMessage: 'go',
        tools: createFileTools(),
        toolContext: { workspace, protectedPaths: [] },
        limits,
      });
      expect(result.outcome).toBe('completed');
      expect(result.steps).toBe(4);
      expect(seenErrors).toHaveLength(3);
      expect(seenErrors[0]).toMatch(/not valid JSON/);
      expect(seenErrors[1]).toMatch(/Unknown tool "teleport".*read, write, edit/);
      expect(seenErrors[2]).toMatch(/Invalid arguments for write/);
      expect(result.messages.at(-1)).toEqual({
        role: 'assistant',
        content: [{ type: 'text', text: '[empty reply]' }],
      });
      expect(fs.existsSync(path.join(workspace, 'a.txt'))).toBe(false);
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });
});
