import { describe, expect, it } from 'vitest';
import type { Message } from '../../../agent/messages.js';
import type { Feature } from '../../../handoff/formats.js';
import { evaluatorMessage, generatorMessage } from '../../../roles/orientation.js';
import { rolePrompt } from '../../../roles/prompt-files.js';
import { demoPolicy, roleOf } from '../../../testkit/policies/demo.js';
import { parseEvaluatorBrief } from '../../../testkit/policies/evaluator.js';
import { parseGeneratorBrief } from '../../../testkit/policies/generator.js';
import { runScript } from '../../../testkit/policies/script.js';
import { listItemTexts, parseSnapshot, textOfRole } from '../../../testkit/policies/snapshot.js';
import { featureListJson, TODO_FEATURES } from '../../../testkit/policies/todo-features.js';
import type { PolicyReply, ScriptedConversation } from '../../../testkit/types.js';

const FEATURES: Feature[] = TODO_FEATURES.map((feature, index) => ({
  id: `F-00${index + 1}`,
  category: feature.category,
  description: feature.description,
  steps: feature.steps,
  passes: false,
}));

const SNAPSHOT = `- main [ref=e2]:
  - heading "Todos" [level=1] [ref=e3]
  - form "Add a todo" [ref=e4]:
    - generic [ref=e5]: New todo
    - textbox "New todo" [ref=e6]:
      - /placeholder: What needs to be done?
    - button "Add" [ref=e7]
  - list "Todos" [ref=e13]:
    - listitem [ref=e14]:
      - checkbox "Toggle milk" [ref=e15]
      - generic [ref=e16]: milk
      - button "Delete milk" [ref=e17]: Delete
    - listitem [ref=e19]:
      - checkbox "Toggle eggs" [checked] [ref=e20]
      - textbox "New text for eggs" [active] [ref=e26]: eggs
    - listitem [ref=e21]: bread
  - generic [ref=e24]:
    - status [ref=e25]: 2 items left`;

function conversation(system: string, messages: Message[], requestIndex = 0): ScriptedConversation {
  return { format: 'anthropic', model: 'scripted', system, messages, toolNames: [], requestIndex };
}

function user(text: string): Message {
  return { role: 'user', content: [{ type: 'text', text }] };
}

function toolCalls(reply: PolicyReply): Array<{ name: string; arguments: unknown }> {
  return 'toolCalls' in reply ? (reply.toolCalls ?? []) : [];
}

describe('demo policy: reading what the harness sends', () => {
  it('tells the roles apart by their real prompts', () => {
    expect(roleOf({ system: rolePrompt('initializer'), toolNames: [] })).toBe('initializer');
    expect(roleOf({ system: rolePrompt('generator'), toolNames: [] })).toBe('generator');
    expect(roleOf({ system: rolePrompt('evaluator'), toolNames: [] })).toBe('evaluator');
    expect(roleOf({ system: 'You are a poet.', toolNames: [] })).toBeUndefined();
  });

  it('finds the feature and the feedback in a real generator message', () => {
    const snapshot = {
      files: ['server.js'],
      gitLog: 'abc F-004: delete todos',
      progressTail: '## F-004: delete',
    };
    const plain = generatorMessage({
      feature: FEATURES[4] as Feature,
      feedback: null,
      snapshot,
      remainingFailing: 4,
    });
    const brief = parseGeneratorBrief(plain);
    expect(brief?.featureId).toBe('F-005');
    expect(brief?.feature?.check).toBe('remaining');
    expect(brief?.feedback).toBeNull();
    const feedback =
      '# Feedback for F-005: fail\n\n## Failing steps\n\n- ✗ The status line says N+1 items left\n  Evidence: still says "4 items left"';
    const again = parseGeneratorBrief(
      generatorMessage({ feature: FEATURES[4] as Feature, feedback, snapshot, remainingFailing: 4 }),
    );
    expect(again?.feedback).toContain('still says "4 items left"');
  });

  it('finds the URL and every feature of a real regression brief', () => {
    const message = evaluatorMessage({
      appUrl: 'http://127.0.0.1:4321/',
      features: FEATURES,
      mode: 'regression',
    });
    const brief = parseEvaluatorBrief(message);
    expect(brief?.url).toBe('http://127.0.0.1:4321/');
    expect(brief?.targets.map((target) => `${target.featureId}:${target.feature?.check}`)).toEqual([
      'F-001:add',
      'F-002:persist',
      'F-003:complete',
      'F-004:delete',
      'F-005:remaining',
      'F-006:filter',
      'F-007:edit',
      'F-008:clearCompleted',
    ]);
  });

  it('reads roles, names, states, list items and the status line from an aria snapshot', () => {
    const nodes = parseSnapshot(SNAPSHOT);
    expect(nodes.find((node) => node.name === 'New todo' && node.role === 'textbox')?.ref).toBe('e6');
    expect(nodes.find((node) => node.name === 'Toggle eggs')?.states).toEqual(['checked']);
    expect(listItemTexts(nodes, 'Todos')).toEqual(['milk', 'eggs', 'bread']);
    expect(textOfRole(nodes, 'status')).toBe('2 items left');
  });

  it('submits blocked, not pass, for a feature it has no check for', () => {
    const message = evaluatorMessage({
      appUrl: 'http://127.0.0.1:4321/',
      features: [
        { id: 'F-001', category: 'x', description: 'Export to PDF', steps: ['Click Export'], passes: false },
      ],
      mode: 'evaluate',
    });
    const reply = demoPolicy(conversation(rolePrompt('evaluator'), [user(message)])) as PolicyReply;
    expect(toolCalls(reply)).toEqual([
      {
        name: 'submit_verdict',
        arguments: expect.objectContaining({ feature_id: 'F-001', verdict: 'blocked' }),
      },
    ]);
  });
});

describe('demo policy: replaying a session', () => {
  it('continues where the recording ends and keeps its session tag across requests', () => {
    const seen: string[] = [];
    const script = (io: Parameters<Parameters<typeof runScript>[1]>[0]) => {
      seen.push(io.tag);
      const first = io.call('bash', { command: 'echo one' }, 'first');
      io.call('bash', { command: `echo ${first.content.trim()} two` });
      io.finish('done');
    };
    const first = runScript(conversation('s', [user('go')], 7), script, {
      recordTag: true,
      newTag: () => 'abc',
    });
    expect(first).toEqual({
      text: 'first (session tag: abc)',
      toolCalls: [{ name: 'bash', arguments: { command: 'echo one' } }],
    });
    const history: Message[] = [
      user('go'),
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'first (session tag: abc)' },
          { type: 'tool_call', id: 't1', name: 'bash', arguments: { command: 'echo one' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', toolCallId: 't1', content: 'one', isError: false }] },
    ];
    const second = runScript(conversation('s', history, 8), script, { recordTag: true, newTag: () => 'zzz' });
    expect(second).toEqual({ toolCalls: [{ name: 'bash', arguments: { command: 'echo one two' } }] });
    expect(seen).toEqual(['abc', 'abc']);
  });

  it('answers a harness correction after the initializer stops by rewriting a valid feature list', () => {
    const spec = 'Todo app. The status line says "N items left".';
    const history: Message[] = [user(spec)];
    const system = rolePrompt('initializer');
    // Play the session: answer every tool call with a success, until the policy stops.
    for (let turn = 0; turn < 10; turn++) {
      const reply = demoPolicy(conversation(system, history)) as PolicyReply;
      const calls = toolCalls(reply);
      history.push({
        role: 'assistant',
        content: [
          ...('text' in reply && reply.text ? [{ type: 'text' as const, text: reply.text }] : []),
          ...calls.map((call, index) => ({
            type: 'tool_call' as const,
            id: `c${turn}-${index}`,
            name: call.name,
            arguments: call.arguments as Record<string, unknown>,
          })),
        ],
      });
      if (calls.length === 0) break;
      const content = calls.map((_, index) => ({
        type: 'tool_result' as const,
        toolCallId: `c${turn}-${index}`,
        content: 'exit code: 0',
        isError: false,
      }));
      history.push({ role: 'user', content });
    }
    expect(history.at(-1)?.role).toBe('assistant');
    history.push(
      user('[harness] feature_list.json is invalid:\n[1].steps: each feature needs at least one step'),
    );
    const fix = toolCalls(demoPolicy(conversation(system, history)) as PolicyReply);
    expect(fix).toEqual([
      { name: 'write', arguments: { path: 'feature_list.json', content: featureListJson() } },
    ]);
  });
});
