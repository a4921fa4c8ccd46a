// The nav menu: one line per page, in menu order. `for`: 'all' (everyone), 'guest' (signed out), 'user' (signed
// in). `method: 'post'` makes the entry a button in a form (actions such as logging out).
export const NAV = [
  { href: '/', label: 'Home', for: 'all' },
  // -- nav: add one line per page above this line --
];
