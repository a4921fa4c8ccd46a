// Form building blocks with labels tied to their fields (so each field's accessible name is its label) and a
// summary of what is wrong, announced as an alert.
import { html } from './html.js';

let counter = 0;

function fieldId(name) {
  counter += 1;
  return `field-${name}-${counter}`;
}

export function textField(label, name, value = '', options = {}) {
  const id = fieldId(name);
  const type = options.type ?? 'text';
  const extra = html`${options.required ? html` required` : ''}${options.min !== undefined ? html` min="${options.min}"` : ''}${options.max !== undefined ? html` max="${options.max}"` : ''}`;
  return html`<p><label for="${id}">${label}</label> <input id="${id}" name="${name}" type="${type}" value="${value}"${extra}></p>`;
}

export function textArea(label, name, value = '', rows = 5) {
  const id = fieldId(name);
  return html`<p><label for="${id}">${label}</label><br><textarea id="${id}" name="${name}" rows="${rows}">${value}</textarea></p>`;
}

export function selectField(label, name, options, chosen) {
  const id = fieldId(name);
  const items = options.map(
    ([value, text]) =>
      html`<option value="${value}"${String(value) === String(chosen) ? html` selected` : ''}>${text}</option>`,
  );
  return html`<p><label for="${id}">${label}</label> <select id="${id}" name="${name}">${items}</select></p>`;
}

export function errorSummary(errors) {
  if (!errors.length) return '';
  return html`<div role="alert" class="errors"><p>Please fix the following:</p><ul>${errors.map((error) => html`<li>${error}</li>`)}</ul></div>`;
}

/** A button in a form of its own (POST), with an optional question the browser asks before sending it. */
export function actionButton(action, label, confirm, hidden = {}) {
  const inputs = Object.entries(hidden).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  const ask = confirm ? html` data-confirm="${confirm}"` : '';
  return html`<form method="post" action="${action}" class="inline"${ask}>${inputs}<button type="submit">${label}</button></form>`;
}
