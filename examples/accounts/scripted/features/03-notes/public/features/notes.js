// F-003: the signed-in home page lists "Your notes" and adds one ("New note", "Add note").
import { api, el, form, signedIn } from '../core.js';

signedIn(async (content) => {
  const list = el('ul', { 'aria-label': 'Your notes' });
  const show = (items) => list.replaceChildren(...items.map((note) => el('li', { text: note.text })));
  show(await api('GET', '/api/notes'));
  const adding = form('Add a note', [{ name: 'text', label: 'New note' }], 'Add note', async (values) => {
    await api('POST', '/api/notes', values);
    show(await api('GET', '/api/notes'));
    adding.reset();
  });
  content.append(el('h2', { text: 'Your notes' }), list, adding);
});
