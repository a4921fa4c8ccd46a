/** The dashboard's side of steering a feature (the routes `POST /runs/:id/features/:featureId/{note,reopen,unblock}` are in api.ts). */
import { z } from 'zod';
import type { FeatureState, RunRecord, RunStore } from '../orchestrator/run/index.js';
import { type SteerRequest, steerFeatureInStore, steerRefusal } from '../orchestrator/steering.js';
import type { SteeringView } from './api-types.js';

/** Who the dashboard's actions are recorded as. */
export const DASHBOARD_ACTOR = 'dashboard';

/** Steers a feature (note, reopen, unblock) and moves the run on; refused as SteerRefusedError, changing nothing. */
export type SteerFeature = (
  runId: string,
  featureId: string,
  request: SteerRequest,
  by: string,
) => Promise<unknown>;

/**
 * Steering on the store alone: an incomplete run with work again goes back to building and the reconciler queues
 * its next session (the CLI's wiring replaces it with orchestrator/steering.ts's `steerFeature`, which queues at once).
 */
export function storeSteer(store: RunStore): SteerFeature {
  return async (runId, featureId, request, by) => {
    const { run } = await steerFeatureInStore(store, { runId, featureId, request, by, now: new Date() });
    if (request.action !== 'note' && run.status === 'incomplete') await store.setStatus(runId, 'building');
  };
}

/** The request bodies: `{text}`, `{reason}`, `{note?}` (validated again, with the limits, by the steering). */
export const SteerBody = z.object({ text: z.unknown(), reason: z.unknown(), note: z.unknown() }).partial();

/** The feature panel's steering card: its notes, and which actions fit (with the reason when one does not). */
export function steeringView(run: RunRecord, feature: FeatureState): SteeringView {
  const view = (action: SteerRequest['action']) => {
    const refusal = steerRefusal(run, feature, action);
    return { allowed: !refusal, reason: refusal?.reason ?? null };
  };
  return { notes: feature.humanNotes, note: view('note'), reopen: view('reopen'), unblock: view('unblock') };
}
