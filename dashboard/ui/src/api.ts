// The dashboard's JSON API as seen from the browser (same origin; the token travels in an HttpOnly cookie).
import type {
  AddFeatureResponse,
  ChecksResponse,
  ErrorResponse,
  FeatureDetailResponse,
  FeaturesResponse,
  GridResponse,
  ProgressResponse,
  RunResponse,
  RunStory,
  RunsResponse,
  SessionsResponse,
  TranscriptResponse,
} from '../../api-types.js';

/** A failed API call, with the server's message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let eventIdObserver: ((id: string) => void) | undefined;

/** Receives the `X-Nightshift-Last-Event` id of every run read (see run-page's load), or stops when undefined. */
export function observeLastEventIds(observer: ((id: string) => void) | undefined): void {
  eventIdObserver = observer;
}

/** A JSON API call (same origin); throws ApiError with the server's message on a 4xx/5xx. */
export async function call<T>(path: string, init?: RequestInit): Promise<T> {
  const response = await fetch(path, { credentials: 'same-origin', ...init });
  const lastEvent = response.headers.get('x-nightshift-last-event');
  if (lastEvent) eventIdObserver?.(lastEvent);
  const body = (await response.json().catch(() => null)) as T | ErrorResponse | null;
  if (!response.ok) {
    const message =
      body && typeof body === 'object' && 'message' in body ? body.message : response.statusText;
    throw new ApiError(response.status, message);
  }
  return body as T;
}

const run = (id: string) => `/api/runs/${encodeURIComponent(id)}`;

/** Typed calls of every endpoint the UI uses. */
export const api = {
  runs: () => call<RunsResponse>('/api/runs'),
  run: (id: string) => call<RunResponse>(run(id)),
  features: (id: string) => call<FeaturesResponse>(`${run(id)}/features`),
  grid: (id: string) => call<GridResponse>(`${run(id)}/grid`),
  feature: (id: string, featureId: string) =>
    call<FeatureDetailResponse>(`${run(id)}/features/${encodeURIComponent(featureId)}`),
  sessions: (id: string, offset: number, limit: number) =>
    call<SessionsResponse>(`${run(id)}/sessions?offset=${offset}&limit=${limit}`),
  transcript: (id: string, seq: number, offset: number, limit: number) =>
    call<TranscriptResponse>(`${run(id)}/sessions/${seq}/transcript?offset=${offset}&limit=${limit}`),
  checks: (id: string) => call<ChecksResponse>(`${run(id)}/checks`),
  progress: (id: string) => call<ProgressResponse>(`${run(id)}/progress`),
  story: (id: string) => call<RunStory>(`${run(id)}/story`),
  control: (id: string, action: 'pause' | 'resume' | 'cancel') =>
    call<RunResponse>(`${run(id)}/${action}`, { method: 'POST' }),
  retry: (id: string, featureId: string) =>
    call<{ ok: true }>(`${run(id)}/features/${encodeURIComponent(featureId)}/retry`, { method: 'POST' }),
  steer: (
    id: string,
    featureId: string,
    action: 'note' | 'reopen' | 'unblock',
    body: Record<string, string>,
  ) =>
    call<{ ok: true }>(`${run(id)}/features/${encodeURIComponent(featureId)}/${action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  answer: (id: string, questionId: string, answer: string) =>
    call<{ question: unknown }>(`${run(id)}/questions/${encodeURIComponent(questionId)}/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ answer, by: 'dashboard' }),
    }),
  addFeature: (id: string, description: string) =>
    call<AddFeatureResponse>(`${run(id)}/features`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ description, by: 'dashboard' }),
    }),
  eventsUrl: (id: string, replay: number) => `${run(id)}/events?replay=${replay}`,
};
