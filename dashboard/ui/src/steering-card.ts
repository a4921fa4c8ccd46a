// The feature panel's steering card: the notes people left (as text), a note box, Reopen (with a reason) and Unblock.
import type { FeatureDetailResponse, RetryView } from '../../api-types.js';
import { api } from './api.js';
import { el } from './dom.js';
import { dateTime } from './format.js';

type Action = 'note' | 'reopen' | 'unblock';

const LABEL: Record<Action, string> = { note: 'Add note', reopen: 'Reopen', unblock: 'Unblock' };
/** The request body field each action's text goes in. */
const FIELD: Record<Action, string> = { note: 'text', reopen: 'reason', unblock: 'note' };

/** The card; `onChanged` reloads the panel and the run after an action took effect. */
export function steeringCard(
  runId: string,
  detail: FeatureDetailResponse,
  onChanged: () => void,
): HTMLElement {
  const { steering, feature } = detail;
  const text = el('textarea', { id: 'steer-text', 'aria-label': 'note or reason' });
  text.rows = 3;
  text.maxLength = 4000;
  text.placeholder =
    'A note for the next session (Add note), what is wrong (Reopen), or an optional note (Unblock)';
  const status = el('p', { class: 'muted small', id: 'steer-status' });
  const button = (action: Action, view: RetryView) => {
    const control = el(
      'button',
      { type: 'button', id: `steer-${action}` },
      LABEL[action],
    ) as HTMLButtonElement;
    if (!view.allowed) {
      control.disabled = true;
      control.title = `Not now: ${view.reason ?? 'not available'}`;
    }
    control.addEventListener('click', async () => {
      const value = text.value.trim();
      if (action !== 'unblock' && !value) {
        status.textContent = action === 'note' ? 'Write the note first.' : 'Say what is wrong first.';
        return;
      }
      control.disabled = true;
      try {
        await api.steer(runId, feature.id, action, value ? { [FIELD[action]]: value } : {});
        text.value = '';
        status.textContent = `${LABEL[action]}: done.`;
        onChanged();
      } catch (error) {
        status.textContent = (error as Error).message;
        control.disabled = false;
      }
    });
    return control;
  };
  return el(
    'section',
    { class: 'steering', id: 'steering' },
    el('h3', null, `Notes (${steering.notes.length})`),
    steering.notes.length
      ? el(
          'ul',
          { class: 'human-notes' },
          ...steering.notes.map((note) =>
            el(
              'li',
              { 'data-kind': note.kind },
              el('span', { class: 'muted small' }, `${note.kind} · ${note.by} · ${dateTime(note.at)}`),
              el('div', { class: 'note-text' }, note.text),
            ),
          ),
        )
      : el('p', { class: 'muted small' }, 'none: a note here is read by the feature’s next session'),
    text,
    el(
      'div',
      { class: 'steer-buttons' },
      button('note', steering.note),
      ' ',
      button('reopen', steering.reopen),
      ' ',
      button('unblock', steering.unblock),
    ),
    status,
  );
}
