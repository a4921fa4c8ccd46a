import pino, { type Logger } from 'pino';

/** Keys whose values never reach a log line, wherever they appear in a logged object. */
export const REDACTED_LOG_PATHS = [
  'apiKey',
  '*.apiKey',
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'headers["x-api-key"]',
  '*.headers.authorization',
  '*.headers["x-api-key"]',
  'env.ANTHROPIC_API_KEY',
  'env.OPENAI_API_KEY',
];

let root: Logger | undefined;

/** The process-wide root logger (level from NIGHTSHIFT_LOG_LEVEL, default `info`; `silent` in tests). */
export function rootLogger(): Logger {
  if (!root) {
    const level = process.env.NIGHTSHIFT_LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info');
    root = pino(
      { level, redact: { paths: REDACTED_LOG_PATHS, censor: '[redacted]' }, base: { pid: process.pid } },
      pino.destination(2),
    );
  }
  return root;
}

/** A child logger for one module, e.g. `moduleLogger('agent/loop')`. */
export function moduleLogger(module: string): Logger {
  return rootLogger().child({ module });
}
