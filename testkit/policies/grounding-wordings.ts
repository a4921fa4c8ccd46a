/**
 * How honest models reword the todo example's feature steps in a verdict: hand-written rephrasings ("the X
 * field", "the Y button", past tense, other verbs) and terse forms, one per step of each catalogue feature, plus
 * the mechanical rewordings (past tense, a leading "I", articles dropped, numbering). Written as models write
 * them, not to suit the harness's matcher: they are the data its thresholds are chosen from.
 */
import type { TodoCheckKey } from './todo-features.js';

/** Per catalogue feature, its steps reworded: `[rephrased, terse]` for each step, in order. */
export const HAND_WORDINGS: Record<TodoCheckKey, readonly (readonly [string, string])[]> = {
  add: [
    ['Opened the todo app in the browser', 'Open app'],
    ['Typed a todo in the New todo field and pressed Enter', 'Type todo + Enter'],
    ['The new todo is listed and the New todo field is cleared', 'Todo listed, box empty'],
    ['Typed a second todo in the New todo field and clicked the Add button', 'Type 2nd todo, click Add'],
    ['Both todos are listed in the order I added them', 'Both listed, in order'],
  ],
  persist: [
    ['Opened the app and added a todo with a unique title', 'Open app, add unique todo'],
    ['Refreshed the browser page', 'Reload'],
    ['After the refresh the todo is still listed', 'Still listed after reload'],
  ],
  complete: [
    ['Opened the app and created a todo with a unique title', 'Open app, add todo'],
    ['Clicked the checkbox next to the todo', 'Click checkbox'],
    ["The todo's checkbox is now ticked", 'Checked'],
    ['Refreshed the page', 'Reload'],
    ['After the refresh the checkbox is still ticked', 'Still checked'],
    ['Clicked the same checkbox once more', 'Click it again'],
    ['The checkbox is cleared and the todo is active again', 'Unchecked'],
  ],
  delete: [
    ['Opened the app and created two todos with unique titles', 'Open app, add 2 todos'],
    ['Pressed the Delete button on the first todo', 'Delete first'],
    ['The first todo disappeared from the list, the second is still shown', 'First gone, second stays'],
    ['Refreshed the page', 'Reload'],
    ['After the refresh the deleted todo has not come back', 'Still gone'],
  ],
  remaining: [
    ['Opened the app and read the count N from the status line', 'Open app, note N'],
    ['Created two todos with unique titles', 'Add 2 todos'],
    ['The status line shows the count went up by two', 'Status: N+2 left'],
    ['Ticked the checkbox of the first new todo', 'Tick one'],
    ['The status line shows one fewer item left', 'Status: N+1 left'],
  ],
  filter: [
    ["Opened the app, created two todos and ticked the second one's checkbox", 'Open app, add 2, tick 2nd'],
    ['Clicked the Active filter', 'Click Active'],
    ['Only the first todo is listed and the Active button is pressed', 'Only 1st shown, Active pressed'],
    ['Clicked the Completed filter', 'Click Completed'],
    ['Only the second todo is listed', 'Only 2nd shown'],
    ['Clicked the All filter', 'Click All'],
    ['Both todos are listed again', 'Both shown'],
  ],
  edit: [
    ['Opened the app and created a todo with a unique title', 'Open app, add todo'],
    ['Clicked the Edit button of the todo', 'Click Edit'],
    ["An edit field with the todo's text showed up", 'Edit box shown'],
    ['Replaced the text in the edit field with a new title and pressed Enter', 'New text + Enter'],
    ['The list has the new title, not the old one', 'New text listed'],
    ['Refreshed the page', 'Reload'],
    ['After the refresh the new title is still listed', 'Still new text'],
  ],
  clearCompleted: [
    ['Opened the app, created two todos and ticked the first one', 'Open app, add 2, tick 1st'],
    ['Pressed the Clear completed button', 'Clear completed'],
    ['The completed todo was removed, the active one is still listed', 'Done one gone, active stays'],
    ['Refreshed the page', 'Reload'],
    [
      'After the refresh the completed todo is still gone and the active one remains',
      'Still gone, active still there',
    ],
  ],
};

/** Verbs and verb-like words of the todo steps, present → past. */
const PAST: Record<string, string> = {
  open: 'opened',
  type: 'typed',
  press: 'pressed',
  click: 'clicked',
  reload: 'reloaded',
  tick: 'ticked',
  add: 'added',
  replace: 'replaced',
  note: 'noted',
  shows: 'showed',
  says: 'said',
  is: 'was',
  are: 'were',
  appears: 'appeared',
};

/** Applies `change` to the words of `text` outside double quotes (quoted labels stay as written). */
function outsideQuotes(text: string, change: (word: string) => string): string {
  return text
    .split(/("[^"]*")/)
    .map((part, index) => (index % 2 === 1 ? part : part.replace(/\p{L}+/gu, change)))
    .join('');
}

function keepCase(original: string, replacement: string): string {
  return /^\p{Lu}/u.test(original) ? replacement[0]?.toUpperCase() + replacement.slice(1) : replacement;
}

/** "Type X and press Enter" → "Typed X and pressed Enter"; "The list shows" → "The list showed". */
export function pastTense(step: string): string {
  return outsideQuotes(step, (word) => {
    const past = PAST[word.toLowerCase()];
    return past ? keepCase(word, past) : word;
  });
}

function lowerFirst(text: string): string {
  return text.length ? `${text[0]?.toLowerCase()}${text.slice(1)}` : text;
}

/** Whether a todo step describes what to look at rather than what to do (it starts with an article or "That"). */
export function isOutcomeStep(step: string): boolean {
  return /^(the|a|an|that|its)\b/i.test(step.trim());
}

/** "I opened the app", "I saw that the list shows …": the first person, as chatty models write. */
export function firstPerson(step: string): string {
  return isOutcomeStep(step) ? `I saw that ${lowerFirst(step)}` : `I ${lowerFirst(pastTense(step))}`;
}

/** "Open app", "Click checkbox again": articles dropped, as note-taking models write. */
export function withoutArticles(step: string): string {
  return outsideQuotes(step, (word) => (/^(the|a|an)$/i.test(word) ? '' : word))
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\p{Ll}/u, (first) => first.toUpperCase());
}
