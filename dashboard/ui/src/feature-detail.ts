// The feature panel: steps, feedback, verdict history with evidence, and the retry control.
import type { FeatureDetailResponse, VerdictHistoryEntry } from '../../api-types.js';
import { api } from './api.js';
import { el, replaceChildren } from './dom.js';
import { featureState } from './feature-grid.js';
import { dateTime } from './format.js';

/** Shows feature `featureId` of run `runId` in `panel`. */
export async function showFeature(panel: HTMLElement, runId: string, featureId: string): Promise<void> {
  panel.hidden = false;
  replaceChildren(panel, el('p', { class: 'muted' }, `Loading ${featureId}…`));
  let detail: FeatureDetailResponse;
  try {
    detail = await api.feature(runId, featureId);
  } catch (error) {
    replaceChildren(panel, el('p', { class: 'error' }, (error as Error).message));
    return;
  }
  const { feature } = detail;
  const state = featureState(feature);
  const close = el('button', { type: 'button', class: 'small-button' }, 'close');
  close.addEventListener('click', () => {
    panel.hidden = true;
  });
  const retry = el('button', { type: 'button', id: 'retry-feature' }, 'Retry feature');
  const retryStatus = el('span', { class: 'muted small' });
  retry.addEventListener('click', async () => {
    retry.disabled = true;
    try {
      await api.retry(runId, feature.id);
      retryStatus.textContent = 'retried: attempts reset, unblocked';
    } catch (error) {
      retryStatus.textContent = (error as Error).message;
    }
    retry.disabled = false;
  });
  replaceChildren(
    panel,
    el(
      'div',
      { class: 'panel-head' },
      el('h2', null, feature.id),
      el('span', { class: `badge state-${state}` }, state),
      close,
    ),
    el('p', { class: 'description' }, feature.description),
    el(
      'p',
      { class: 'muted small' },
      `${feature.category} · ${feature.attempts} attempt(s)`,
      feature.blockedReason ? ` · blocked: ${feature.blockedReason}` : '',
    ),
    el('div', null, retry, retryStatus),
    el('h3', null, 'Steps'),
    el('ol', { class: 'steps' }, ...feature.steps.map((step) => el('li', null, step))),
    el('h3', null, 'Latest feedback'),
    detail.feedback ? el('pre', { class: 'feedback' }, detail.feedback) : el('p', { class: 'muted' }, 'none'),
    el('h3', null, `Verdicts (${detail.verdicts.length})`),
    detail.verdicts.length
      ? el('div', { class: 'verdicts' }, ...detail.verdicts.map(verdictEntry))
      : el('p', { class: 'muted' }, 'none yet'),
  );
}

function verdictEntry(entry: VerdictHistoryEntry): HTMLElement {
  const images = entry.evidence.filter((e) => e.kind === 'image');
  const files = entry.evidence.filter((e) => e.kind !== 'image');
  return el(
    'article',
    { class: `verdict verdict-${entry.verdict}` },
    el(
      'div',
      null,
      el('span', { class: `badge state-${entry.verdict}` }, entry.verdict),
      ` session ${entry.session} · ${entry.mode} · ${dateTime(entry.at)}`,
    ),
    entry.reason ? el('p', { class: 'muted small' }, entry.reason) : null,
    entry.steps.length
      ? el(
          'ul',
          { class: 'verdict-steps' },
          ...entry.steps.map((s) =>
            el(
              'li',
              { class: s.ok ? 'ok' : 'not-ok' },
              `${s.ok ? '✓' : '✗'} ${s.step}`,
              el('div', { class: 'muted small' }, s.evidence),
            ),
          ),
        )
      : null,
    entry.issues.length
      ? el('ul', { class: 'issues' }, ...entry.issues.map((issue) => el('li', null, issue)))
      : null,
    images.length
      ? el(
          'div',
          { class: 'shots' },
          ...images.map((img) => {
            const image = el('img', { class: 'shot', title: img.name });
            image.alt = img.name;
            image.loading = 'lazy';
            image.src = img.url;
            return el('a', { href: img.url, title: img.name }, image);
          }),
        )
      : null,
    files.length
      ? el(
          'div',
          null,
          ...files.map((file) => {
            const link = el(
              'a',
              { href: file.url, class: 'download' },
              file.kind === 'trace' ? `download trace (${file.name})` : file.name,
            );
            link.download = file.name;
            return link;
          }),
        )
      : null,
  );
}
