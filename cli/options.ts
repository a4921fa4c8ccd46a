/** Parsers of command-line option values shared by the commands: each names the option and the fix. */
import { closestKnownModel } from '../agent/models.js';
import { PROVIDER_NAMES, parseModelId } from '../agent/providers/index.js';
import { InputError } from '../core/errors.js';
import { closestMatch } from '../core/suggest.js';
import { DEFAULT_MODEL, guessProvider, parseDuration } from '../orchestrator/config.js';

/** `--budget-usd N`, or `none` for no cost cap (null). */
export function budgetUsd(value: string): number | null {
  if (value.trim().toLowerCase() === 'none') return null;
  const parsed = Number(value);
  if (!value.trim() || !Number.isFinite(parsed) || parsed <= 0) {
    throw new InputError(
      'OPTION_INVALID',
      `--budget-usd must be a positive number or "none", not "${value}".`,
      { hint: 'e.g. --budget-usd 20, or --budget-usd none to run without a cost cap' },
    );
  }
  return parsed;
}

/** Parses a positive integer option, naming the option when it is not one. */
export function positiveInt(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 1) {
      throw new InputError('OPTION_INVALID', `${name} must be a positive whole number, not "${value}".`, {
        hint: `e.g. ${name} 2`,
      });
    }
    return parsed;
  };
}

/** Parses a whole-number option in `min`…`max`, naming the option, what was given and a good value. */
export function intInRange(name: string, min: number, max: number, example: number) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
      throw new InputError(
        'OPTION_INVALID',
        `${name} must be a whole number from ${min} to ${max}, not "${value}".`,
        {
          hint: `e.g. ${name} ${example}`,
        },
      );
    }
    return parsed;
  };
}

/**
 * Checks a model option (`--model`, `--model-generator`…) once, at the edge: a model id `provider:model` with a
 * known provider. Named with what was given and an example (a misspelt provider gets a "did you mean").
 */
export function modelOption(name: string) {
  return (value: string): string => {
    try {
      parseModelId(value);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      throw new InputError(
        'OPTION_INVALID',
        `${name}: ${error.message.replace(/^Model id/, 'model id')}${modelMeant(value)}.`,
        {
          hint: `e.g. ${name} ${DEFAULT_MODEL} (providers: ${PROVIDER_NAMES.join(', ')}; docs/models.md)`,
        },
      );
    }
    return value;
  };
}

/** ` (did you mean "anthropic:claude-sonnet-5-5"?)` for a bad model id: a known model, or the provider added. */
function modelMeant(value: string): string {
  const colon = value.indexOf(':');
  const provider = colon < 0 ? undefined : value.slice(0, colon);
  // A misspelt provider: look the name up under the provider it is closest to.
  const fixedProvider = provider === undefined ? undefined : closestMatch(provider, PROVIDER_NAMES);
  const known = closestKnownModel(fixedProvider ? `${fixedProvider}:${value.slice(colon + 1)}` : value);
  if (known) return ` (did you mean "${known}"?)`;
  if (provider === undefined) return ` (did you mean "${guessProvider(value)}:${value}"?)`;
  return fixedProvider ? ` (did you mean "${fixedProvider}:${value.slice(colon + 1)}"?)` : '';
}

/** Collects a repeatable option's values. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Parses a duration option (`30s`, `3m`, `1h30m`) into milliseconds, naming the option when it is not one. */
export function durationMs(name: string, example = '3m') {
  return (value: string): number => {
    try {
      return parseDuration(value);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      throw new InputError('OPTION_INVALID', `${name} must be a duration, not "${value}".`, {
        hint: `Use a positive number followed by s, m, h or d, e.g. ${name} ${example}.`,
      });
    }
  };
}
