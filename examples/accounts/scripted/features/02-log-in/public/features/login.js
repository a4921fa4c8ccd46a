// F-002: the log-in page (/login), the home page's "Log in" link and the "Log out" button.
import { api, el, form, page, render, signedIn, signedOut, state } from '../core.js';

page('/login', (content) => {
  content.append(
    el('h2', { text: 'Log in' }),
    form(
      'Log in',
      [
        { name: 'username', label: 'Username' },
        { name: 'password', label: 'Password', type: 'password' },
      ],
      'Log in',
      async (values) => {
        await api('POST', '/api/login', values);
        location.assign('/');
      },
    ),
  );
});

signedOut((content) => {
  content.append(el('p', {}, el('a', { href: '/login', text: 'Log in' })));
});

signedIn((content) => {
  const button = el('button', { type: 'button', text: 'Log out' });
  button.addEventListener('click', async () => {
    await api('POST', '/api/logout');
    state.user = null;
    await render();
  });
  content.append(el('p', {}, button));
});
