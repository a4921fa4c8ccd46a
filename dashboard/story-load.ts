/** Reads what a run's story is built from (the run record, its features, every session, the newest nightly summary). */
import type { RunEvent, StoredRunEvent } from '../orchestrator/events.js';
import type { RunStore, SessionRecord } from '../orchestrator/run/index.js';
import { buildRunStory } from './story.js';
import { RunStory } from './story-schema.js';

/** Sessions read per Redis round trip. */
const SESSION_PAGE = 1000;
/** Events searched for the newest nightly summary when no cache knows it (agent events are interleaved). */
const SUMMARY_SCAN = 2000;

/** Finds the newest nightly summary of a run (the dashboard's digest cache, or {@link scanLastWindow}). */
export type LastWindowReader = (runId: string) => Promise<RunStory['lastWindow']>;

/** Every session of a run in seq order, a page at a time (one pass: linear in the sessions). */
export async function readAllSessions(store: RunStore, runId: string): Promise<SessionRecord[]> {
  const all: SessionRecord[] = [];
  for (let offset = 0; ; offset += SESSION_PAGE) {
    const { sessions } = await store.listSessions(runId, { offset, limit: SESSION_PAGE });
    all.push(...sessions);
    if (sessions.length < SESSION_PAGE) return all;
  }
}

/** The newest `nightly.summary` among the run's latest events, without its type and run id. */
export function lastWindowOf(events: readonly StoredRunEvent[]): RunStory['lastWindow'] {
  const found = events.findLast(
    (stored): stored is StoredRunEvent & { event: Extract<RunEvent, { type: 'nightly.summary' }> } =>
      stored.event.type === 'nightly.summary',
  );
  if (!found) return null;
  const { type: _type, runId: _runId, ...summary } = found.event;
  return summary;
}

/** Reads the newest nightly summary from the latest events of the run. */
export function scanLastWindow(store: RunStore): LastWindowReader {
  return async (runId) => lastWindowOf(await store.readEvents(runId, { latest: true, count: SUMMARY_SCAN }));
}

/** The story of run `runId` at `now` (throws RunNotFoundError for an unknown run). */
export async function loadRunStory(
  store: RunStore,
  runId: string,
  now: Date,
  lastWindow: LastWindowReader = scanLastWindow(store),
): Promise<RunStory> {
  const [state, sessions, window] = await Promise.all([
    store.loadState(runId),
    readAllSessions(store, runId),
    lastWindow(runId),
  ]);
  return RunStory.parse(buildRunStory({ state, sessions, lastWindow: window, now }));
}
