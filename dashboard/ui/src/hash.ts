// The run page's own addresses, kept in the URL fragment so they survive a reload and can be shared:
// `#feature=F-003` opens a feature's panel, `#session=12` a session's transcript (both may be set).

/** What the fragment selects. */
export interface HashState {
  feature: string | null;
  session: number | null;
}

/** Parses the current fragment. */
export function readHash(hash: string = location.hash): HashState {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const session = Number(params.get('session'));
  return {
    feature: params.get('feature') || null,
    session: params.has('session') && Number.isInteger(session) && session > 0 ? session : null,
  };
}

/** The fragment for `state` (`''` when nothing is selected). */
export function hashFor(state: HashState): string {
  const params = new URLSearchParams();
  if (state.feature) params.set('feature', state.feature);
  if (state.session !== null) params.set('session', String(state.session));
  const text = params.toString();
  return text ? `#${text}` : '';
}

/** Changes part of the selection as a new history entry (Back undoes it), then notifies `hashchange` listeners. */
export function updateHash(change: Partial<HashState>): void {
  const next = hashFor({ ...readHash(), ...change });
  if (next === location.hash || (next === '' && location.hash === '')) return;
  history.pushState(null, '', `${location.pathname}${location.search}${next}`);
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}

/** A same-page link to `change` applied to the current selection, which updates it on click without a reload. */
export function hashLink(
  change: Partial<HashState>,
  text: string,
  attrs: Record<string, string> = {},
): HTMLAnchorElement {
  const link = document.createElement('a');
  link.href = hashFor({ feature: null, session: null, ...change });
  for (const [name, value] of Object.entries(attrs)) link.setAttribute(name, value);
  link.textContent = text;
  link.addEventListener('click', (event) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    updateHash(change);
  });
  return link;
}
