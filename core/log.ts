import fs from 'node:fs';
import path from 'node:path';
import pino, { type DestinationStream, type Logger } from 'pino';
import { printable } from './terminal-text.js';

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
/** Where log lines go now: stderr until a command sends them to a file ({@link logToFile}). */
let target: DestinationStream | undefined;
let targetFile: string | undefined;

// Module loggers are made when their modules load, before a command knows where its log belongs: they all
// write through this one forwarder, whose target can change afterwards. JSON escapes C0 controls but leaves DEL
// and C1 (U+009B is a CSI) raw: `printable` writes them as `\u00NN`, the same JSON, so a log on a terminal or
// `tail -f` of the file shows a logged model text or app log line as text.
const forwarder: DestinationStream = {
  write: (line: string) => {
    target ??= pino.destination({ dest: 2, sync: true });
    target.write(printable(line));
  },
};

/** The process-wide root logger (level from NIGHTSHIFT_LOG_LEVEL, default `info`; `silent` in tests). */
export function rootLogger(): Logger {
  if (!root) {
    const level = process.env.NIGHTSHIFT_LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info');
    root = pino(
      { level, redact: { paths: REDACTED_LOG_PATHS, censor: '[redacted]' }, base: { pid: process.pid } },
      forwarder,
    );
  }
  return root;
}

/** A child logger for one module, e.g. `moduleLogger('agent/loop')`. */
export function moduleLogger(module: string): Logger {
  return rootLogger().child({ module });
}

/**
 * Sends every log line of this process to `file` (appended; its directory is created) instead of stderr, so
 * the human output of a command stays readable. Returns the file.
 */
export function logToFile(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  target = pino.destination({ dest: file, sync: true, append: true });
  targetFile = file;
  return file;
}

/** The file log lines go to, or undefined while they go to stderr. */
export function logFile(): string | undefined {
  return targetFile;
}
