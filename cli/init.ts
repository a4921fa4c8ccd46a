/** `nightshift init`: writes a sample config with a comment on each part, asking nothing, never over a file. */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { describeLifecycle, modelLifecycle } from '../agent/model-retirement.js';
import { resolveModelSettings } from '../agent/models.js';
import { InputError } from '../core/errors.js';
import { DEFAULT_MODEL, RunConfig } from '../orchestrator/config.js';
import { CONFIG_FILE_NAME, loadConfig } from '../orchestrator/config-load.js';
import { type CliDeps, resolveDeps } from './context.js';
import { modelOption } from './options.js';

/** The sample config: the defaults that matter first, with `//` comments (ignored when the file is read). */
export function sampleConfig(model: string = DEFAULT_MODEL): Record<string, unknown> {
  const { budgets } = RunConfig.parse({});
  return {
    '//': 'nightshift config. Every field is optional; keys named "//" are comments. All fields: docs/configuration.md',
    run: {
      '//': 'defaults for new runs (each run keeps a copy); options of `nightshift run` override them',
      models: {
        '//': 'provider:model per role: anthropic:<model>, openai:<model>, openai-compatible:<server> (docs/models.md)',
        initializer: model,
        generator: model,
        evaluator: model,
      },
      budgets: {
        '//': 'a run pauses when one is reached; `nightshift resume RUN --budget-usd N` raises it and goes on',
        maxCostUsd: budgets.maxCostUsd,
        maxSessions: budgets.maxSessions,
        maxAttemptsPerFeature: budgets.maxAttemptsPerFeature,
      },
      prices: {
        '//': 'USD per million tokens for models without a known price, keyed by provider:model',
      },
      notifications: {
        '//': 'e.g. [{ "url": "https://hooks.slack.com/services/…", "format": "slack" }]; or per run: run --webhook URL',
        webhooks: [],
      },
    },
    worker: { '//': 'sessions one `nightshift worker` process runs at once', concurrency: 1 },
    dashboard: {
      '//': 'anything but 127.0.0.1 needs a token of 16+ characters',
      host: '127.0.0.1',
      port: 7070,
    },
  };
}

/** Registers `nightshift init [FILE]`. */
export function registerInitCommand(program: Command, deps: CliDeps = {}): void {
  program
    .command('init')
    .description(`write a sample ${CONFIG_FILE_NAME} with comments (never over an existing file)`)
    .argument('[file]', 'where to write it', CONFIG_FILE_NAME)
    .option('--model <id>', `the model of every role (default: ${DEFAULT_MODEL})`, modelOption('--model'))
    .action((file: string, options: { model?: string }) => {
      const resolved = resolveDeps(deps);
      const model = options.model ?? DEFAULT_MODEL;
      // Never a config that fails its first run: a retired model is refused with its replacement named.
      const retirement = checkRetirement(model, resolved.now());
      const target = path.resolve(resolved.cwd(), file);
      if (fs.existsSync(target)) {
        throw new InputError('CONFIG_EXISTS', `${target} already exists; it was left as it is.`, {
          hint: 'Edit it, or run `nightshift init OTHER_FILE` and use it with --config OTHER_FILE.',
        });
      }
      fs.mkdirSync(path.dirname(target), { recursive: true });
      // `wx`: a file that appeared since the check is not overwritten either.
      fs.writeFileSync(target, `${JSON.stringify(sampleConfig(model), null, 2)}\n`, { flag: 'wx' });
      loadConfig({ cwd: resolved.cwd(), env: {}, file: target });
      if (retirement) resolved.stderr.write(`warning: ${retirement}\n`);
      resolved.stdout.write(
        `wrote ${target}\nnext: set your API key (export ANTHROPIC_API_KEY=…), check with \`nightshift doctor\`, then \`nightshift run app_spec.md --workspace ./app\`.\n`,
      );
    });
}

/** Throws for a retired model (naming the replacement); returns the warning for one about to retire. */
function checkRetirement(model: string, now: Date): string | undefined {
  const lifecycle = modelLifecycle(resolveModelSettings(model), now);
  const sentence = describeLifecycle(model, lifecycle);
  if (lifecycle.state === 'retired') {
    throw new InputError('MODEL_RETIRED', `Nothing was written: ${sentence}.`, {
      hint: `Run \`nightshift init --model ${lifecycle.replacement ?? 'PROVIDER:MODEL'}\`.`,
    });
  }
  return sentence;
}
