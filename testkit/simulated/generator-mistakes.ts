/**
 * A generator's mistakes, played by wrapping the scripted generator's io (testkit/policies/generator.ts): the script
 * does its honest work and the wrapper changes what reaches the harness — an import of a module never written, a
 * registration left out, commits that never happen, a reply cut at the output limit, an earlier feature's line
 * dropped. Every change is a function of the plan and the call, so replays of the session see the same turns.
 */
import { parseGeneratorBrief } from '../policies/generator.js';
import { type CallResult, type ScriptIO, withAct } from '../policies/script.js';
import type { ScriptedToolCall } from '../types.js';
import { type EditArgs, MISSING_MODULE, type MistakeTargets } from './mistake-targets.js';
import type { MistakeKind } from './schedule.js';

export { MISSING_MODULE, regressionTarget } from './mistake-targets.js';

/** What a generator session does wrong, and what the wrapper tells the simulated model. */
export interface GeneratorMistake {
  kind: MistakeKind | undefined;
  /** Where the feature's example takes the mistakes (undefined: only the mistakes any app has). */
  targets?: MistakeTargets | undefined;
  /** Called each time the mistake shows in a turn (idempotent for the caller: replays call it again). */
  made(): void;
  /** Asks that the reply being sent now is cut at the output limit. */
  cut(): void;
}

const isWrite = (call: ScriptedToolCall) => call.name === 'write';

/** A result the harness never sent, for a call the model believes it made. */
function believed(call: ScriptedToolCall): CallResult {
  const args = typeof call.arguments === 'string' ? {} : call.arguments;
  return { name: call.name, arguments: args, content: 'ok', isError: false };
}

const editCall = (args: EditArgs): ScriptedToolCall => ({ name: 'edit', arguments: { ...args } });

/** The feedback of the brief without the harness sections after it (progress notes repeat old failures). */
function feedbackOnly(firstMessage: string): string {
  return parseGeneratorBrief(firstMessage)?.feedback?.split(/\n## Recent progress notes/)[0] ?? '';
}

/** Sends `calls` without the one at `index`; the script gets a believed result in its place. */
function actWithout(
  io: ScriptIO,
  calls: readonly ScriptedToolCall[],
  drop: number[],
  text?: string,
): CallResult[] {
  const kept = calls.filter((_call, index) => !drop.includes(index));
  const sent = kept.length ? io.act(kept, text) : [];
  let next = 0;
  return calls.map((call, index) => (drop.includes(index) ? believed(call) : (sent[next++] as CallResult)));
}

/** The generator's io with its mistake (if any) and its repair of an earlier start failure the feedback shows. */
export function mistakenIO(io: ScriptIO, mistake: GeneratorMistake): ScriptIO {
  const start = mistake.targets?.brokenStart;
  let repairPending = start !== undefined && feedbackOnly(io.firstMessage).includes(MISSING_MODULE);
  let pending = mistake.kind !== undefined;
  return withAct(io, (calls, text) => {
    if (repairPending && start) {
      repairPending = false;
      io.act(
        [editCall({ path: start.path, old_string: `${start.line}\n`, new_string: '' })],
        `The app did not start: ${start.path} imports a ${MISSING_MODULE} I never wrote. Removing that import first.`,
      );
    }
    if (!pending) return io.act(calls, text);
    return actMistaken(io, mistake, calls, text, () => {
      pending = false;
    });
  });
}

/** One turn with the mistake in it when this is the turn it shows in; `done` when it will not show again. */
function actMistaken(
  io: ScriptIO,
  mistake: GeneratorMistake,
  calls: readonly ScriptedToolCall[],
  text: string | undefined,
  done: () => void,
): CallResult[] {
  switch (mistake.kind) {
    case 'appDoesNotStart': {
      const start = mistake.targets?.brokenStart;
      if (!start || !calls.some(isWrite)) break;
      done();
      mistake.made();
      const broken = {
        path: start.path,
        old_string: start.anchor,
        new_string: `${start.line}\n${start.anchor}`,
      };
      return io.act([...calls, editCall(broken)], text).slice(0, calls.length);
    }
    case 'halfDone': {
      const targets = mistake.targets;
      const registration = targets ? calls.findIndex((call) => targets.isHalfDoneTarget(call, calls)) : -1;
      if (registration < 0) break;
      done();
      mistake.made();
      return actWithout(io, calls, [registration], text);
    }
    case 'noCommit': {
      // Every commit of the session is left out: the model says it committed, and means it.
      const commits = calls.flatMap((call, index) => (call.name === 'commit' ? [index] : []));
      if (commits.length === 0) break;
      mistake.made();
      return actWithout(io, calls, commits, text);
    }
    case 'cutAtLimit': {
      // The first turn that does more than read: the feature's files, or the check of a feature already written.
      if (calls.every((call) => call.name === 'read')) break;
      done();
      try {
        io.act(calls, text);
      } catch (pendingReply) {
        mistake.made();
        mistake.cut();
        throw pendingReply;
      }
      return io.act(calls, 'My last reply was cut off at the output limit; sending the same changes again.');
    }
    case 'regression': {
      const regression = mistake.targets?.regression;
      if (!regression || !mistake.targets?.isRegressionTurn(calls)) break;
      done();
      mistake.made();
      return io.act([...calls, editCall(regression)], text).slice(0, calls.length);
    }
    default:
      done();
  }
  return io.act(calls, text);
}
