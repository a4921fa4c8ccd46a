/**
 * A scripted model whose generator, on its first try at the remaining-count feature, also breaks completing todos in
 * a way no static link shows: its module normalises the todos loaded with the page from a field the server does not
 * send (`done`), so after a reload every todo shows active. The remaining count's own check never reloads and stays
 * green; the complete feature's check (tick, reload, still ticked) goes red. Neither file imports the other, and no
 * changed line names the complete feature's files, so the merge's affected-check selection leaves that check out:
 * only a full sweep finds it (issue 29). Sent back with feedback saying its merge broke other features, the
 * generator takes the code out again. Everything else plays like the demo policy.
 */
import type { Policy } from '../types.js';
import { scriptedPolicy } from './demo.js';
import { type Breakage, generatorScript } from './generator.js';
import type { ScriptedFeature } from './todo-features.js';

/** The breakage, in the remaining-count feature's own module. */
export const REMAINING_COUNT_BREAKAGE: Breakage = {
  path: 'public/features/remaining-count.js',
  text: [
    '',
    '// Todos loaded with the page start from their saved state.',
    "on('start', () => {",
    '  for (const todo of state.todos) todo.completed = Boolean(todo.done);',
    '});',
    '',
  ].join('\n'),
  explanation:
    'the loaded todos read a field the server does not send (done), so every todo showed active after a reload',
};

/** The demo policy with a generator that breaks completing todos on its first try at the remaining count. */
export function breakingPolicy(): Policy {
  const habits = {
    slip: () => undefined,
    breakage: (_id: string, feature: ScriptedFeature) =>
      feature.check === 'remaining' ? REMAINING_COUNT_BREAKAGE : undefined,
  };
  return scriptedPolicy({ generator: (io) => generatorScript(io, habits) });
}
