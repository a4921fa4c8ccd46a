/**
 * The scripted initializer: writes the todo example's feature list, init.sh and skeleton app, checks
 * that the skeleton starts, commits, and stops. When the harness sends it back (the feature list did
 * not validate, or the commit is missing), it rewrites the list and commits again.
 */
import { exampleOfSpec, type ScriptedExample, TODO_EXAMPLE } from './examples.js';
import { type CallResult, exitCodeOf, type ScriptIO } from './script.js';
import { scriptedFeatureCount } from './todo-features.js';
import { skeletonFiles } from './todo-sources.js';

/** Corrections the initializer answers before it gives up and just stops. */
const MAX_CORRECTIONS = 3;

/** True when the first message is the todo example spec. */
export function isTodoSpec(firstMessage: string): boolean {
  return TODO_EXAMPLE.isSpec(firstMessage);
}

/**
 * Commits everything through the harness's `commit` tool (`.git` is read-only to bash). A shell `prefix`
 * (e.g. appending a progress note) runs first, in the same turn. Returns the commit's result.
 */
export function commitAll(io: ScriptIO, message: string, prefix = ''): CallResult {
  const commit = { name: 'commit', arguments: { message } };
  if (prefix.trim() === '') return io.call(commit.name, commit.arguments);
  return io.act([{ name: 'bash', arguments: { command: prefix } }, commit])[1] as CallResult;
}

/** The initializer session. */
export function initializerScript(io: ScriptIO): void {
  const example = exampleOfSpec(io.firstMessage);
  if (!example) {
    io.finish(
      'This scripted model only knows the example specs (examples/todo, accounts and meal-planner app_spec.md); nothing written.',
    );
    return;
  }
  const count = scriptedFeatureCount(io.firstMessage, example.features.length);
  const files = [
    { path: 'feature_list.json', content: example.featureListJson(count) },
    ...skeletonFiles(example.sourcesDir),
  ];
  io.act(
    files.map((file) => ({ name: 'write', arguments: { path: file.path, content: file.content } })),
    `The spec describes ${count} user-visible features. Writing the feature list, init.sh and a skeleton app that loads.`,
  );
  const check = io.call(
    'bash',
    {
      command: `chmod +x init.sh\n${example.verifyCommand(
        example.skeletonServes,
        'the skeleton starts with init.sh and serves the page',
      )}`,
    },
    'Checking that init.sh starts the skeleton.',
  );
  const skeletonWorks = exitCodeOf(check.content) === 0;
  commitAll(io, `Initializer: feature list (${count} features), init.sh, skeleton app`);
  let correction = io.finish(
    skeletonWorks
      ? `Wrote feature_list.json (${count} features, all failing), init.sh, the skeleton app and progress.md; committed.`
      : `Wrote and committed the feature list and skeleton, but the skeleton did not start:\n${check.content}`,
  );
  for (let round = 1; round <= MAX_CORRECTIONS && correction.trim() !== ''; round++) {
    correction = answerCorrection(io, correction, round, count, example);
  }
}

/** Rewrites what the harness complained about (the feature list, init.sh's mode) and commits again. */
function answerCorrection(
  io: ScriptIO,
  correction: string,
  round: number,
  count: number,
  example: ScriptedExample,
): string {
  const aboutInit = /init\.sh/i.test(correction);
  const rewrites = [{ path: 'feature_list.json', content: example.featureListJson(count) }];
  const initScript = skeletonFiles(example.sourcesDir).find((file) => file.path === 'init.sh');
  if (aboutInit && initScript) rewrites.push(initScript);
  io.act(
    rewrites.map((file) => ({ name: 'write', arguments: { path: file.path, content: file.content } })),
    `The harness says:\n${correction.trim()}\nRewriting ${rewrites.map((file) => file.path).join(' and ')} (the list: category, description, steps, passes: false; no ids).`,
  );
  commitAll(
    io,
    `Initializer: fix feature list (harness correction ${round})`,
    aboutInit ? 'chmod +x init.sh' : '',
  );
  return io.finish('Fixed feature_list.json and committed.');
}
