/**
 * The box of a session's workspace-controlled processes (bash, the app): what a session's input carries, the
 * settings the box gets from it, and the evaluator browser's refusals as events. Here rather than in roles/ so
 * the app starts of evaluation/ and the roles' bash share them.
 */
import type { EventSink } from '../agent/events.js';
import type { BashToolOptions } from '../agent/tools/index.js';
import type { EgressRefusal } from '../box/egress-proxy.js';

/**
 * The box settings a session is given: bubblewrap choice, network policy, extra hosts, hidden paths, limits.
 */
export type SessionSandbox = Pick<
  BashToolOptions,
  'sandbox' | 'network' | 'allowHosts' | 'npmRegistry' | 'hiddenPaths' | 'maxMemoryBytes' | 'maxFileSizeBytes'
>;

/** Which session events are reported for: the run, the session's number, the event sink and the clock. */
export interface SessionIdentity {
  runId: string;
  /** The session's number in the run (the job sequence). */
  session: number;
  /** Agent and harness events, as they happen. */
  sink?: EventSink;
  /** Milliseconds clock, injectable. */
  clock?: () => number;
}

/** What starting a box for a session needs from its input (also the CLI's replays, which have no session). */
export interface AppStartInput extends SessionIdentity {
  /** The data dir: app logs, evidence, backups (hidden from the box). */
  dataDir: string;
  /** The box settings of the app. */
  sandbox?: SessionSandbox;
  /** How long the app may take to answer after `init.sh` starts. */
  appReadyTimeoutMs?: number;
  /** Fill fresh app copies from the run's dependency cache (default true; run config `app.dependencyCache`). */
  appDependencyCache?: boolean;
}

/** The box settings of a role session: the run's sandbox, the data dir hidden, refusals as events. */
export function boxOptions(
  input: AppStartInput,
  source: 'bash' | 'app',
): Pick<
  BashToolOptions,
  | 'sandbox'
  | 'network'
  | 'allowHosts'
  | 'npmRegistry'
  | 'hiddenPaths'
  | 'onEgressRefused'
  | 'maxMemoryBytes'
  | 'maxFileSizeBytes'
> {
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

/** Reports each request the evaluator's browser refused as a `sandbox.egress_refused` event (source `browser`). */
export function browserBlockedEvents(
  input: SessionIdentity,
): (blocked: { method: string; target: string; reason: string }) => void {
  const clock = input.clock ?? Date.now;
  return (blocked) => {
    const { host, port } = hostAndPort(blocked.method, blocked.target);
    input.sink?.({
      type: 'sandbox.egress_refused',
      at: new Date(clock()).toISOString(),
      sessionId: `${input.runId}-${input.session}`,
      source: 'browser',
      host,
      port,
      reason: `${blocked.method} ${blocked.target}: ${blocked.reason}`,
    });
  };
}

/** Host and port of an absolute URL, or of a tunnel's `host:port` (port 0 when it cannot be told). */
function hostAndPort(method: string, target: string): { host: string; port: number } {
  const text = method === 'CONNECT' ? `http://${target}` : target;
  if (!URL.canParse(text)) return { host: target, port: 0 };
  const url = new URL(text);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port };
}
