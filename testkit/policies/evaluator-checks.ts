/**
 * The scripted evaluator's browser checks, one per feature of the todo example. Each performs the
 * feature's steps literally and decides from the page: the list's items, checkbox states, the status
 * line. Todo texts carry the session tag so checks do not depend on a clean slate (the app keeps its
 * data between sessions); counts are checked relative to what the page showed first.
 */
import { expect, type PageDriver, StepFailed, type StepRecorder } from './evaluator-page.js';
import type { TodoCheckKey } from './todo-features.js';

/** One feature's check: performs the steps through `page`, recording each in `steps`. */
export type BrowserCheck = (page: PageDriver, steps: StepRecorder, tag: string) => void;

const NEW_TODO = 'New todo';

/** The status text the spec asks for, e.g. "1 item left", "3 items left". */
export function itemsLeft(count: number): string {
  return `${count} ${count === 1 ? 'item' : 'items'} left`;
}

function addTodos(page: PageDriver, texts: string[]): void {
  const ref = page.ref('textbox', NEW_TODO);
  page.typeAll(texts.map((text) => ({ ref, text, submit: true })));
}

/** How long a check waits for a todo it expects to be listed but does not see yet (a save still answering), in ms. */
const LISTED_WAIT_MS = 5_000;

function expectListed(page: PageDriver, texts: string[], absent: string[] = []): string {
  // As a careful person would: a todo not listed yet may still be on its way (a slow save); look again once.
  // The same for a todo that should be gone (a filter or a delete still re-rendering).
  const missing = texts.find((text) => !page.items().includes(text));
  if (missing !== undefined) lookOnce(() => page.waitFor(missing, LISTED_WAIT_MS));
  const lingering = absent.find((text) => page.items().includes(text));
  if (lingering !== undefined) lookOnce(() => page.waitGone(lingering, LISTED_WAIT_MS));
  const items = page.items();
  for (const text of texts) {
    expect(items.includes(text), `"${text}" is not in the list. The list shows: ${quoteList(items)}.`);
  }
  for (const text of absent) {
    expect(!items.includes(text), `"${text}" is still in the list. The list shows: ${quoteList(items)}.`);
  }
  const parts: string[] = [];
  if (texts.length) parts.push(`The list shows ${quoted(texts)}`);
  // Quotes are for text on the page (the harness looks for them in what the browser showed); absent text is not quoted.
  if (absent.length)
    parts.push(`${texts.length ? 'but not' : 'The list does not show'} ${absent.join(' or ')}`);
  return `${parts.join(' ')} (${items.length} item(s) in all).`;
}

/** Runs one extra look; a look that times out is not the verdict (the page as it then shows is). */
function lookOnce(look: () => void): void {
  try {
    look();
  } catch (error) {
    if (!(error instanceof StepFailed)) throw error;
  }
}

function quoted(texts: string[]): string {
  return texts.map((text) => `"${text}"`).join(' and ');
}

function quoteList(items: string[]): string {
  if (items.length === 0) return 'no items';
  const tail = items.slice(-6).map((item) => `"${item}"`);
  return `${items.length} item(s)${items.length > 6 ? ', the last six' : ''}: ${tail.join(', ')}`;
}

function checkbox(page: PageDriver, text: string): { ref: string; checked: boolean } {
  const node = page.node('checkbox', `Toggle ${text}`);
  return { ref: page.ref('checkbox', `Toggle ${text}`), checked: node.states.includes('checked') };
}

function openAndAdd(page: PageDriver, texts: string[]): string {
  page.open();
  addTodos(page, texts);
  return `Opened ${page.url} and added ${quoted(texts)}. ${expectListed(page, texts)}`;
}

function tick(page: PageDriver, text: string): string {
  page.click(checkbox(page, text).ref, `the checkbox "Toggle ${text}"`);
  page.lookAgainUnless(() => checkbox(page, text).checked);
  expect(
    checkbox(page, text).checked,
    `Clicked "Toggle ${text}", but the checkbox is not checked afterwards.`,
  );
  return `Ticked "Toggle ${text}"; it is checked.`;
}

function status(page: PageDriver): string {
  return page.textOf('status').trim();
}

/** Gives a status line that does not say `expected` yet one bounded wait for it (a count still re-rendering). */
function waitForStatus(page: PageDriver, expected: string): void {
  if (status(page) !== expected) lookOnce(() => page.waitFor(expected, LISTED_WAIT_MS));
}

const add: BrowserCheck = (page, steps, tag) => {
  const first = `Buy milk ${tag}`;
  const second = `Call the plumber ${tag}`;
  steps.run(0, () => {
    page.open();
    page.ref('textbox', NEW_TODO);
    page.ref('button', 'Add');
    return `Opened ${page.url}: the page shows the "New todo" box and the "Add" button.`;
  });
  steps.run(1, () => {
    addTodos(page, [first]);
    return `Typed "${first}" into "New todo" and pressed Enter.`;
  });
  steps.run(2, () => {
    const listed = expectListed(page, [first]);
    const value = page.node('textbox', NEW_TODO).text;
    expect(!value, `${listed} But the "New todo" box still holds "${value}".`);
    return `${listed} The "New todo" box is empty.`;
  });
  steps.run(3, () => {
    page.typeAll([{ ref: page.ref('textbox', NEW_TODO), text: second, submit: false }]);
    page.click(page.ref('button', 'Add'), 'the "Add" button');
    return `Typed "${second}" and clicked "Add".`;
  });
  steps.run(4, () => {
    const listed = expectListed(page, [first, second]);
    const items = page.items();
    expect(
      items.lastIndexOf(first) < items.lastIndexOf(second),
      `Both are listed, but "${second}" comes before "${first}".`,
    );
    return `${listed} "${first}" comes before "${second}".`;
  });
};

const persist: BrowserCheck = (page, steps, tag) => {
  const text = `Water the plants ${tag}`;
  steps.run(0, () => openAndAdd(page, [text]));
  steps.run(1, () => {
    page.open();
    return `Reloaded "${page.url}".`;
  });
  steps.run(2, () => `After the reload: ${expectListed(page, [text])}`);
};

const complete: BrowserCheck = (page, steps, tag) => {
  const text = `Pay the rent ${tag}`;
  steps.run(0, () => openAndAdd(page, [text]));
  steps.run(1, () => {
    page.click(checkbox(page, text).ref, `the checkbox "Toggle ${text}"`);
    return `Clicked the checkbox "Toggle ${text}".`;
  });
  steps.run(2, () => {
    page.lookAgainUnless(() => checkbox(page, text).checked);
    expect(checkbox(page, text).checked, `The checkbox "Toggle ${text}" is not checked after the click.`);
    return `The checkbox "Toggle ${text}" is checked.`;
  });
  steps.run(3, () => {
    page.open();
    return `Reloaded "${page.url}".`;
  });
  steps.run(4, () => {
    expect(checkbox(page, text).checked, `After the reload the checkbox "Toggle ${text}" is not checked.`);
    return `After the reload the checkbox "Toggle ${text}" is still checked.`;
  });
  steps.run(5, () => {
    page.click(checkbox(page, text).ref, `the checkbox "Toggle ${text}"`);
    return `Clicked "Toggle ${text}" again.`;
  });
  steps.run(6, () => {
    page.lookAgainUnless(() => !checkbox(page, text).checked);
    expect(
      !checkbox(page, text).checked,
      `The checkbox "Toggle ${text}" is still checked after the second click.`,
    );
    return `The checkbox "Toggle ${text}" is unchecked.`;
  });
};

const remove: BrowserCheck = (page, steps, tag) => {
  const doomed = `Old newspaper ${tag}`;
  const kept = `Library book ${tag}`;
  steps.run(0, () => openAndAdd(page, [doomed, kept]));
  steps.run(1, () => {
    page.click(page.ref('button', `Delete ${doomed}`), `the button "Delete ${doomed}"`);
    return `Clicked "Delete ${doomed}".`;
  });
  steps.run(2, () => expectListed(page, [kept], [doomed]));
  steps.run(3, () => {
    page.open();
    return `Reloaded "${page.url}".`;
  });
  steps.run(4, () => `After the reload: ${expectListed(page, [kept], [doomed])}`);
};

const remaining: BrowserCheck = (page, steps, tag) => {
  const first = `Book dentist ${tag}`;
  const second = `Renew passport ${tag}`;
  let before = 0;
  steps.run(0, () => {
    page.open();
    const text = status(page);
    const match = /^(\d+) items? left$/.exec(text);
    expect(match !== null, `The status line says "${text}", not "N items left".`);
    before = Number(match?.[1]);
    return `Opened ${page.url}; the status line says "${text}", so N = ${before}.`;
  });
  steps.run(1, () => {
    addTodos(page, [first, second]);
    return `Added "${first}" and "${second}". ${expectListed(page, [first, second])}`;
  });
  steps.run(2, () => {
    waitForStatus(page, itemsLeft(before + 2));
    const text = status(page);
    expect(
      text === itemsLeft(before + 2),
      `The status line says "${text}"; expected "${itemsLeft(before + 2)}".`,
    );
    return `The status line says "${text}".`;
  });
  steps.run(3, () => tick(page, first));
  steps.run(4, () => {
    waitForStatus(page, itemsLeft(before + 1));
    const text = status(page);
    expect(
      text === itemsLeft(before + 1),
      `After ticking "${first}" the status line still says "${text}"; expected "${itemsLeft(before + 1)}" (completed todos must not be counted).`,
    );
    return `After ticking "${first}" the status line says "${text}".`;
  });
};

const filter: BrowserCheck = (page, steps, tag) => {
  const active = `Fix the bike ${tag}`;
  const done = `Send the invoice ${tag}`;
  steps.run(0, () => `${openAndAdd(page, [active, done])} ${tick(page, done)}`);
  steps.run(1, () => {
    page.click(page.ref('button', 'Active'), 'the "Active" filter');
    return 'Clicked "Active".';
  });
  steps.run(2, () => {
    const listed = expectListed(page, [active], [done]);
    page.lookAgainUnless(() => page.node('button', 'Active').states.includes('pressed'));
    expect(
      page.node('button', 'Active').states.includes('pressed'),
      `${listed} But "Active" is not pressed.`,
    );
    return `${listed} "Active" is pressed.`;
  });
  steps.run(3, () => {
    page.click(page.ref('button', 'Completed'), 'the "Completed" filter');
    return 'Clicked "Completed".';
  });
  steps.run(4, () => expectListed(page, [done], [active]));
  steps.run(5, () => {
    page.click(page.ref('button', 'All'), 'the "All" filter');
    return 'Clicked "All".';
  });
  steps.run(6, () => expectListed(page, [active, done]));
};

const edit: BrowserCheck = (page, steps, tag) => {
  const before = `Clean the garage ${tag}`;
  const after = `Clean the garage and the shed ${tag}`;
  steps.run(0, () => openAndAdd(page, [before]));
  steps.run(1, () => {
    page.click(page.ref('button', `Edit ${before}`), `the button "Edit ${before}"`);
    return `Clicked "Edit ${before}".`;
  });
  steps.run(2, () => {
    const box = page.node('textbox', `New text for ${before}`);
    expect(
      box.text === before,
      `An edit box appeared, but it holds "${box.text ?? ''}" instead of "${before}".`,
    );
    return `An edit box "New text for ${before}" appeared, holding "${before}".`;
  });
  steps.run(3, () => {
    page.typeAll([{ ref: page.ref('textbox', `New text for ${before}`), text: after, submit: true }]);
    return `Replaced the text with "${after}" and pressed Enter.`;
  });
  steps.run(4, () => expectListed(page, [after], [before]));
  steps.run(5, () => {
    page.open();
    return `Reloaded "${page.url}".`;
  });
  steps.run(6, () => `After the reload: ${expectListed(page, [after], [before])}`);
};

const clearCompleted: BrowserCheck = (page, steps, tag) => {
  const done = `Return the parcel ${tag}`;
  const active = `Plan the trip ${tag}`;
  steps.run(0, () => `${openAndAdd(page, [done, active])} ${tick(page, done)}`);
  steps.run(1, () => {
    page.click(page.ref('button', 'Clear completed'), 'the "Clear completed" button');
    return 'Clicked "Clear completed".';
  });
  steps.run(2, () => expectListed(page, [active], [done]));
  steps.run(3, () => {
    page.open();
    return `Reloaded "${page.url}".`;
  });
  steps.run(4, () => `After the reload: ${expectListed(page, [active], [done])}`);
};

/** The check of each catalogue feature. */
export const BROWSER_CHECKS: Record<TodoCheckKey, BrowserCheck> = {
  add,
  persist,
  complete,
  delete: remove,
  remaining,
  filter,
  edit,
  clearCompleted,
};
