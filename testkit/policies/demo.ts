/**
 * The demo's scripted model: one policy for all three roles of a todo-example run (and the planner that
 * writes its spec from an idea, for `run --prompt`, and the feature writer of `nightshift add`), told apart by the role prompt (`roles/prompts/*.md`). It drives the real tools: the initializer and generators write,
 * edit, run and commit real code; the evaluator reads real aria snapshots and decides from the page.
 * Load it with `testkit/main.ts` as a module (default export) or import `demoPolicy`.
 */
import { moduleLogger } from '../../core/log.js';
import type { Policy, PolicyReply, ScriptedConversation } from '../types.js';
import { evaluatorScript } from './evaluator.js';
import { featureWriterScript } from './feature-writer.js';
import { generatorScript } from './generator.js';
import { initializerScript } from './initializer.js';
import { plannerScript } from './planner.js';
import { runScript, type Script } from './script.js';

const log = moduleLogger('testkit/policies/demo');

/** The role a conversation belongs to. */
export type DemoRole = 'initializer' | 'generator' | 'evaluator' | 'planner' | 'feature-writer';

/** The role of a conversation, from its system prompt (then its tools); undefined when unknown. */
export function roleOf(
  conversation: Pick<ScriptedConversation, 'system' | 'toolNames'>,
): DemoRole | undefined {
  const system = conversation.system;
  if (/you are the initializer/i.test(system)) return 'initializer';
  if (/you are an? (independent )?evaluator/i.test(system)) return 'evaluator';
  if (/you are a generator/i.test(system)) return 'generator';
  if (/you are the planner/i.test(system)) return 'planner';
  if (/you are the feature writer/i.test(system)) return 'feature-writer';
  if (conversation.toolNames.includes('submit_verdict')) return 'evaluator';
  return undefined;
}

const SCRIPTS: Record<DemoRole, Script> = {
  initializer: initializerScript,
  generator: generatorScript,
  evaluator: evaluatorScript,
  planner: plannerScript,
  'feature-writer': featureWriterScript,
};

/** The scripted roles with some of them played differently (e.g. a careless generator, testkit/policies/careless.ts). */
export function scriptedPolicy(overrides: Partial<Record<DemoRole, Script>> = {}): Policy {
  const scripts = { ...SCRIPTS, ...overrides };
  return (conversation) => {
    const role = roleOf(conversation);
    if (!role) {
      return {
        text: 'This scripted model plays the planner, initializer, generator, evaluator and feature writer of the examples only.',
      };
    }
    try {
      // The evaluator's session tag (unique todo texts) must survive replays, so it goes into its first reply.
      return runScript(conversation, scripts[role], { recordTag: role === 'evaluator' });
    } catch (error) {
      log.error({ err: error, role, request: conversation.requestIndex }, 'scripted policy failed');
      const message = error instanceof Error ? error.message : String(error);
      return {
        text: `The scripted ${role} hit an internal error and stops: ${message}`,
      } satisfies PolicyReply;
    }
  };
}

/** The demo policy: the examples' initializer, generators and evaluator, scripted. */
export const demoPolicy: Policy = scriptedPolicy();

export default demoPolicy;
