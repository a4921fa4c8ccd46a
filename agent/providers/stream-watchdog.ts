import type { ModelRequest, ModelResponse, ProviderFailure, ProviderResult } from '../messages.js';
import type { FailureContext } from './failures.js';

/** What a provider shell supplies to read one streamed reply: the SDK call and the wire mapping. */
export interface StreamReader<Event> {
  /** Opens the stream with the SDK; `signal` is aborted by the caller or by the watchdog. */
  open(signal: AbortSignal): Promise<AsyncIterable<Event>>;
  /** Folds one received event into the reply. */
  apply(event: Event): void;
  /** The final event the stream has not delivered yet, or undefined once it has. */
  missingFinalEvent(): string | undefined;
  /** The reply assembled from the events. */
  response(): ModelResponse;
}

/**
 * Reads one streamed reply under a watchdog that aborts it after `context.timeoutMs` of silence. A stall,
 * a caller's abort and a stream that ends before its final event become typed failures; anything else the
 * SDK throws propagates to the provider's failure classification.
 */
export async function readStream<Event>(
  request: ModelRequest,
  context: FailureContext,
  reader: StreamReader<Event>,
): Promise<ProviderResult> {
  const watchdog = startWatchdog(context.timeoutMs, request.signal);
  try {
    const events = await reader.open(watchdog.signal);
    watchdog.touch();
    try {
      for await (const event of events) {
        watchdog.touch();
        reader.apply(event);
      }
    } catch (error) {
      if (!watchdog.fired || request.signal?.aborted) throw error;
    }
    const failure = endOfStreamFailure(
      context.providerId,
      request.signal,
      watchdog,
      context.timeoutMs,
      reader.missingFinalEvent(),
    );
    if (failure) return { ok: false, failure };
    return { ok: true, response: reader.response() };
  } finally {
    watchdog.stop();
  }
}

/**
 * Aborts a stream that stays silent for `idleMs`. The SDKs' own timeout stops at the response headers,
 * so without this a server that stalls mid-stream would hang the session forever.
 */
interface StreamWatchdog {
  /** Pass to the SDK: aborted by the caller's signal or by the watchdog. */
  readonly signal: AbortSignal;
  /** Call on every received event. */
  touch(): void;
  /** True when the watchdog (not the caller) aborted the request. */
  readonly fired: boolean;
  /** Stops the timer. */
  stop(): void;
}

/** Starts a watchdog; its timer runs only between `touch()` and `stop()`. */
function startWatchdog(idleMs: number, callerSignal: AbortSignal | undefined): StreamWatchdog {
  // One controller fed by the caller's signal (listener removed on stop) rather than AbortSignal.any,
  // whose dependents pile up on a long-lived session signal in Node 20.
  const own = new AbortController();
  const forward = () => own.abort(callerSignal?.reason);
  if (callerSignal?.aborted) forward();
  else callerSignal?.addEventListener('abort', forward, { once: true });
  let timer: NodeJS.Timeout | undefined;
  let fired = false;
  const arm = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      fired = true;
      own.abort(new Error(`stream silent for ${idleMs} ms`));
    }, idleMs);
    timer.unref();
  };
  return {
    signal: own.signal,
    touch: arm,
    get fired() {
      return fired;
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      callerSignal?.removeEventListener('abort', forward);
    },
  };
}

/**
 * Why a stream that ended without throwing is still a failure, if it is: the caller aborted (the SDKs
 * end an aborted stream quietly), the watchdog fired, or the stream stopped before its final event.
 */
function endOfStreamFailure(
  providerId: string,
  callerSignal: AbortSignal | undefined,
  watchdog: StreamWatchdog,
  idleMs: number,
  missingFinalEvent: string | undefined,
): ProviderFailure | undefined {
  if (callerSignal?.aborted) return { kind: 'aborted', message: `${providerId}: request aborted` };
  if (watchdog.fired) return { kind: 'retryable', message: `${providerId}: stream stalled for ${idleMs} ms` };
  if (missingFinalEvent)
    return { kind: 'retryable', message: `${providerId}: stream ended before ${missingFinalEvent}` };
  return undefined;
}
