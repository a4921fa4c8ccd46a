import type { AdvanceOptions, AdvanceResult } from '../advance.js';
import { changeStatus } from '../change-status.js';
import { sessionJobId } from '../keys.js';
import type { Orchestrator } from '../orchestrator.js';
import type { RunRecord, RunState } from '../run/run-state.js';
import type { NextAction } from '../scheduler.js';
import { addSessionJob, IN_FLIGHT_STATES } from '../session-jobs.js';
import { MAIN_SLOT, nextLaneActions } from './lane-scheduler.js';
import { claimSlot } from './lane-store.js';

/** How advance applies a run-level action (finish, pause, fail, wait); passed in to keep the imports one way. */
export type ApplyRunAction = (
  orchestrator: Orchestrator,
  state: RunState,
  action: NextAction,
) => Promise<AdvanceResult>;

/**
 * One advance of a run in lanes mode: finds the slots whose job is still in flight, asks the lane planner, and
 * queues a job for every action (each slot claimed in the run record first, in one compare-and-set, so a crash
 * between the claim and the job only makes the next advance plan that slot again).
 */
export async function advanceLanes(
  orchestrator: Orchestrator,
  state: RunState,
  options: AdvanceOptions,
  applyRunAction: ApplyRunAction,
): Promise<AdvanceResult> {
  const { run } = state;
  const busy = await busySlots(orchestrator, run, options.finishedJobId);
  const plan = nextLaneActions(state, orchestrator.now(), busy);
  if (plan.kind === 'run') return applyRunAction(orchestrator, state, plan.action);
  if (plan.actions.length === 0) {
    const seq = busy.has(MAIN_SLOT) ? run.mainSeq : (run.lanes.find((lane) => busy.has(lane.lane))?.seq ?? 0);
    return seq > 0
      ? { kind: 'in-flight', jobId: sessionJobId(run.id, seq) }
      : { kind: 'idle', reason: 'no lane has work it can start' };
  }
  const working = plan.actions.some((slot) => slot.action.kind === 'initialize')
    ? 'initializing'
    : 'building';
  if (run.status !== working) await changeStatus(orchestrator, run, working);
  let last: AdvanceResult = { kind: 'idle', reason: 'nothing queued' };
  for (const { slot, action, assign } of plan.actions) {
    const seq = await orchestrator.store.nextSeq(run.id);
    const claimed = await claimSlot(
      orchestrator.store,
      run.id,
      { slot, seq, action, ...(assign ? { assign } : {}) },
      orchestrator.now(),
    );
    last = await addSessionJob(orchestrator, claimed, { runId: run.id, seq, slot, action });
  }
  return last;
}

/** Slots (0 = the run's, 1…2N lanes) whose latest job is still waiting or running. */
async function busySlots(
  orchestrator: Orchestrator,
  run: RunRecord,
  finishedJobId?: string,
): Promise<Set<number>> {
  const busy = new Set<number>();
  const slots: Array<[number, number]> = [
    [MAIN_SLOT, run.mainSeq],
    ...run.lanes.map((lane): [number, number] => [lane.lane, lane.seq]),
  ];
  await Promise.all(
    slots.map(async ([slot, seq]) => {
      if (seq === 0) return;
      const jobId = sessionJobId(run.id, seq);
      if (jobId === finishedJobId) return;
      const job = await orchestrator.queues.sessions.getJob(jobId);
      if (job && IN_FLIGHT_STATES.has(await job.getState())) busy.add(slot);
    }),
  );
  return busy;
}
