// Full-size view of evidence screenshots: a modal dialog (Esc or the close button closes it, focus returns to the
// thumbnail), with the previous/next screenshot of the same verdict on the arrow keys.
import type { EvidenceView } from '../../api-types.js';
import { el, replaceChildren } from './dom.js';

/** Thumbnail buttons for `images`; each opens the lightbox at its image. */
export function thumbnails(images: readonly EvidenceView[]): HTMLElement {
  return el(
    'div',
    { class: 'shots' },
    ...images.map((image, index) => {
      const thumb = el('img', { class: 'shot' });
      thumb.alt = '';
      thumb.loading = 'lazy';
      thumb.src = image.url;
      const button = el(
        'button',
        { type: 'button', class: 'shot-button', title: `${image.name} (click to enlarge)` },
        thumb,
      );
      button.setAttribute('aria-label', `Enlarge screenshot ${image.name}`);
      button.addEventListener('click', () => openLightbox(images, index, button));
      return button;
    }),
  );
}

/** Opens `images[index]` at full size in a modal dialog; `opener` gets the focus back on close. */
export function openLightbox(images: readonly EvidenceView[], index: number, opener?: HTMLElement): void {
  let at = index;
  const figure = el('figure', { class: 'lightbox-figure' });
  const close = el('button', { type: 'button', class: 'small-button', id: 'lightbox-close' }, 'close');
  const dialog = el('dialog', { class: 'lightbox', id: 'lightbox' }, figure, close);
  dialog.setAttribute('aria-label', 'Screenshot');
  const show = () => {
    const image = images[at]!;
    const full = el('img', { class: 'lightbox-image' });
    full.alt = image.name;
    full.src = image.url;
    const original = el('a', { href: image.url, class: 'small' }, 'open the original');
    original.target = '_blank';
    original.rel = 'noopener';
    replaceChildren(
      figure,
      full,
      el(
        'figcaption',
        { class: 'muted small' },
        images.length > 1
          ? `${image.name} (${at + 1} of ${images.length}, ← → to browse) · `
          : `${image.name} · `,
        original,
      ),
    );
  };
  dialog.addEventListener('keydown', (event) => {
    if (images.length < 2 || (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft')) return;
    at = (at + (event.key === 'ArrowRight' ? 1 : images.length - 1)) % images.length;
    show();
  });
  // A click on the backdrop (outside the figure) closes it too.
  dialog.addEventListener('click', (event) => {
    if (event.target === dialog) dialog.close();
  });
  close.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => {
    dialog.remove();
    opener?.focus();
  });
  show();
  document.body.appendChild(dialog);
  dialog.showModal();
  close.focus();
}
