// "Shopping list": items to buy, added by hand (or by other features from recipes and the plan). Buttons beside
// each item (ITEM_ACTIONS) and tools under the list (SHOPPING_TOOLS) come from other features, one line each.
import { textField } from '../forms.js';
import { html } from '../html.js';

// -- imports: add above this line --

/** Buttons beside an item: each gets (item, ctx) and returns markup, or nothing. */
const ITEM_ACTIONS = [
  // -- shopping item actions: add above this line --
];

/** Forms under the list: each gets (items, ctx) and returns markup, or nothing. */
const SHOPPING_TOOLS = [
  // -- shopping tools: add above this line --
];

export const access = 'user';

const MAX_LENGTH = 200;

/** Adds items for a user (text trimmed, empty ones skipped); returns how many were added. */
export function addShoppingItems(db, userId, texts) {
  const items = texts.map((text) => String(text).trim()).filter(Boolean);
  const now = new Date().toISOString();
  db.transaction(() => {
    for (const text of items) {
      db.run('INSERT INTO shopping_items (user_id, text, bought, created_at) VALUES (?, ?, 0, ?)', [
        userId,
        text.slice(0, MAX_LENGTH),
        now,
      ]);
    }
  });
  return items.length;
}

function item(entry, ctx) {
  const text = entry.bought ? html`<span class="done">${entry.text}</span> (bought)` : entry.text;
  return html`<li>${text} ${ITEM_ACTIONS.map((action) => action(entry, ctx))}</li>`;
}

export function GET(ctx) {
  const items = ctx.db.all('SELECT * FROM shopping_items WHERE user_id = ? ORDER BY bought, id', [
    ctx.user.id,
  ]);
  const list = items.length
    ? html`<ul aria-label="Shopping list">${items.map((entry) => item(entry, ctx))}</ul>`
    : html`<p>Your shopping list is empty.</p>`;
  const tools = SHOPPING_TOOLS.map((tool) => tool(items, ctx));
  const body = html`<h1>Shopping list</h1>
<form method="post" action="/shopping" aria-label="Add an item">${textField('Item', 'text', '')}<p><button type="submit">Add item</button></p></form>
${list}${tools}`;
  ctx.render('Shopping list', body);
}

export function POST(ctx) {
  const text = (ctx.form.get('text') ?? '').trim();
  if (!text) return ctx.redirect('/shopping', 'Type an item first.');
  addShoppingItems(ctx.db, ctx.user.id, [text]);
  ctx.redirect('/shopping', `Added ${text}.`);
}
