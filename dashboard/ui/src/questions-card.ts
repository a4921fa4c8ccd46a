// "Questions": what sessions asked a person (`ask_human`). Each open question has an answer box (its options, when
// the session gave some, fill it in one click); answered ones show who answered and what. Refreshed with the run;
// an open question's row is kept across refreshes so an answer being typed is not lost.
import type { Question } from '../../../handoff/questions.js';
import { api } from './api.js';
import { el, replaceChildren } from './dom.js';
import { time } from './format.js';

/** Answered questions shown (newest first). */
const ANSWERED_SHOWN = 5;

/** The card: `show` renders the run's questions (hidden when there are none). */
export interface QuestionsCard {
  element: HTMLElement;
  show(questions: readonly Question[]): void;
}

/** Creates the card; `onAnswered` runs after an answer was recorded (the page refreshes the run). */
export function createQuestionsCard(runId: string, onAnswered: () => void): QuestionsCard {
  const element = el('section', { class: 'panel questions', id: 'questions' });
  element.hidden = true;
  const openRows = new Map<string, HTMLElement>();
  return {
    element,
    show(questions) {
      element.hidden = questions.length === 0;
      const open = questions.filter((question) => question.answer === null);
      const answered = questions.filter((question) => question.answer !== null).reverse();
      for (const id of [...openRows.keys()]) {
        if (!open.some((question) => question.id === id)) openRows.delete(id);
      }
      const rows = open.map((question) => {
        const row = openRows.get(question.id) ?? openRow(runId, question, onAnswered);
        openRows.set(question.id, row);
        return row;
      });
      replaceChildren(
        element,
        el('h2', null, `Questions · ${open.length} waiting for an answer`),
        el('ul', { class: 'question-list' }, ...rows, ...answered.slice(0, ANSWERED_SHOWN).map(answeredRow)),
      );
    },
  };
}

function heading(question: Question): HTMLElement {
  return el(
    'div',
    { class: 'question-head' },
    el('strong', null, question.id),
    ` · ${question.featureId} · session ${question.seq} · asked ${time(question.askedAt)}`,
  );
}

/** An open question: its text, option buttons, the answer box and its button. */
function openRow(runId: string, question: Question, onAnswered: () => void): HTMLElement {
  const box = el('textarea', {
    class: 'answer-box',
    'aria-label': `Answer to ${question.id}`,
    'data-question': question.id,
  });
  box.rows = 2;
  const status = el('span', { class: 'answer-status', role: 'status' });
  const submit = el('button', { type: 'button', class: 'answer-button' }, 'Answer');
  submit.addEventListener('click', () => {
    const answer = box.value.trim();
    if (!answer) {
      status.textContent = 'Write an answer first.';
      return;
    }
    submit.disabled = true;
    status.textContent = 'Sending…';
    api
      .answer(runId, question.id, answer)
      .then(() => {
        status.textContent = 'Answered.';
        onAnswered();
      })
      .catch((error: Error) => {
        status.textContent = `Not answered: ${error.message}`;
        submit.disabled = false;
      });
  });
  const options = question.options.map((option) => {
    const button = el('button', { type: 'button', class: 'answer-option' }, option);
    button.addEventListener('click', () => {
      box.value = option;
    });
    return button;
  });
  return el(
    'li',
    { class: 'question open', 'data-question': question.id },
    heading(question),
    el('p', { class: 'question-text' }, question.question),
    options.length ? el('div', { class: 'answer-options' }, ...options) : null,
    box,
    el('div', { class: 'answer-actions' }, submit, status),
  );
}

function answeredRow(question: Question): HTMLElement {
  const who =
    question.answeredBy === 'timeout' ? 'nobody answered in time' : `from the ${question.answeredBy}`;
  return el(
    'li',
    { class: 'question answered', 'data-question': question.id },
    heading(question),
    el('p', { class: 'question-text' }, question.question),
    el('p', { class: 'question-answer' }, `Answer (${who}): ${question.answer ?? ''}`),
  );
}
