// Entry of the dashboard UI: a small router over the History API (no framework).
import { replaceChildren } from './dom.js';
import { renderNewRunPage } from './new-run-page.js';
import { renderRunPage } from './run-page.js';
import { renderRunsPage } from './runs-page.js';
import './styles.css';

let dispose: (() => void) | undefined;

function route(): void {
  dispose?.();
  const app = document.getElementById('app')!;
  replaceChildren(app);
  const match = /^\/runs\/([A-Za-z0-9_-]+)\/?$/.exec(location.pathname);
  if (location.pathname === '/new') dispose = renderNewRunPage(app, navigate);
  else dispose = match ? renderRunPage(app, decodeURIComponent(match[1]!)) : renderRunsPage(app);
}

function navigate(path: string): void {
  history.pushState(null, '', path);
  route();
}

// Same-origin links navigate without a reload.
document.addEventListener('click', (event) => {
  const link = (event.target as Element | null)?.closest?.('a[data-nav]');
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey) return;
  event.preventDefault();
  navigate(link.getAttribute('href') ?? '/');
});
window.addEventListener('popstate', route);
route();
