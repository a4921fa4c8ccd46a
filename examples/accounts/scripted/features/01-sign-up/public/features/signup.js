// F-001: the sign-up page (/signup) and the home page's "Sign up" link.
import { api, el, form, page, signedOut } from '../core.js';

page('/signup', (content) => {
  content.append(
    el('h2', { text: 'Create an account' }),
    form(
      'Sign up',
      [
        { name: 'username', label: 'Username' },
        { name: 'password', label: 'Password', type: 'password' },
      ],
      'Create account',
      async (values) => {
        await api('POST', '/api/signup', values);
        location.assign('/');
      },
    ),
  );
});

signedOut((content) => {
  content.append(el('p', {}, el('a', { href: '/signup', text: 'Sign up' })));
});
