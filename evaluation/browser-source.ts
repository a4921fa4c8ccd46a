/**
 * The browser as evaluation needs it: a fresh context per evaluation on a browser shared by the process.
 * `workers/browser-pool.ts` implements it; declared here structurally so evaluation and roles do not import workers.
 */
import type { Page } from 'playwright-core';

/** A source of fresh browser contexts (the process's shared browser). */
export interface BrowserSource {
  acquireContext(options: {
    evidenceDir: string;
    trace: boolean;
    baseURL?: string;
    /** Each request of a page that was refused (not the app's origin). */
    onBlocked?: (blocked: { method: string; target: string; reason: string }) => void;
  }): Promise<{
    page: Page;
    consoleMessages: readonly string[];
    /** Lets the context reach the app's origin, and nothing else; before it, every request is refused. */
    allowOrigin(origin: string): void;
    close(): Promise<{ tracePath?: string; screenshots: string[] }>;
  }>;
}
