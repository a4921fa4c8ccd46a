// The todos, in server memory. Modules that persist them subscribe with onChange.

/** @type {{ id: number, title: string, completed: boolean }[]} */
export const todos = [];
const listeners = [];
let nextId = 1;

/** Adds an active todo and returns it. */
export function createTodo(title) {
  const todo = { id: nextId++, title, completed: false };
  todos.push(todo);
  changed();
  return todo;
}

/** The todo with this id, or undefined. */
export function findTodo(id) {
  return todos.find((todo) => todo.id === id);
}

/** Removes every todo the predicate accepts; returns how many went. */
export function removeWhere(predicate) {
  const before = todos.length;
  for (let index = todos.length - 1; index >= 0; index -= 1) {
    if (predicate(todos[index])) todos.splice(index, 1);
  }
  changed();
  return before - todos.length;
}

/** Replaces the whole list (used when loading saved todos). */
export function replaceAll(loaded) {
  todos.splice(0, todos.length, ...loaded);
  nextId = Math.max(0, ...todos.map((todo) => todo.id)) + 1;
}

/** Tells the listeners that the list changed. */
export function changed() {
  for (const listener of listeners) listener(todos);
}

/** Calls `listener(todos)` after every change. */
export function onChange(listener) {
  listeners.push(listener);
}
