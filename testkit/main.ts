/**
 * Runs the scripted model server as its own process:
 *   tsx testkit/main.ts <policy-module> [--latency-ms N] [--port N]
 * The policy module's default export is the policy. Prints one JSON line on stdout
 * (`{"url", "anthropicBaseURL", "openaiBaseURL"}`) once listening; stops on SIGTERM or SIGINT.
 */
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { InputError, NightshiftError } from '../core/errors.js';
import { startModelServer } from './server.js';
import type { Policy } from './types.js';

/** A policy module as imported: its default export should be a policy. */
export type PolicyModule = { default?: unknown };

/** How the process's entry was started: bin/testkit.js hands over the policy module it bundled. */
export interface EntryOptions {
  /** The policy module, already imported; otherwise `main` imports the path it is given. */
  policyModule?: PolicyModule;
}

/** Loads a policy module (its default export) from a file path. */
export async function loadPolicy(modulePath: string, imported?: PolicyModule): Promise<Policy> {
  const url = pathToFileURL(resolve(modulePath)).href;
  let loaded: PolicyModule;
  try {
    loaded = imported ?? ((await import(url)) as PolicyModule);
  } catch (error) {
    throw new InputError('POLICY_MODULE_UNLOADABLE', `Cannot load policy module ${modulePath}`, {
      hint: 'Give the path of a .ts or .js module whose default export is a policy function',
      cause: error,
    });
  }
  if (typeof loaded.default !== 'function') {
    throw new InputError(
      'POLICY_MODULE_INVALID',
      `Policy module ${modulePath} has no default export function`,
      {
        hint: 'Write `export default (conversation) => ({ text: "..." })` (a Policy from testkit/types.ts)',
      },
    );
  }
  return loaded.default as Policy;
}

function parseNumber(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) {
    throw new InputError('ARGUMENT_INVALID', `--${name} must be a non-negative integer, got "${value}"`);
  }
  return number;
}

async function main(argv: string[], options: EntryOptions = {}): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { 'latency-ms': { type: 'string' }, port: { type: 'string' } },
  });
  const [modulePath] = positionals;
  if (!modulePath) {
    throw new InputError('ARGUMENT_MISSING', 'No policy module given', {
      hint: 'Usage: tsx testkit/main.ts <policy-module> [--latency-ms N] [--port N]',
    });
  }
  const policy = await loadPolicy(modulePath, options.policyModule);
  const server = await startModelServer({
    policy,
    latencyMs: parseNumber(values['latency-ms'], 'latency-ms'),
    port: parseNumber(values.port, 'port'),
  });
  process.stdout.write(
    `${JSON.stringify({ url: server.url, anthropicBaseURL: server.anthropicBaseURL, openaiBaseURL: server.openaiBaseURL })}\n`,
  );
  const stop = () => {
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/** Runs {@link main} as a process's entry: a failure is printed and sets the exit code. */
export function runAsEntry(argv: string[], options: EntryOptions = {}): void {
  main(argv, options).catch((error: unknown) => {
    const text = error instanceof NightshiftError ? error.describe() : String(error);
    process.stderr.write(`${text}\n`);
    process.exit(error instanceof NightshiftError ? error.exitCode : 1);
  });
}

// `node --import tsx testkit/main.ts` still works; bin/testkit.js is the faster way in.
const isEntry = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isEntry) runAsEntry(process.argv.slice(2));
