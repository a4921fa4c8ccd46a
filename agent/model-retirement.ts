/**
 * Models a provider retires: a model's settings carry the day it stops answering (`retiresOn`) and what to move to
 * (`replacement`). Pure: `doctor`, `init`, the run preflight and the dashboard's new-run check all read a model's
 * state here, so they warn and refuse alike.
 */
import type { ModelSettings } from './models.js';

/** Days before a retirement from which every check warns about it. */
export const RETIREMENT_WARNING_DAYS = 30;

const DAY_MS = 86_400_000;

/** Where a model stands on a given day. */
export type ModelLifecycle =
  | { state: 'current' }
  | { state: 'retiring'; retiresOn: string; daysLeft: number; replacement: string | null }
  | { state: 'retired'; retiresOn: string; replacement: string | null };

/**
 * A model's state on `now`: `retired` from its retirement day (00:00 UTC, when requests start failing),
 * `retiring` within `warningDays` before it, else `current` (also when no retirement is announced).
 */
export function modelLifecycle(
  settings: Pick<ModelSettings, 'retiresOn' | 'replacement'>,
  now: Date,
  warningDays = RETIREMENT_WARNING_DAYS,
): ModelLifecycle {
  if (!settings.retiresOn) return { state: 'current' };
  const retiresAt = Date.parse(`${settings.retiresOn}T00:00:00Z`);
  const replacement = settings.replacement ?? null;
  if (now.getTime() >= retiresAt) return { state: 'retired', retiresOn: settings.retiresOn, replacement };
  const daysLeft = Math.ceil((retiresAt - now.getTime()) / DAY_MS);
  return daysLeft <= warningDays
    ? { state: 'retiring', retiresOn: settings.retiresOn, daysLeft, replacement }
    : { state: 'current' };
}

/** How to move off a model: the replacement in the option and config that choose it. */
function moveTo(replacement: string | null): string {
  return replacement
    ? `use ${replacement} instead (--model ${replacement}, or run.models in the config)`
    : 'choose another model (--model, or run.models in the config)';
}

/**
 * The sentence a check prints for a model that is not current, naming the replacement; undefined when current.
 * `retired` is a refusal, `retiring` a warning.
 */
export function describeLifecycle(modelId: string, lifecycle: ModelLifecycle): string | undefined {
  switch (lifecycle.state) {
    case 'current':
      return undefined;
    case 'retired':
      return `${modelId} was retired on ${lifecycle.retiresOn} (its provider no longer answers it): ${moveTo(lifecycle.replacement)}`;
    case 'retiring': {
      const when = lifecycle.daysLeft === 1 ? 'tomorrow' : `in ${lifecycle.daysLeft} days`;
      return `${modelId} retires on ${lifecycle.retiresOn} (${when}); a run still using it then fails: ${moveTo(lifecycle.replacement)}`;
    }
  }
}
