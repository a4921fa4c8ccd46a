/**
 * A nightshift build's figures from its records: the session records, the run's event log (agent events included)
 * and the final code. Where the time went is split per session: model wait (`model.usage` durations), the model's
 * tools, the evaluator's browser tools, and the harness's work before the first request (an evaluator's app start,
 * otherwise the workspace sync and brief) and after the last agent event (an evaluator's check recording and pass
 * replay, otherwise commit, integrity guard and record). The merge queue is the time from a lane's passing verdict to
 * its merge; idle is wall time with no session and no merge in flight.
 */
import type { RunEvent } from '../orchestrator/events.js';
import type { FeatureState, RunRecord, SessionRecord } from '../orchestrator/run/index.js';
import {
  addUsage,
  atHead,
  type CodeReader,
  countKinds,
  NO_USAGE,
  type OvernightBuild,
  type PhaseBreakdown,
  projectWall,
  type Span,
  sonnetDollars,
  tokenFigures,
  unionMs,
} from './overnight-figures.js';

/** What a nightshift build left behind. */
export interface NightshiftRecords {
  lanes: number;
  compression: number;
  run: RunRecord;
  sessions: SessionRecord[];
  features: FeatureState[];
  events: RunEvent[];
  workspace: string;
  /** The example's judge of its final code (overnight-examples.ts). */
  works: (read: CodeReader, position: number) => boolean;
  mistakes: string[];
  modelRequests: number;
  checksGreen: number;
}

const isBrowserTool = (name: string) => name.startsWith('browser_') || name === 'submit_verdict';

/** One session's agent-event times. */
interface AgentTimes {
  firstRequest: number | undefined;
  lastEvent: number | undefined;
  modelMs: number;
  toolMs: number;
  browserMs: number;
}

function agentTimes(events: RunEvent[]): Map<number, AgentTimes> {
  const bySeq = new Map<number, AgentTimes>();
  for (const wrapped of events) {
    if (wrapped.type !== 'agent') continue;
    const event = wrapped.event;
    const times = bySeq.get(wrapped.seq) ?? {
      firstRequest: undefined,
      lastEvent: undefined,
      modelMs: 0,
      toolMs: 0,
      browserMs: 0,
    };
    const at = Date.parse(event.at);
    times.lastEvent = Math.max(times.lastEvent ?? at, at);
    if (event.type === 'model.request') times.firstRequest = Math.min(times.firstRequest ?? at, at);
    if (event.type === 'model.usage') times.modelMs += event.durationMs;
    if (event.type === 'tool.ended') {
      if (isBrowserTool(event.name)) times.browserMs += event.durationMs;
      else times.toolMs += event.durationMs;
    }
    bySeq.set(wrapped.seq, times);
  }
  return bySeq;
}

/** Spans a model request was in flight (from `model.usage`: its end and duration). */
function modelSpans(events: RunEvent[]): Span[] {
  return events.flatMap((wrapped): Span[] => {
    if (wrapped.type !== 'agent' || wrapped.event.type !== 'model.usage') return [];
    const end = Date.parse(wrapped.event.at);
    return [[end - wrapped.event.durationMs, end]];
  });
}

/**
 * From a lane's last evaluation of the feature to its merge event (the merge step runs as a job of its own seq, so
 * the evaluation is found by feature and time): waiting for the serial merge queue, then merging and re-checking.
 */
function mergeSpans(events: RunEvent[], sessions: SessionRecord[]): Span[] {
  return events.flatMap((event): Span[] => {
    if (event.type !== 'lane.merge') return [];
    const mergedAt = Date.parse(event.at);
    const evaluated = sessions
      .filter((session) => session.role === 'evaluator' && session.featureIds.includes(event.featureId))
      .map((session) => Date.parse(session.finishedAt ?? ''))
      .filter((at) => Number.isFinite(at) && at <= mergedAt);
    return evaluated.length > 0 ? [[Math.max(...evaluated), mergedAt]] : [];
  });
}

const sessionSpan = (session: SessionRecord): Span => [
  Date.parse(session.startedAt),
  Date.parse(session.finishedAt ?? session.startedAt),
];

/** Where the time of a build went in `wall` (model wait projected by the compression). */
export function nightshiftPhases(
  records: Pick<NightshiftRecords, 'sessions' | 'events' | 'compression'>,
  wall: Span,
): PhaseBreakdown {
  const times = agentTimes(records.events);
  const total: PhaseBreakdown = {
    modelWait: 0,
    toolsBash: 0,
    appStart: 0,
    evaluationBrowser: 0,
    gitHandoff: 0,
    mergeQueue: 0,
    idle: 0,
  };
  for (const session of records.sessions) {
    const [start, end] = sessionSpan(session);
    const agent = times.get(session.seq);
    const head = agent?.firstRequest !== undefined ? agent.firstRequest - start : end - start;
    const tail = agent?.lastEvent !== undefined ? Math.max(0, end - agent.lastEvent) : 0;
    const modelMs = agent?.modelMs ?? 0;
    const toolMs = agent?.toolMs ?? 0;
    const browserMs = agent?.browserMs ?? 0;
    const rest = Math.max(0, end - start - head - tail - modelMs - toolMs - browserMs);
    total.modelWait += modelMs * records.compression;
    total.toolsBash += toolMs;
    total.evaluationBrowser += browserMs;
    if (session.role === 'evaluator') {
      total.appStart += head;
      total.evaluationBrowser += tail;
      total.gitHandoff += rest;
    } else total.gitHandoff += head + tail + rest;
  }
  const merges = mergeSpans(records.events, records.sessions);
  total.mergeQueue = unionMs(merges);
  const busy = unionMs([...records.sessions.map(sessionSpan), ...merges]);
  total.idle = Math.max(0, wall[1] - wall[0] - busy);
  return total;
}

/** The figures of a nightshift build. */
export function nightshiftFigures(records: NightshiftRecords): OvernightBuild {
  const { run, sessions, features, events } = records;
  const read = atHead(records.workspace);
  const works = new Map(features.map((feature) => [feature.id, records.works(read, feature.position)]));
  const starts = sessions.map((session) => Date.parse(session.startedAt));
  const ends = sessions.map((session) => sessionSpan(session)[1]);
  const wall: Span = [Math.min(...starts), Math.max(Date.parse(run.updatedAt), ...ends)];
  const usage = sessions.reduce((sum, session) => addUsage(sum, session.usage), NO_USAGE);
  const count = (match: (event: RunEvent) => boolean) => events.filter(match).length;
  const blocked = features.filter((feature) => feature.blocked);
  return {
    name: `nightshift-${records.lanes}`,
    label: `nightshift, ${records.lanes} lane${records.lanes === 1 ? '' : 's'}`,
    status: run.status,
    features: features.length,
    claimedPassing: features.filter((feature) => feature.passes).length,
    passing: [...works.values()].filter(Boolean).length,
    falsePasses: features.filter((feature) => feature.passes && !works.get(feature.id)).length,
    blocked: blocked.length,
    falseBlocks: blocked.filter((feature) => works.get(feature.id)).length,
    measuredWallMs: wall[1] - wall[0],
    projectedWallMs: projectWall(wall[1] - wall[0], modelSpans(events), records.compression),
    sessions: sessions.length,
    modelRequests: records.modelRequests,
    tokens: tokenFigures(usage),
    costUsd: sonnetDollars(usage),
    failedEvaluations: count((event) => event.type === 'verdict.applied' && event.verdict !== 'pass'),
    regressionsCaughtByChecks: count(
      (event) =>
        event.type === 'feature.regressed' || (event.type === 'lane.merge' && event.outcome === 'rejected'),
    ),
    regressionsCaughtByModel: 0,
    regressionsMade: records.mistakes.filter((kind) => kind === 'regression').length,
    mistakesMade: countKinds(records.mistakes),
    checksGreen: records.checksGreen,
    merges: countKinds(events.flatMap((event) => (event.type === 'lane.merge' ? [event.outcome] : []))),
    phases: nightshiftPhases(records, wall),
    byRole: figuresByRole(sessions),
  };
}

/** Sessions, model turns and dollars of each role. */
function figuresByRole(sessions: readonly SessionRecord[]): OvernightBuild['byRole'] {
  const byRole: OvernightBuild['byRole'] = {};
  for (const session of sessions) {
    const figures = byRole[session.role] ?? { sessions: 0, turns: 0, costUsd: 0 };
    byRole[session.role] = {
      sessions: figures.sessions + 1,
      turns: figures.turns + (session.steps ?? 0),
      costUsd: figures.costUsd + (session.usage ? sonnetDollars(session.usage) : 0),
    };
  }
  return byRole;
}
