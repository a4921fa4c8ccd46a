// The new-run page's run settings: model, budget, lanes and workspace, checked by the server as they change
// (`POST /api/plans/check`), so a missing key or a retired or unknown model shows before an idea is typed.
// Messages from the server become text nodes only.
import type { ChoiceCheckResponse, ChoiceNote, PlanningInfoResponse, RunChoice } from '../../api-types.js';
import { call } from './api.js';
import { el, replaceChildren } from './dom.js';

/** Quiet time after the last keystroke before the choice is checked. */
const CHECK_DELAY_MS = 400;

/** The settings panel: its element, the choice as it stands, and whether a run may start with it. */
export interface ChoiceForm {
  element: HTMLElement;
  /** The choice, or undefined while a field cannot be read (its own message is shown). */
  choice(): RunChoice | undefined;
  /** True once the latest choice was checked and had no problem. */
  usable(): boolean;
  /** Fields read-only (while a plan is in progress). */
  lock(locked: boolean): void;
}

const check = (choice: RunChoice) =>
  call<ChoiceCheckResponse>('/api/plans/check', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(choice),
  });

function field(label: string, input: HTMLInputElement, help: string): HTMLElement {
  return el(
    'label',
    { class: 'plan-question' },
    el('span', null, label),
    input,
    el('span', { class: 'muted small' }, help),
  );
}

/** `20` → 20; empty or `none` → null (no cap); anything else → undefined. */
function readBudget(text: string): number | null | undefined {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === '' || trimmed === 'none') return null;
  const value = Number(trimmed);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

/** The panel's inputs, and the model suggestions for its model field. */
interface ChoiceInputs {
  model: HTMLInputElement;
  models: HTMLElement;
  budget: HTMLInputElement;
  lanes: HTMLInputElement;
  workspace: HTMLInputElement;
}

/** The inputs, filled with the server's defaults. */
function createChoiceInputs(info: PlanningInfoResponse): ChoiceInputs {
  const { defaults } = info;
  const model = el('input', { id: 'choice-model', type: 'text', class: 'plan-answer' });
  model.value = defaults.model;
  model.setAttribute('list', 'choice-models');
  const models = el('datalist', { id: 'choice-models' });
  for (const id of info.models) models.append(Object.assign(document.createElement('option'), { value: id }));
  const budget = el('input', { id: 'choice-budget', type: 'text', class: 'plan-answer' });
  budget.value = defaults.budgetUsd === null ? 'none' : String(defaults.budgetUsd);
  const lanes = el('input', { id: 'choice-lanes', type: 'number', class: 'plan-answer' });
  Object.assign(lanes, { min: '1', max: '8', step: '1', value: String(defaults.lanes) });
  const workspace = el('input', { id: 'choice-workspace', type: 'text', class: 'plan-answer' });
  workspace.value = defaults.workspace ?? '';
  workspace.placeholder = 'a new folder in the data dir';
  return { model, models, budget, lanes, workspace };
}

/** The choice the inputs hold, or undefined while the budget cannot be read. */
function readChoice(inputs: ChoiceInputs): RunChoice | undefined {
  const cap = readBudget(inputs.budget.value);
  if (cap === undefined) return undefined;
  return {
    model: inputs.model.value.trim(),
    budgetUsd: cap,
    lanes: Number(inputs.lanes.value),
    workspace: inputs.workspace.value.trim() || null,
  };
}

/** Replaces `list`'s items with one per note (text only). */
function showNotes(notes: readonly ChoiceNote[], list: HTMLElement): void {
  replaceChildren(list, ...notes.map((note) => el('li', { 'data-field': note.field }, note.message)));
}

/** The server's verdict on `choice`; a failed request becomes a problem on the model field. */
async function checkOrProblem(choice: RunChoice): Promise<ChoiceCheckResponse> {
  return check(choice).catch((error: Error) => ({
    ok: false,
    problems: [{ field: 'model' as const, message: `The check failed: ${error.message}` }],
    warnings: [],
  }));
}

/** The panel: a field per input, then the status line and the problem and warning lists (`notes`). */
function choicePanel(inputs: ChoiceInputs, notes: HTMLElement[]): HTMLElement {
  return el(
    'form',
    { class: 'panel', id: 'run-choice', 'aria-label': 'Run settings' },
    el('h2', null, 'Run settings'),
    field('Model', inputs.model, 'provider:model, for the planner and every role'),
    inputs.models,
    field(
      'Budget (USD)',
      inputs.budget,
      'the whole run pauses when it has cost this much; "none" for no cap',
    ),
    field('Lanes', inputs.lanes, 'features worked on at once; 1 builds one at a time'),
    field('Workspace', inputs.workspace, "an absolute directory on the dashboard's machine, new or empty"),
    ...notes,
  );
}

/** Builds the panel from the server's defaults; `onChange` is told when the verdict on the choice changes. */
export function createChoiceForm(info: PlanningInfoResponse, onChange: () => void): ChoiceForm {
  const inputs = createChoiceInputs(info);
  const { model, budget, lanes, workspace } = inputs;
  const problems = el('ul', { class: 'error', id: 'choice-problems', role: 'alert' });
  const warnings = el('ul', { class: 'muted small', id: 'choice-warnings' });
  const status = el('p', { class: 'muted small', id: 'choice-status', role: 'status' });
  const element = choicePanel(inputs, [status, problems, warnings]);

  let verdict: ChoiceCheckResponse | undefined;
  let asked = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const choice = () => readChoice(inputs);
  const run = async () => {
    const current = choice();
    const ticket = ++asked;
    verdict = undefined;
    onChange();
    if (!current) {
      status.textContent = '';
      const message = `Budget must be a positive number or "none", not "${budget.value}".`;
      showNotes([{ field: 'budgetUsd', message }], problems);
      showNotes([], warnings);
      return;
    }
    status.textContent = 'Checking the model, its key and the workspace…';
    const answer = await checkOrProblem(current);
    if (ticket !== asked) return; // a newer choice is being checked
    verdict = answer;
    status.textContent = answer.ok ? 'Ready: describe the application below.' : '';
    showNotes(answer.problems, problems);
    showNotes(answer.warnings, warnings);
    onChange();
  };
  const later = () => {
    clearTimeout(timer);
    verdict = undefined;
    onChange();
    timer = setTimeout(() => void run(), CHECK_DELAY_MS);
  };
  for (const input of [model, budget, lanes, workspace]) input.addEventListener('input', later);
  element.addEventListener('submit', (event) => event.preventDefault());
  void run();
  return {
    element,
    choice,
    usable: () => verdict?.ok === true,
    lock: (locked) => {
      for (const input of [model, budget, lanes, workspace]) input.readOnly = locked;
    },
  };
}
