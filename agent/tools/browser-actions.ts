import type { Locator, Page } from 'playwright-core';
import { z } from 'zod';
import { defineTool, type Tool } from '../tool.js';
import { describeTarget } from './browser-log.js';
import { ACTION_TIMEOUT_MS, actAndSettle, resolveRef } from './browser-page.js';
import type { BrowserCall, BrowserToolState } from './browser-state.js';

/** The `ref` argument of the element tools. */
export const refParameter = z.string().min(1).describe('Element ref from the latest snapshot, e.g. "e5"');

/** The element behind a ref and what it is (from the latest snapshot), for one action on it. */
export async function onRef(state: BrowserToolState, page: Page, ref: string) {
  const element = await resolveRef(page, ref);
  const target = await describeTarget(element, ref, state.observations.lastSnapshot());
  return { element, target };
}

/** `browser_click {ref}`: clicks an element, returns the page after the click. */
export function clickTool(state: BrowserToolState): Tool {
  return defineTool({
    name: 'browser_click',
    description:
      'Click the element with this ref (from the latest snapshot). Returns the page snapshot afterwards; a dialog or a new tab the click opens is reported.',
    parameters: z.object({ ref: refParameter }),
    execute: ({ ref }) =>
      state.run(
        `Clicking ${ref}`,
        async (page) => {
          const { element, target } = await onRef(state, page, ref);
          await actAndSettle(page, () => element.click({ timeout: ACTION_TIMEOUT_MS }));
          return state.report(`Clicked ${ref}.`, { ...action('browser_click', { ref }), target });
        },
        action('browser_click', { ref }),
      ),
  });
}

/** `browser_hover {ref}`: moves the mouse over an element (tooltips, hover menus). */
export function hoverTool(state: BrowserToolState): Tool {
  return defineTool({
    name: 'browser_hover',
    description:
      'Move the mouse over the element with this ref (reveals tooltips and hover menus). Returns the page snapshot afterwards.',
    parameters: z.object({ ref: refParameter }),
    execute: ({ ref }) =>
      state.run(
        `Hovering over ${ref}`,
        async (page) => {
          const { element, target } = await onRef(state, page, ref);
          await actAndSettle(page, () => element.hover({ timeout: ACTION_TIMEOUT_MS }));
          return state.report(`Hovering over ${ref}.`, { ...action('browser_hover', { ref }), target });
        },
        action('browser_hover', { ref }),
      ),
  });
}

/** `browser_drag {start_ref, end_ref}`: drags one element onto another (mouse and HTML5 drag and drop). */
export function dragTool(state: BrowserToolState): Tool {
  return defineTool({
    name: 'browser_drag',
    description:
      'Drag the element start_ref and drop it on the element end_ref (reordering, drag and drop). Returns the page snapshot afterwards.',
    parameters: z.object({
      start_ref: refParameter.describe('Ref of the element to drag'),
      end_ref: refParameter.describe('Ref of the element to drop it on'),
    }),
    execute: (args) =>
      state.run(
        `Dragging ${args.start_ref} to ${args.end_ref}`,
        async (page) => {
          const { element, target } = await onRef(state, page, args.start_ref);
          const drop = await onRef(state, page, args.end_ref);
          await actAndSettle(page, () => element.dragTo(drop.element, { timeout: ACTION_TIMEOUT_MS }));
          return state.report(`Dragged ${args.start_ref} onto ${args.end_ref}.`, {
            ...action('browser_drag', args),
            target,
            dropTarget: drop.target,
          });
        },
        action('browser_drag', args),
      ),
  });
}

/**
 * `browser_type {ref, text, submit?, slowly?}`: fills a field (replacing its value), or with `slowly` replaces it
 * key by key so key handlers fire; then presses Enter when `submit`.
 */
export function typeTool(state: BrowserToolState): Tool {
  return defineTool({
    name: 'browser_type',
    description:
      'Replace the value of an editable element (by ref) with text; submit: true presses Enter afterwards; slowly: true types key by key (for fields that react to each keystroke, e.g. search-as-you-type or key handlers). Returns the page snapshot afterwards.',
    parameters: z.object({
      ref: refParameter,
      text: z.string().describe('Text to enter'),
      submit: z.boolean().optional().describe('Press Enter after typing'),
      slowly: z.boolean().optional().describe('Type one key at a time so keydown/keyup handlers fire'),
    }),
    execute: (args) =>
      state.run(
        `Typing into ${args.ref}`,
        async (page) => {
          const { ref, text, submit, slowly } = args;
          const { element, target } = await onRef(state, page, ref);
          await actAndSettle(page, async () => {
            if (slowly) await typeSlowly(element, text);
            else await element.fill(text, { timeout: ACTION_TIMEOUT_MS });
            if (submit) await element.press('Enter', { timeout: ACTION_TIMEOUT_MS });
          });
          const how = slowly ? ' key by key' : '';
          return state.report(
            `Typed ${JSON.stringify(text)} into ${ref}${how}${submit ? ' and pressed Enter' : ''}.`,
            { ...action('browser_type', args), target },
          );
        },
        action('browser_type', args),
      ),
  });
}

/**
 * Replaces the field's value key by key: the old value is selected, so the first key replaces it (clearing
 * with `fill('')` would press Delete, a key event the user did not type). Replays do the same.
 */
export async function typeSlowly(element: Locator, text: string): Promise<void> {
  await element.selectText({ timeout: ACTION_TIMEOUT_MS });
  await element.pressSequentially(text, { timeout: ACTION_TIMEOUT_MS });
}

/** `browser_press_key {key}`: presses a key on the focused element. */
export function pressKeyTool(state: BrowserToolState): Tool {
  return defineTool({
    name: 'browser_press_key',
    description:
      'Press a key on the focused element, e.g. "Enter", "Escape", "Tab", "ArrowDown", "Control+a". Returns the page snapshot afterwards.',
    parameters: z.object({
      key: z.string().min(1).describe('Key name or combination, e.g. "Enter" or "Shift+Tab"'),
    }),
    execute: ({ key }) =>
      state.run(
        `Pressing ${key}`,
        async (page) => {
          await actAndSettle(page, () => page.keyboard.press(key));
          return state.report(`Pressed ${key}.`, action('browser_press_key', { key }));
        },
        action('browser_press_key', { key }),
      ),
  });
}

/** `browser_select_option {ref, values}`: selects options of a `<select>` by value or label. */
export function selectOptionTool(state: BrowserToolState): Tool {
  return defineTool({
    name: 'browser_select_option',
    description:
      'Select options (by value or visible label) in the dropdown with this ref. Returns the page snapshot afterwards.',
    parameters: z.object({
      ref: refParameter,
      values: z.array(z.string()).min(1).describe('Values or labels to select (several for a multi-select)'),
    }),
    execute: ({ ref, values }) =>
      state.run(
        `Selecting in ${ref}`,
        async (page) => {
          const { element, target } = await onRef(state, page, ref);
          let selected: string[] = [];
          await actAndSettle(page, async () => {
            selected = await element.selectOption(values, { timeout: ACTION_TIMEOUT_MS });
          });
          return state.report(`Selected ${JSON.stringify(selected)} in ${ref}.`, {
            ...action('browser_select_option', { ref, values }),
            target,
          });
        },
        action('browser_select_option', { ref, values }),
      ),
  });
}

/** An action call for the observation log. */
export function action(tool: string, args: Record<string, unknown>): BrowserCall {
  return { tool, kind: 'action', args };
}
