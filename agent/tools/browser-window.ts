/**
 * Browser tools that act on the window rather than on an element: history back, viewport size, tabs, and how
 * the next JavaScript dialog is answered.
 */
import { z } from 'zod';
import { defineTool, type Tool, ToolError } from '../tool.js';
import { action } from './browser-actions.js';
import { actAndSettle, NAVIGATION_TIMEOUT_MS } from './browser-page.js';
import type { BrowserCall, BrowserToolState } from './browser-state.js';
import { describeDialog } from './browser-tabs.js';

/** Viewport limits of `browser_resize`: from a small phone to a large desktop. */
export const VIEWPORT_LIMITS = { minWidth: 240, maxWidth: 3840, minHeight: 240, maxHeight: 2160 } as const;

/** `browser_navigate_back {}`: the previous page of the current tab's history. */
export function navigateBackTool(state: BrowserToolState): Tool {
  return defineTool({
    name: 'browser_navigate_back',
    description: "Go back to the previous page in the current tab's history. Returns the page snapshot.",
    parameters: z.object({}),
    execute: () =>
      state.run(
        'Going back',
        async (page) => {
          const before = page.url();
          let status: number | undefined;
          let moved = false;
          await actAndSettle(page, async () => {
            const response = await page.goBack({ waitUntil: 'load', timeout: NAVIGATION_TIMEOUT_MS });
            status = response?.status();
            // A same-document back (history.pushState, #hash) has no response but does move.
            moved = response !== null || page.url() !== before;
          });
          if (!moved) throw new ToolError("There is no earlier page in this tab's history.");
          const http = status === undefined ? '' : ` (HTTP ${status})`;
          return state.report(`Went back to ${page.url()}${http}.`, {
            ...action('browser_navigate_back', {}),
            navigation: { url: page.url(), ...(status === undefined ? {} : { status }) },
          });
        },
        action('browser_navigate_back', {}),
      ),
  });
}

/** `browser_resize {width, height}`: sets the viewport (responsive layouts, media queries). */
export function resizeTool(state: BrowserToolState): Tool {
  const { minWidth, maxWidth, minHeight, maxHeight } = VIEWPORT_LIMITS;
  return defineTool({
    name: 'browser_resize',
    description: `Resize the browser viewport to width x height CSS pixels (${minWidth}-${maxWidth} x ${minHeight}-${maxHeight}), e.g. 375 x 812 for a phone. Returns the page snapshot.`,
    parameters: z.object({
      width: z.number().int().min(minWidth).max(maxWidth).describe('Viewport width in CSS pixels'),
      height: z.number().int().min(minHeight).max(maxHeight).describe('Viewport height in CSS pixels'),
    }),
    execute: (args) =>
      state.run(
        'Resizing the viewport',
        async (page) => {
          await actAndSettle(page, () => page.setViewportSize(args));
          return state.report(
            `The viewport is now ${args.width} x ${args.height}.`,
            action('browser_resize', args),
          );
        },
        action('browser_resize', args),
      ),
  });
}

/** `browser_tabs {action, index?}`: lists, selects or closes tabs (popups and new tabs are followed anyway). */
export function tabsTool(state: BrowserToolState): Tool {
  return defineTool({
    name: 'browser_tabs',
    description:
      'List the open tabs (action "list"), switch to the tab at index ("select"), or close a tab ("close"; the current one without index). A tab the app opens is followed automatically. Returns the tab list and the snapshot of the current tab.',
    parameters: z
      .object({
        action: z.enum(['list', 'select', 'close']),
        index: z.number().int().min(0).optional().describe('Tab index as listed (0 is the first tab)'),
      })
      .refine((args) => args.action !== 'select' || args.index !== undefined, {
        message: 'Give the index of the tab to select.',
      }),
    execute: (args) => {
      const call: BrowserCall = {
        tool: 'browser_tabs',
        kind: args.action === 'list' ? 'observation' : 'action',
        args,
      };
      return state.run(
        args.action === 'list' ? 'Listing tabs' : `Tab ${args.action}`,
        async (page) => {
          const { tabs } = state;
          const index = args.index ?? tabs.currentIndex();
          const chosen = tabs.at(index);
          if (args.action !== 'list' && !chosen) {
            throw new ToolError(`There is no tab ${index}; open tabs are 0 to ${tabs.count - 1}.`);
          }
          let done = 'Open tabs:';
          if (args.action === 'select' && chosen) {
            await tabs.select(chosen);
            done = `Switched to tab ${index}.`;
          }
          if (args.action === 'close' && chosen) {
            if (tabs.count === 1) throw new ToolError('The last tab cannot be closed; navigate instead.');
            await actAndSettle(page, () => chosen.close());
            done = `Closed tab ${index}.`;
          }
          const list = (await tabs.list()).map(
            (tab) => `${tab.index}: ${tab.url} "${tab.title}"${tab.current ? ' (current)' : ''}`,
          );
          return state.report(
            [done, ...(args.action === 'list' ? [] : ['Open tabs:']), ...list].join('\n'),
            call,
          );
        },
        call,
      );
    },
  });
}

/** `browser_handle_dialog {accept, prompt_text?}`: how the next alert/confirm/prompt is answered. */
export function handleDialogTool(state: BrowserToolState): Tool {
  return defineTool({
    name: 'browser_handle_dialog',
    description:
      'Choose how the NEXT JavaScript dialog (alert, confirm, prompt) is answered: accept (with prompt_text for a prompt) or dismiss (Cancel). Call it before the action that opens the dialog. Without it, dialogs are accepted. Every dialog is reported in the result of the action that opened it.',
    parameters: z.object({
      accept: z.boolean().describe('true = OK/accept, false = Cancel/dismiss'),
      prompt_text: z.string().optional().describe('Text to enter into a prompt() when accepting'),
    }),
    execute: async (args) => {
      state.tabs.planNextDialog({
        accept: args.accept,
        ...(args.prompt_text !== undefined ? { promptText: args.prompt_text } : {}),
      });
      const page = state.page();
      const entry = state.observations.record({
        tool: 'browser_handle_dialog',
        kind: 'observation',
        args,
        ok: true,
        url: page.url(),
      });
      const typed =
        args.prompt_text !== undefined ? ` (a prompt gets ${JSON.stringify(args.prompt_text)})` : '';
      const next = `The next dialog will be ${args.accept ? 'accepted' : 'dismissed'}${typed}; later ones are accepted again.`;
      return [next, ...entry.dialogs.map(describeDialog)].join('\n');
    },
  });
}
