// The page shell every page shares: the header with the nav menu (app/nav.js, filtered by signed in or not), the
// flash message of the last action, and the page's own content.
import { html } from './html.js';
import { NAV } from './nav.js';

function visible(entry, user) {
  return entry.for === 'all' || (entry.for === 'user' ? Boolean(user) : !user);
}

function navItem(entry, ctx) {
  if (entry.method === 'post') {
    return html`<li><form method="post" action="${entry.href}"><button type="submit">${entry.label}</button></form></li>`;
  }
  const current = ctx.path === entry.href ? 'page' : false;
  return html`<li><a href="${entry.href}" ${current ? html`aria-current="page"` : ''}>${entry.label}</a></li>`;
}

export function page(ctx, title, body) {
  const items = NAV.filter((entry) => visible(entry, ctx.user)).map((entry) => navItem(entry, ctx));
  const who = ctx.user ? html`<p class="who">Signed in as ${ctx.user.name}</p>` : '';
  const flash = ctx.flash ? html`<p role="status" class="flash">${ctx.flash}</p>` : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Meal planner</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/style.css">
<script src="/static/app.js" defer></script>
</head>
<body>
<header><a class="brand" href="/">Meal planner</a><nav aria-label="Main"><ul>${items}</ul></nav>${who}</header>
<main>${flash}${body}</main>
</body>
</html>`.toString();
}
