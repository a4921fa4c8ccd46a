// Small shared pieces of UI: status badges and progress bars.
import type { RunView } from '../../api-types.js';
import { el } from './dom.js';

/** A status badge, with the pause reason when paused. */
export function statusBadge(status: RunView['status'], reason: RunView['pausedReason']): HTMLElement {
  const text = status === 'paused' && reason ? `paused · ${reason}` : status;
  return el('span', { class: `badge status-${status}`, 'data-status': status }, text);
}

/** A passing/total progress bar with the blocked share and a `12 / 40` label. */
export function progressBar(passing: number, total: number, blocked: number): HTMLElement {
  const pct = (n: number) => (total > 0 ? `${((n / total) * 100).toFixed(2)}` : '0');
  const bar = el('div', {
    class: 'bar',
    role: 'progressbar',
    'aria-valuenow': String(passing),
    'aria-valuemax': String(total),
  });
  const pass = el('span', { class: 'bar-pass' });
  const block = el('span', { class: 'bar-blocked' });
  // Widths go through the CSSOM (allowed by the CSP), not a style attribute.
  pass.style.width = `${pct(passing)}%`;
  block.style.width = `${pct(blocked)}%`;
  bar.append(pass, block);
  return el(
    'div',
    { class: 'progress' },
    bar,
    el('span', { class: 'progress-label', 'data-field': 'progress' }, `${passing} / ${total}`),
  );
}
