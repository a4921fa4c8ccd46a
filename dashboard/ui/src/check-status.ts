// A feature's recorded check (version, file) and its last replay (green/red, when, who, the failure and its
// screenshot). Everything from the API, failure messages included, becomes text nodes only.
import type { FeatureCheckView } from '../../api-types.js';
import { api } from './api.js';
import { el, replaceChildren } from './dom.js';
import { dateTime } from './format.js';

const BY: Record<string, string> = {
  gate: 'the pass gate',
  sweep: 'a regression sweep',
  cli: '`nightshift checks run`',
};

/** The section, filled once `GET /api/runs/:id/checks` answers (the rest of the panel does not wait for it). */
export function checkSection(runId: string, featureId: string): HTMLElement {
  const body = el('div', { class: 'check-status', 'data-check': 'loading' }, 'Loading the recorded check…');
  const section = el('section', { class: 'recorded-check' }, el('h3', null, 'Recorded check'), body);
  api
    .checks(runId)
    .then((response) => {
      const view = response.checks.find((item) => item.featureId === featureId);
      if (!response.local)
        return show(body, 'remote', 'The checks of a remote workspace live in its repository.');
      if (!view?.check)
        return show(body, 'none', 'None yet: a check is recorded when the evaluator passes the feature.');
      body.dataset.check = view.lastReplay ? (view.lastReplay.ok ? 'green' : 'red') : 'unreplayed';
      replaceChildren(body, ...checkLines(view));
    })
    .catch((error: Error) => show(body, 'error', error.message));
  return section;
}

function show(body: HTMLElement, state: string, text: string): void {
  body.dataset.check = state;
  replaceChildren(body, el('p', { class: 'muted small' }, text));
}

function checkLines(view: FeatureCheckView): HTMLElement[] {
  const check = view.check;
  if (!check) return [];
  const replay = view.lastReplay;
  const history = check.previousVersions.length ? ` · earlier: v${check.previousVersions.join(', v')}` : '';
  const lines: HTMLElement[] = [
    el(
      'p',
      { class: 'small' },
      el('span', { class: 'badge', 'data-field': 'check-version' }, `v${check.version}`),
      ' ',
      el('code', { 'data-field': 'check-file' }, check.file),
      ` · ${check.actions} action(s), ${check.expectations.length} expectation(s) · ${check.reason === 'rerecord' ? 're-recorded' : 'recorded'} ${dateTime(check.recordedAt)}${history}`,
    ),
  ];
  if (check.flaky) lines.push(el('p', { class: 'muted small' }, `Flaky once: ${check.flaky.failure}`));
  if (!replay) {
    lines.push(el('p', { class: 'muted small' }, 'Not replayed yet.'));
    return lines;
  }
  const failure = replay.failure
    ? `${replay.failure.stage} ${replay.failure.index + 1}: ${replay.failure.description} (${replay.failure.message})`
    : null;
  lines.push(
    el(
      'p',
      { class: 'small', 'data-field': 'last-replay' },
      el('span', { class: `badge state-${replay.ok ? 'pass' : 'fail'}` }, replay.ok ? 'green' : 'red'),
      ` last replay v${replay.version} by ${BY[replay.by] ?? replay.by}, ${dateTime(replay.at)}, ${Math.round(replay.durationMs)} ms`,
    ),
  );
  if (failure) lines.push(el('p', { class: 'issues small' }, `Failed at ${failure}`));
  if (view.screenshotUrl) {
    lines.push(
      el(
        'a',
        { href: view.screenshotUrl, class: 'small', 'data-field': 'replay-screenshot' },
        'failure screenshot',
      ),
    );
  }
  return lines;
}
