/** Parsers of command-line option values shared by the commands: each names the option and the fix. */
import { InputError } from '../core/errors.js';
import { parseDuration } from '../orchestrator/config.js';

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
        hint: `Use a positive number followed by s, m or h, e.g. ${name} ${example}.`,
      });
    }
  };
}
