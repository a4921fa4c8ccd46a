// The client core: state, API calls and rendering. Feature modules plug in with on(hook, fn):
//   start(): before the first render (may be async)   item(li, todo, titleElement): decorate one item
//   visible(todos): which todos the list shows          rendered(): after every render

export const state = { todos: [], filter: 'all' };
const hooks = { start: [], item: [], visible: [], rendered: [] };

/** Registers a hook function. */
export function on(hook, fn) {
  if (!hooks[hook]) throw new Error(`unknown hook "${hook}"`);
  hooks[hook].push(fn);
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

function renderItem(todo) {
  const item = document.createElement('li');
  item.className = todo.completed ? 'todo completed' : 'todo';
  const title = document.createElement('span');
  title.className = 'title';
  title.textContent = todo.title;
  item.append(title);
  for (const decorate of hooks.item) decorate(item, todo, title);
  return item;
}

/** Redraws the list and everything that depends on it. */
export function render() {
  let shown = state.todos;
  for (const choose of hooks.visible) shown = choose(shown);
  document.getElementById('todo-list').replaceChildren(...shown.map(renderItem));
  for (const after of hooks.rendered) after();
}

/** Runs the start hooks, then the first render. */
export async function start() {
  for (const fn of hooks.start) await fn();
  render();
}
