import { z } from 'zod';
import { defineTool, type Tool } from '../tool.js';
import { describeTarget } from './browser-log.js';
import { ACTION_TIMEOUT_MS, actAndSettle, resolveRef } from './browser-page.js';
import type { BrowserCall, BrowserToolState } from './browser-state.js';

const refParameter = z.string().min(1).describe('Element ref from the latest snapshot, e.g. "e5"');

/** `browser_click {ref}`: clicks an element, returns the page after the click. */
export function clickTool(state: BrowserToolState): Tool {
  return defineTool({
    name: 'browser_click',
    description:
      'Click the element with this ref (from the latest snapshot). Returns the page snapshot afterwards.',
    parameters: z.object({ ref: refParameter }),
    execute: ({ ref }) =>
      state.run(
        `Clicking ${ref}`,
        async (page) => {
          const element = await resolveRef(page, ref);
          const target = await describeTarget(element, ref, state.observations.lastSnapshot());
          await actAndSettle(page, () => element.click({ timeout: ACTION_TIMEOUT_MS }));
          return state.report(`Clicked ${ref}.`, { ...action('browser_click', { ref }), target });
        },
        action('browser_click', { ref }),
      ),
  });
}

/** `browser_type {ref, text, submit?}`: fills a field (replacing its value), then presses Enter when `submit`. */
export function typeTool(state: BrowserToolState): Tool {
  return defineTool({
    name: 'browser_type',
    description:
      'Replace the value of an editable element (by ref) with text; submit: true presses Enter afterwards. Returns the page snapshot afterwards.',
    parameters: z.object({
      ref: refParameter,
      text: z.string().describe('Text to enter'),
      submit: z.boolean().optional().describe('Press Enter after typing'),
    }),
    execute: (args) =>
      state.run(
        `Typing into ${args.ref}`,
        async (page) => {
          const { ref, text, submit } = args;
          const element = await resolveRef(page, ref);
          const target = await describeTarget(element, ref, state.observations.lastSnapshot());
          await actAndSettle(page, async () => {
            await element.fill(text, { timeout: ACTION_TIMEOUT_MS });
            if (submit) await element.press('Enter', { timeout: ACTION_TIMEOUT_MS });
          });
          return state.report(
            `Typed ${JSON.stringify(text)} into ${ref}${submit ? ' and pressed Enter' : ''}.`,
            { ...action('browser_type', args), target },
          );
        },
        action('browser_type', args),
      ),
  });
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
          const element = await resolveRef(page, ref);
          const target = await describeTarget(element, ref, state.observations.lastSnapshot());
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
