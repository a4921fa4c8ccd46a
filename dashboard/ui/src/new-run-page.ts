// The new-run page: the run's settings (checked as they change) → an idea → the planner's questions → the spec,
// editable → start a run → its page.
// The planner's questions and spec are model output: they only ever become text nodes or a textarea's value.
import type { PlanningInfoResponse, PlanView, RunChoice } from '../../api-types.js';
import { ApiError, call } from './api.js';
import { el, replaceChildren } from './dom.js';
import { money } from './format.js';
import { type ChoiceForm, createChoiceForm } from './run-choice.js';
import './new-run.css';

/** How long one `GET /api/plans/:id` may wait for a change (the server caps it too). */
const WAIT_MS = 15_000;

const plans = {
  info: () => call<PlanningInfoResponse>('/api/plans'),
  create: (prompt: string, choice: RunChoice | undefined) => post('/api/plans', { prompt, choice }),
  get: (id: string, after: number) =>
    call<PlanView>(`/api/plans/${encodeURIComponent(id)}?after=${after}&wait=${WAIT_MS}`),
  answer: (id: string, answers: string[]) =>
    post(`/api/plans/${encodeURIComponent(id)}/answers`, { answers }),
  start: (id: string, spec: string) => post(`/api/plans/${encodeURIComponent(id)}/start`, { spec }),
  discard: (id: string) =>
    call<{ ok: true }>(`/api/plans/${encodeURIComponent(id)}/discard`, { method: 'POST' }),
};

function post(path: string, body: unknown): Promise<PlanView> {
  return call<PlanView>(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** The new-run page's fixed parts. */
interface NewRunElements {
  status: HTMLElement;
  error: HTMLElement;
  idea: HTMLTextAreaElement;
  planButton: HTMLButtonElement;
  settingsSlot: HTMLElement;
  ideaForm: HTMLElement;
  stage: HTMLElement;
}

/** Builds the page's fixed parts and puts them into `root`. */
function renderNewRunElements(root: HTMLElement): NewRunElements {
  const status = el('p', { class: 'muted', role: 'status', id: 'plan-status' });
  const error = el('p', { class: 'error', role: 'alert', id: 'plan-error' });
  const idea = el('textarea', { id: 'plan-idea', class: 'plan-text', 'aria-label': 'Idea' });
  idea.rows = 4;
  idea.placeholder = 'A few sentences: what should the application do, and for whom?';
  const planButton = el('button', { type: 'submit' }, 'Plan');
  planButton.disabled = true;
  const settingsSlot = el('div', { id: 'run-choice-slot' });
  const ideaForm = el(
    'form',
    { class: 'panel', id: 'plan-idea-form', 'aria-label': 'Describe the application' },
    el('h2', null, 'Describe the application'),
    idea,
    el('div', { class: 'plan-actions' }, planButton),
  );
  const stage = el('div', { id: 'plan-stage' });
  replaceChildren(root, el('h1', null, 'New run'), settingsSlot, ideaForm, status, error, stage);
  return { status, error, idea, planButton, settingsSlot, ideaForm, stage };
}

/** What the person can do with a plan on the stage. */
interface PlanActions {
  answer: (answers: string[]) => void;
  start: (spec: string) => void;
  discard: () => void;
}

/** Shows a plan's state: status and error lines, and its questions or spec form on the stage. */
function renderPlanView(page: NewRunElements, view: PlanView, actions: PlanActions): void {
  page.idea.readOnly = view.state !== 'failed';
  page.error.textContent = view.error ?? '';
  page.status.textContent = statusText(view);
  if (view.state === 'asking') replaceChildren(page.stage, questionsForm(view, actions.answer));
  else if (view.state === 'ready')
    replaceChildren(page.stage, specForm(view, actions.start, actions.discard));
  else if (view.state !== 'starting') replaceChildren(page.stage);
}

/** A failed request, in the page's error line. */
function showFailure(error: HTMLElement, caught: unknown): void {
  error.textContent = caught instanceof ApiError ? caught.message : `Failed: ${(caught as Error).message}`;
}

/** The page after a plan was discarded: the idea editable again, the stage empty. */
function showDiscarded(page: NewRunElements): void {
  page.idea.readOnly = false;
  page.status.textContent = 'Discarded. Describe another application, or change this one.';
  replaceChildren(page.stage);
}

/** Puts the run settings panel into its slot; `onChange` hears when its verdict changes. */
function mountSettings(page: NewRunElements, info: PlanningInfoResponse, onChange: () => void): ChoiceForm {
  const settings = createChoiceForm(info, onChange);
  replaceChildren(page.settingsSlot, settings.element);
  page.status.textContent = `The planner may ask up to ${info.maxQuestions} questions, then writes a spec you can edit before the run starts.`;
  return settings;
}

/** Renders the new-run page into `root`; `navigate` opens a run's page. Returns a disposer. */
export function renderNewRunPage(root: HTMLElement, navigate: (path: string) => void): () => void {
  document.title = 'New run · nightshift';
  let stopped = false;
  let current: PlanView | undefined;
  let settings: ChoiceForm | undefined;
  const page = renderNewRunElements(root);
  const { error, idea, planButton } = page;
  // Planning needs settings the server accepted, and no plan in progress.
  const refreshPlanButton = () => {
    const idle = !current || current.state === 'failed';
    planButton.disabled = !(idle && settings?.usable());
    settings?.lock(!idle);
  };
  const fail = (caught: unknown) => showFailure(error, caught);
  const show = (view: PlanView) => {
    current = view;
    root.setAttribute('aria-busy', view.state === 'planning' || view.state === 'starting' ? 'true' : 'false');
    refreshPlanButton();
    renderPlanView(page, view, { answer, start, discard });
    if (view.state === 'started' && view.runId) navigate(`/runs/${encodeURIComponent(view.runId)}`);
  };
  // Follows the plan until it needs the person (questions, spec) or is over.
  const follow = async (view: PlanView) => {
    show(view);
    let latest = view;
    while (!stopped && (latest.state === 'planning' || latest.state === 'starting')) {
      latest = await plans.get(latest.id, latest.version);
      if (!stopped && latest.version !== current?.version) show(latest);
    }
  };
  const act = (fn: () => Promise<PlanView>) => () => {
    error.textContent = '';
    fn().then(follow).catch(fail);
  };
  const answer = (answers: string[]) => act(() => plans.answer((current as PlanView).id, answers))();
  const start = (spec: string) => act(() => plans.start((current as PlanView).id, spec))();
  const discard = () => {
    if (current) void plans.discard(current.id).catch(() => undefined);
    current = undefined;
    refreshPlanButton();
    showDiscarded(page);
  };
  page.ideaForm.addEventListener('submit', (event) => {
    event.preventDefault();
    act(() => plans.create(idea.value, settings?.choice()))();
  });
  plans.info().then(
    (info) => {
      settings = mountSettings(page, info, refreshPlanButton);
    },
    (caught) => {
      planButton.disabled = true;
      fail(caught);
    },
  );
  root.setAttribute('aria-busy', 'false');
  return () => {
    stopped = true;
  };
}

function statusText(view: PlanView): string {
  switch (view.state) {
    case 'planning':
      return `The planner (${view.model}) is working…`;
    case 'asking':
      return 'The planner has questions. Empty answers let it decide.';
    case 'ready':
      return `The spec is ready (planning cost ${money(view.costUsd)}). Edit it if you like, then start the run.`;
    case 'starting':
      return 'Starting the run…';
    case 'started':
      return 'The run has started.';
    default:
      return 'The planner produced no spec. Change the idea and try again.';
  }
}

function questionsForm(view: PlanView, send: (answers: string[]) => void): HTMLElement {
  const inputs = view.questions.map(() => el('input', { type: 'text', class: 'plan-answer' }));
  const form = el(
    'form',
    { class: 'panel', id: 'plan-questions', 'aria-label': 'Questions' },
    el('h2', null, 'Questions'),
    ...view.questions.map((question, index) =>
      el('label', { class: 'plan-question' }, el('span', null, question), inputs[index] as HTMLInputElement),
    ),
    el('div', { class: 'plan-actions' }, el('button', { type: 'submit' }, 'Send answers')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    (form.querySelector('button') as HTMLButtonElement).disabled = true;
    send(inputs.map((input) => input.value));
  });
  return form;
}

function specForm(view: PlanView, start: (spec: string) => void, discard: () => void): HTMLElement {
  const spec = el('textarea', { id: 'plan-spec', class: 'plan-text plan-spec', 'aria-label': 'Spec' });
  spec.value = view.spec ?? '';
  spec.rows = 28;
  spec.spellcheck = false;
  const startButton = el('button', { type: 'submit' }, 'Start run');
  const discardButton = el('button', { type: 'button', class: 'danger' }, 'Discard');
  discardButton.addEventListener('click', discard);
  const form = el(
    'form',
    { class: 'panel', id: 'plan-spec-form', 'aria-label': 'Spec' },
    el('h2', null, 'Spec'),
    view.exchanges.length
      ? el(
          'ul',
          { class: 'muted small', id: 'plan-exchanges' },
          ...view.exchanges.map((exchange) =>
            el('li', null, `${exchange.question} — ${exchange.answer || '(the planner decided)'}`),
          ),
        )
      : null,
    spec,
    el('div', { class: 'plan-actions' }, startButton, discardButton),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    startButton.disabled = true;
    start(spec.value);
  });
  return form;
}
