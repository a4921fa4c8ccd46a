import type { EgressRefusal } from '../agent/sandbox/egress-proxy.js';
import type { BashToolOptions } from '../agent/tools/index.js';
import type { RoleSessionInput } from './types.js';

/** What starting a box for a session needs from its input (also the CLI's replays, which have no session). */
export type AppStartInput = Pick<
  RoleSessionInput,
  'runId' | 'session' | 'dataDir' | 'sandbox' | 'sink' | 'clock' | 'appReadyTimeoutMs'
>;

/** The box settings of a role session: the run's sandbox, the data dir hidden, refusals as events. */
export function boxOptions(
  input: AppStartInput,
  source: 'bash' | 'app',
): Pick<BashToolOptions, 'sandbox' | 'network' | 'allowHosts' | 'hiddenPaths' | 'onEgressRefused'> {
  const clock = input.clock ?? Date.now;
  return {
    ...input.sandbox,
    hiddenPaths: [input.dataDir, ...(input.sandbox?.hiddenPaths ?? [])],
    onEgressRefused: (refusal: EgressRefusal) =>
      input.sink?.({
        type: 'sandbox.egress_refused',
        at: new Date(clock()).toISOString(),
        sessionId: `${input.runId}-${input.session}`,
        source,
        host: refusal.host,
        port: refusal.port,
        reason: refusal.reason,
      }),
  };
}
