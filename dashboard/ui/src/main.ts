// Entry of the dashboard UI: a two-page router over the History API (no framework).
import { replaceChildren } from './dom.js';
import { renderRunPage } from './run-page.js';
import { renderRunsPage } from './runs-page.js';
import './styles.css';

let dispose: (() => void) | undefined;

function route(): void {
  dispose?.();
  const app = document.getElementById('app')!;
  replaceChildren(app);
  const match = /^\/runs\/([A-Za-z0-9_-]+)\/?$/.exec(location.pathname);
  dispose = match ? renderRunPage(app, decodeURIComponent(match[1]!)) : renderRunsPage(app);
}

// Same-origin links navigate without a reload.
document.addEventListener('click', (event) => {
  const link = (event.target as Element | null)?.closest?.('a[data-nav]');
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey) return;
  event.preventDefault();
  history.pushState(null, '', link.getAttribute('href'));
  route();
});
window.addEventListener('popstate', route);
route();
