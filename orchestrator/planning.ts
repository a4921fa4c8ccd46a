/**
 * From a planner's spec to a run: the spec (as accepted, or as a person edited it) is saved beside the plan
 * and handed to {@link startRun} with its origin, so the workspace's first commit records the prompt.
 * The CLI (`plan`, `run --prompt`) and the dashboard's new-run form both start planned runs here.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../core/errors.js';
import { planDataDir } from '../core/paths.js';
import type { SpecOrigin } from '../handoff/spec-origin.js';
import type { PlannerResult } from '../roles/planner.js';
import type { RunConfig } from './config.js';
import type { Orchestrator } from './orchestrator.js';
import type { RunRecord } from './run/run-state.js';
import { MAX_SPEC_BYTES, type RunWorkspaceInput, startRun } from './start-run.js';

/** The spec file of a planned run, saved beside its plan in the data dir (the run's `spec.path`). */
export const PLANNED_SPEC_FILE = 'app_spec.md';

/** What {@link startPlannedRun} needs. */
export interface StartPlannedRunInput {
  plan: PlannerResult;
  /** The spec to build: the planner's, or a person's edit of it (default: the planner's). */
  spec?: string;
  workspace: RunWorkspaceInput;
  config: RunConfig;
  dataDir: string;
  id?: string;
  /** What people call the run; default: the spec's title. */
  name?: string;
}

/** The origin record of a planned spec; `edited` when `spec` differs from what the planner submitted. */
export function specOriginOf(plan: PlannerResult, spec: string): SpecOrigin {
  return {
    prompt: plan.prompt,
    planId: plan.planId,
    model: plan.model,
    exchanges: plan.exchanges,
    costUsd: plan.costUsd,
    plannedAt: new Date(Date.parse(plan.startedAt) + plan.durationMs).toISOString(),
    edited: normalized(spec) !== normalized(plan.spec),
  };
}

function normalized(spec: string): string {
  return `${spec.replace(/\r\n?/g, '\n').trim()}\n`;
}

/** Saves the spec beside the plan and starts a run on it with its origin; returns the new run. */
export async function startPlannedRun(
  orchestrator: Orchestrator,
  input: StartPlannedRunInput,
): Promise<RunRecord> {
  const spec = normalized(input.spec ?? input.plan.spec);
  if (spec.trim() === '') {
    throw new InputError('SPEC_EMPTY', 'The spec is empty.', {
      hint: 'Keep the planner’s spec, or write what the application must do.',
    });
  }
  if (Buffer.byteLength(spec) > MAX_SPEC_BYTES) {
    throw new InputError('SPEC_TOO_LARGE', `The spec is larger than ${MAX_SPEC_BYTES} bytes.`, {
      hint: 'Shorten the spec: keep what the application must do.',
    });
  }
  const specPath = path.join(planDataDir(input.dataDir, input.plan.planId), PLANNED_SPEC_FILE);
  await writeFile(specPath, spec);
  return startRun(orchestrator, {
    specPath,
    workspace: input.workspace,
    config: input.config,
    dataDir: input.dataDir,
    origin: specOriginOf(input.plan, spec),
    ...(input.id ? { id: input.id } : {}),
    ...(input.name ? { name: input.name } : {}),
  });
}
