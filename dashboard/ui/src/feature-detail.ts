// The feature panel: steps, recorded check, verdict history with evidence, the feedback file, the retry control and
// the steering card (notes, reopen, unblock).
import type { FeatureDetailResponse, VerdictHistoryEntry } from '../../api-types.js';
import { featureState } from '../../feature-state.js';
import { api } from './api.js';
import { checkSection } from './check-status.js';
import { el, replaceChildren } from './dom.js';
import { dateTime } from './format.js';
import { hashFor, hashLink } from './hash.js';
import { roleBadge } from './labels.js';
import { thumbnails } from './lightbox.js';
import { steeringCard } from './steering-card.js';

/** What the panel does besides showing: closing it, and telling the page a retry changed the run. */
export interface FeaturePanelActions {
  onClose(): void;
  onRetried(): void;
}

/** Shows feature `featureId` of run `runId` in `panel`. */
export async function showFeature(
  panel: HTMLElement,
  runId: string,
  featureId: string,
  actions: FeaturePanelActions,
): Promise<void> {
  panel.hidden = false;
  panel.dataset.feature = featureId;
  replaceChildren(panel, el('p', { class: 'muted' }, `Loading ${featureId}…`));
  let detail: FeatureDetailResponse;
  try {
    detail = await api.feature(runId, featureId);
  } catch (error) {
    replaceChildren(panel, el('p', { class: 'error' }, (error as Error).message));
    return;
  }
  if (panel.dataset.feature !== featureId) return; // another feature was chosen meanwhile
  const { feature } = detail;
  replaceChildren(
    panel,
    panelHead(detail, actions),
    el('p', { class: 'description' }, feature.description),
    el(
      'p',
      { class: 'muted small' },
      `${feature.category} · ${feature.attempts} failed attempt(s)`,
      feature.blockedReason ? ` · blocked: ${feature.blockedReason}` : '',
    ),
    retryControl(runId, detail, actions),
    steeringCard(runId, detail, () => {
      actions.onRetried();
      void showFeature(panel, runId, featureId, actions);
    }),
    el('h3', null, 'Steps'),
    el('ol', { class: 'steps' }, ...feature.steps.map((step) => el('li', null, step))),
    checkSection(runId, feature.id),
    el('h3', null, `Verdicts (${detail.verdicts.length})`),
    detail.verdicts.length
      ? el('div', { class: 'verdicts' }, ...detail.verdicts.map(verdictEntry))
      : el('p', { class: 'muted' }, 'none yet'),
    // The feedback file repeats the latest verdict in the words the next generator reads: there, not open.
    detail.feedback
      ? el(
          'details',
          { class: 'feedback-file' },
          el('summary', null, 'Feedback file the next generator reads'),
          el('pre', { class: 'feedback' }, detail.feedback),
        )
      : null,
  );
}

/** The panel's head: the feature's id (a link to it), its state badge and the close button. */
function panelHead(detail: FeatureDetailResponse, actions: FeaturePanelActions): HTMLElement {
  const { feature } = detail;
  const state = featureState(feature);
  const close = el('button', { type: 'button', class: 'small-button', id: 'feature-close' }, 'close');
  close.addEventListener('click', () => actions.onClose());
  return el(
    'div',
    { class: 'panel-head' },
    el(
      'h2',
      null,
      el(
        'a',
        { href: hashFor({ feature: feature.id, session: null }), title: 'link to this feature' },
        feature.id,
      ),
    ),
    el('span', { class: `badge state-${state}`, 'data-field': 'state' }, state),
    close,
  );
}

function retryControl(
  runId: string,
  detail: FeatureDetailResponse,
  actions: FeaturePanelActions,
): HTMLElement {
  const retry = el('button', { type: 'button', id: 'retry-feature' }, 'Retry feature');
  const note = el('span', { class: 'muted small', id: 'retry-reason' });
  if (!detail.retry.allowed) {
    retry.disabled = true;
    note.textContent = `Nothing to retry: ${detail.retry.reason ?? 'not available'}.`;
    retry.title = note.textContent;
  }
  retry.addEventListener('click', async () => {
    retry.disabled = true;
    try {
      await api.retry(runId, detail.feature.id);
      note.textContent = 'Retried: attempts reset and unblocked; the run picks it up again.';
      actions.onRetried();
    } catch (error) {
      note.textContent = (error as Error).message;
      retry.disabled = false;
    }
  });
  return el('div', { class: 'retry' }, retry, ' ', note);
}

const normalize = (text: string) => text.trim().replace(/\s+/g, ' ').toLowerCase();

function verdictEntry(entry: VerdictHistoryEntry): HTMLElement {
  const images = entry.evidence.filter((e) => e.kind === 'image');
  const files = entry.evidence.filter((e) => e.kind !== 'image');
  // Evaluators often report a failing step's observation again as an issue: show each text once.
  const said = new Set(entry.steps.filter((s) => !s.ok).map((s) => normalize(s.evidence)));
  if (entry.reason) said.add(normalize(entry.reason));
  const issues = entry.issues.filter((issue) => !said.has(normalize(issue)));
  return el(
    'article',
    { class: `verdict verdict-${entry.verdict}`, 'data-session': String(entry.session) },
    el(
      'div',
      { class: 'verdict-head' },
      el('span', { class: `badge state-${entry.verdict}` }, entry.verdict),
      roleBadge('evaluator', entry.mode === 'regression' ? 'regress' : 'evaluate'),
      hashLink({ session: entry.session }, `session ${entry.session}`, { class: 'small' }),
      el('span', { class: 'muted small' }, dateTime(entry.at)),
    ),
    entry.reason ? el('p', { class: 'muted small' }, entry.reason) : null,
    ...entry.ungrounded.map((failure) =>
      el(
        'div',
        { class: 'ungrounded small' },
        `Ungrounded pass (attempt ${failure.attempt}), refused by the harness:`,
        el('ul', null, ...failure.problems.map((problem) => el('li', null, problem))),
      ),
    ),
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
    issues.length ? el('ul', { class: 'issues' }, ...issues.map((issue) => el('li', null, issue))) : null,
    images.length ? thumbnails(images) : null,
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
