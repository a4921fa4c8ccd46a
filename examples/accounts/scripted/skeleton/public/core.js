// The client core: who is signed in, API calls, and drawing the page. Feature modules plug in with:
//   page(path, draw)   a page of its own (e.g. /signup): draw(content) fills it
//   signedOut(draw)    adds to the home page of a visitor who is not signed in
//   signedIn(draw)     adds to the home page of a signed-in person (draw may be async)
// Every text goes in as text (textContent), never as HTML.

export const state = { user: null };
const pages = new Map();
const hooks = { signedOut: [], signedIn: [] };

/** Registers a page of its own for a path. */
export function page(path, draw) {
  pages.set(path, draw);
}

/** Adds to the home page of a visitor who is not signed in. */
export function signedOut(draw) {
  hooks.signedOut.push(draw);
}

/** Adds to the home page of a signed-in person. */
export function signedIn(draw) {
  hooks.signedIn.push(draw);
}

/** Calls the JSON API; throws with the server's message on an error status. */
export async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error ?? `${method} ${path} failed with ${response.status}`);
  return data;
}

/** An element with attributes (`text` is its text) and children. */
export function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === 'text') element.textContent = value;
    else element.setAttribute(name, value);
  }
  element.append(...children);
  return element;
}

/**
 * A form with labelled inputs, a submit button and an alert for refusals. `submit(values)` runs on submit;
 * what it throws is shown in the alert.
 */
export function form(name, fields, button, submit) {
  const alert = el('p', { role: 'alert' });
  const inputs = fields.map((field) =>
    el('input', {
      id: `${name}-${field.name}`,
      name: field.name,
      type: field.type ?? 'text',
      autocomplete: 'off',
    }),
  );
  const rows = fields.map((field, index) =>
    el('div', {}, el('label', { for: inputs[index].id, text: field.label }), inputs[index]),
  );
  const element = el(
    'form',
    { 'aria-label': name },
    ...rows,
    el('button', { type: 'submit', text: button }),
    alert,
  );
  element.addEventListener('submit', async (event) => {
    event.preventDefault();
    alert.textContent = '';
    try {
      await submit(Object.fromEntries(inputs.map((input) => [input.name, input.value])));
    } catch (error) {
      alert.textContent = error.message;
    }
  });
  return element;
}

/** Draws the page for the current path: a feature's own page, or home. */
export async function render() {
  const content = document.getElementById('content');
  content.replaceChildren();
  const own = pages.get(location.pathname);
  if (own) return own(content);
  if (state.user) {
    content.append(el('p', { text: `Signed in as ${state.user}` }));
    for (const draw of hooks.signedIn) await draw(content);
  } else {
    content.append(el('p', { text: 'You are not signed in.' }));
    for (const draw of hooks.signedOut) await draw(content);
  }
}

/** Learns who is signed in, then draws the page. */
export async function start() {
  state.user = (await api('GET', '/api/me')).username ?? null;
  await render();
}
