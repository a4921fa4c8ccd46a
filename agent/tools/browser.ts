/**
 * The evaluator's browser tools, modelled on Playwright MCP: the model reads the page as an aria
 * snapshot with `[ref=eN]` element refs and acts on refs. Page text reaches the model only as text.
 */
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { z } from 'zod';
import { truncateMiddle } from '../../core/truncate.js';
import { defineTool, type Tool, ToolError } from '../tool.js';
import {
  action,
  clickTool,
  dragTool,
  hoverTool,
  pressKeyTool,
  selectOptionTool,
  typeTool,
} from './browser-actions.js';
import {
  ACTION_TIMEOUT_MS,
  actAndSettle,
  checkNavigationTarget,
  MAX_WAIT_MS,
  NAVIGATION_TIMEOUT_MS,
} from './browser-page.js';
import {
  type BrowserCall,
  type BrowserToolSession,
  type BrowserToolState,
  createBrowserToolState,
} from './browser-state.js';
import { fileUploadTool } from './browser-upload.js';
import { handleDialogTool, navigateBackTool, resizeTool, tabsTool } from './browser-window.js';

export * from './browser-log.js';
export type { BrowserToolSession } from './browser-state.js';

/** Names of the browser tools, in the order `createBrowserTools` returns them. */
export const BROWSER_TOOL_NAMES = [
  'browser_navigate',
  'browser_navigate_back',
  'browser_snapshot',
  'browser_click',
  'browser_type',
  'browser_press_key',
  'browser_select_option',
  'browser_hover',
  'browser_drag',
  'browser_file_upload',
  'browser_handle_dialog',
  'browser_tabs',
  'browser_resize',
  'browser_wait_for',
  'browser_take_screenshot',
  'browser_console_messages',
] as const;

/** A look at the page (no action) for the observation log. */
function observation(tool: string, args: Record<string, unknown>): BrowserCall {
  return { tool, kind: 'observation', args };
}

/** Bytes of console output returned by `browser_console_messages`. */
const CONSOLE_MAX_BYTES = 16_000;

/** The browser tools bound to one evaluation's page. */
export function createBrowserTools(session: BrowserToolSession): Tool[] {
  return createBrowserToolSet(session).tools;
}

/** The browser tools and the tab they act on now (a popup they followed, a tab the model selected). */
export function createBrowserToolSet(session: BrowserToolSession): { tools: Tool[]; currentPage(): Page } {
  const state = createBrowserToolState(session);
  return { tools: toolsOf(state), currentPage: () => state.page() };
}

function toolsOf(state: BrowserToolState): Tool[] {
  return [
    navigateTool(state),
    navigateBackTool(state),
    snapshotTool(state),
    clickTool(state),
    typeTool(state),
    pressKeyTool(state),
    selectOptionTool(state),
    hoverTool(state),
    dragTool(state),
    fileUploadTool(state),
    handleDialogTool(state),
    tabsTool(state),
    resizeTool(state),
    waitForTool(state),
    screenshotTool(state),
    consoleMessagesTool(state),
  ];
}

function navigateTool(state: BrowserToolState): Tool {
  return defineTool({
    name: 'browser_navigate',
    description:
      'Open a URL of the app under test (absolute, or a path like "/settings"). Other sites and file:// are refused. Returns the page snapshot.',
    parameters: z.object({ url: z.string().min(1).describe('URL or path on the app under test') }),
    execute: ({ url }) =>
      state.run(
        `Navigating to ${url}`,
        async (page) => {
          const target = checkNavigationTarget(url, state.allowedOrigins, page.url());
          let status: number | undefined;
          await actAndSettle(page, async () => {
            const response = await page.goto(target.href, {
              waitUntil: 'load',
              timeout: NAVIGATION_TIMEOUT_MS,
            });
            status = response?.status();
          });
          const http = status === undefined ? '' : ` (HTTP ${status})`;
          return state.report(`Navigated to ${target.href}${http}.`, {
            ...action('browser_navigate', { url }),
            navigation: { url: page.url(), ...(status === undefined ? {} : { status }) },
          });
        },
        action('browser_navigate', { url }),
      ),
  });
}

function snapshotTool(state: BrowserToolState): Tool {
  return defineTool({
    name: 'browser_snapshot',
    description:
      'The current page as an accessibility snapshot; elements carry refs like [ref=e5] for the other browser tools.',
    parameters: z.object({}),
    execute: () =>
      state.run('Taking a snapshot', async () => {
        const output = await state.report('', observation('browser_snapshot', {}));
        return { ...output, content: output.content.replace(/^\n/, '') };
      }),
  });
}

function waitForTool(state: BrowserToolState): Tool {
  return defineTool({
    name: 'browser_wait_for',
    description: `Wait until text appears (text), disappears (text_gone), or a time passes (time_ms); at most ${MAX_WAIT_MS} ms. Returns the page snapshot.`,
    parameters: z
      .object({
        text: z.string().min(1).optional().describe('Wait until this text is visible'),
        text_gone: z.string().min(1).optional().describe('Wait until this text is no longer visible'),
        time_ms: z
          .number()
          .min(0)
          .optional()
          .describe(`Milliseconds to wait (max ${MAX_WAIT_MS}); the limit for text waits`),
      })
      .refine(
        (args) => args.text !== undefined || args.text_gone !== undefined || args.time_ms !== undefined,
        {
          message: 'Give text, text_gone or time_ms.',
        },
      ),
    execute: (args) =>
      state.run('Waiting', async (page) => {
        const { text, text_gone, time_ms } = args;
        const limit = Math.min(time_ms ?? MAX_WAIT_MS, MAX_WAIT_MS);
        const waited: string[] = [];
        if (text !== undefined) {
          await page
            .getByText(text)
            .filter({ visible: true })
            .first()
            .waitFor({ state: 'visible', timeout: limit });
          waited.push(`${JSON.stringify(text)} is visible`);
        }
        if (text_gone !== undefined) {
          await page
            .getByText(text_gone)
            .filter({ visible: true })
            .first()
            .waitFor({ state: 'detached', timeout: limit });
          waited.push(`${JSON.stringify(text_gone)} is gone`);
        }
        if (text === undefined && text_gone === undefined) {
          await page.waitForTimeout(limit);
          waited.push(`waited ${limit} ms`);
        }
        return state.report(`Done: ${waited.join('; ')}.`, observation('browser_wait_for', args));
      }),
  });
}

function screenshotTool(state: BrowserToolState): Tool {
  // Reserved synchronously after the directory scan, so parallel calls never pick the same name.
  let lastNumber = 0;
  return defineTool({
    name: 'browser_take_screenshot',
    description:
      'Save a PNG screenshot of the page as evidence and see it. Use the snapshot to act; screenshots are for looks and proof.',
    parameters: z.object({
      full_page: z.boolean().optional().describe('Capture the whole scrollable page, not just the viewport'),
    }),
    execute: ({ full_page }) =>
      state.run('Taking a screenshot', async (page) => {
        lastNumber = Math.max(lastNumber, await highestScreenshotNumber(state.session.evidenceDir)) + 1;
        const name = `screenshot-${String(lastNumber).padStart(3, '0')}.png`;
        const file = path.join(state.session.evidenceDir, name);
        const png = await page.screenshot({
          fullPage: full_page === true,
          timeout: ACTION_TIMEOUT_MS,
          type: 'png',
        });
        await writeFile(file, png);
        return {
          content: `Screenshot saved to ${file} (${full_page ? 'full page' : 'viewport'}, ${page.url()}).`,
          images: [{ mediaType: 'image/png', base64: png.toString('base64') }],
          details: { screenshotPath: file },
        };
      }),
  });
}

/** The highest N of the `screenshot-N.png` files in the directory (0 when none). */
async function highestScreenshotNumber(dir: string): Promise<number> {
  const names = await readdir(dir).catch(() => {
    throw new ToolError(`The evidence directory ${dir} does not exist.`);
  });
  const used = names.map((name) => Number(/^screenshot-(\d+)\.png$/.exec(name)?.[1] ?? 0));
  return Math.max(0, ...used);
}

function consoleMessagesTool(state: BrowserToolState): Tool {
  return defineTool({
    name: 'browser_console_messages',
    description:
      'All browser console messages and uncaught page errors of this session so far, oldest first.',
    parameters: z.object({}),
    execute: async () => {
      state.takeUnseenConsole();
      const messages = state.session.consoleMessages();
      if (messages.length === 0) return 'No console messages.';
      const body = truncateMiddle(messages.join('\n'), CONSOLE_MAX_BYTES, 'the console log').text;
      return `${messages.length} console message(s):\n${body}`;
    },
  });
}
