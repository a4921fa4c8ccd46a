/**
 * The data-driven browser check format of the meal-planner example: for each feature step, the actions to perform
 * (go to a path, fill or click an element found by role and accessible name, select an option, press a key, answer
 * the next dialog, sign up / log in / log out as one of the check's own users) and what the page must show then
 * (text visible or gone, the URL's path, an element and its state, a list's item count, absolute or relative to a
 * count taken earlier). Texts may hold placeholders filled per session (see `interpolate`), because the app keeps
 * its data between sessions: every check makes its own users and tags its own data.
 */
import { z } from 'zod';

/** An element by role and accessible name, as the aria snapshot shows it (`button "Save recipe"`). */
export const Target = z.object({
  role: z.string().min(1),
  name: z.string().min(1),
});
export type Target = z.infer<typeof Target>;

/** A list by its accessible name (`<ul aria-label="Recipes">`), whose items a count or an order looks at. */
export const ListName = z.string().min(1);

/** One thing the check does. */
export const CheckAction = z.union([
  /** A path of the app (or a `{path:name}` placeholder). */
  z.strictObject({ goto: z.string().regex(/^[/{]/, 'a path starting with / or a {path:name} placeholder') }),
  z.strictObject({ fill: Target, text: z.string(), submit: z.boolean().optional() }),
  z.strictObject({ click: Target }),
  z.strictObject({ select: Target, option: z.string().min(1) }),
  z.strictObject({ press: z.string().min(1) }),
  /** How to answer the next dialog (`confirm()`); without it, dialogs are accepted. */
  z.strictObject({ dialog: z.enum(['accept', 'dismiss']) }),
  /** Signs a new user up through the sign-up page; `as` names the user within the check (e.g. "cook"). */
  z.strictObject({ signUp: z.string().min(1) }),
  z.strictObject({ logIn: z.string().min(1) }),
  z.strictObject({ logOut: z.literal(true) }),
  /** Keeps the current path (and query) under a name, for later `{path:name}` placeholders. */
  z.strictObject({ rememberPath: z.string().min(1) }),
  /** Keeps a list's item count under a name, for later relative counts. */
  z.strictObject({ rememberCount: ListName, as: z.string().min(1) }),
]);
export type CheckAction = z.infer<typeof CheckAction>;

/** A count: exactly `equals`, or `plus` more than a count remembered earlier. */
export const CountIs = z.union([
  z.strictObject({ equals: z.number().int().nonnegative() }),
  z.strictObject({ remembered: z.string().min(1), plus: z.number().int() }),
]);
export type CountIs = z.infer<typeof CountIs>;

/** One thing the page must show after the step's actions. */
export const Expectation = z.union([
  z.strictObject({ see: z.string().min(1) }),
  z.strictObject({ notSee: z.string().min(1) }),
  /** The page's path (query ignored) matches this pattern: `:name` stands for one path segment. */
  z.strictObject({ path: z.string().startsWith('/') }),
  z.strictObject({ element: Target, state: z.string().optional() }),
  z.strictObject({ noElement: Target }),
  z.strictObject({ count: ListName, is: CountIs }),
  /** The list has an item holding each `has` text, and none holding a `lacks` text. */
  z.strictObject({
    list: ListName,
    has: z.array(z.string().min(1)).default([]),
    lacks: z.array(z.string().min(1)).default([]),
  }),
  /** These texts are items of the list, in this order (other items may come between). */
  z.strictObject({ order: z.array(z.string().min(1)).min(2), in: ListName }),
  /** A dialog with this text appeared during the step's actions. */
  z.strictObject({ dialogSaid: z.string().min(1) }),
]);
export type Expectation = z.infer<typeof Expectation>;

/** What one feature step does and checks (the check has one per step, in order). */
export const CheckStep = z.strictObject({
  do: z.array(CheckAction).default([]),
  expect: z.array(Expectation).default([]),
});
export type CheckStep = z.infer<typeof CheckStep>;
/** What a catalogue author writes: `do` and `expect` may be left out. */
export type CheckStepInput = z.input<typeof CheckStep>;

/** The users a check signs up: name, email and password made from the alias and the session tag. */
export interface CheckUser {
  alias: string;
  name: string;
  email: string;
  password: string;
}

/** The user a check calls `alias` in the session tagged `tag`. */
export function checkUser(alias: string, tag: string): CheckUser {
  const name = `${alias.charAt(0).toUpperCase()}${alias.slice(1)} ${tag}`;
  return { alias, name, email: `${alias}.${tag}@example.test`, password: `pass-${alias}-${tag}` };
}

/**
 * Fills placeholders: `{tag}` the session tag, `{name:alias}` / `{email:alias}` / `{password:alias}` one of the
 * check's users, `{path:name}` a remembered path. An unknown placeholder is an error in the catalogue.
 */
export function interpolate(text: string, tag: string, paths: ReadonlyMap<string, string>): string {
  return text.replace(/\{([a-z]+)(?::([a-z0-9-]+))?\}/gi, (whole, kind: string, argument?: string) => {
    if (kind === 'tag' && argument === undefined) return tag;
    if (argument !== undefined && (kind === 'name' || kind === 'email' || kind === 'password')) {
      return checkUser(argument, tag)[kind];
    }
    if (kind === 'path' && argument !== undefined) {
      const remembered = paths.get(argument);
      if (remembered === undefined) throw new Error(`the check uses ${whole} before remembering that path`);
      return remembered;
    }
    throw new Error(`unknown placeholder ${whole} in the check`);
  });
}
