import type { Browser } from 'playwright-core';
import type { PlanDesk } from '../../../dashboard/plan-desk.js';
import { createDashboardServer, type DashboardServer } from '../../../dashboard/server.js';
import type { RunHarness } from '../runs/harness.js';
import { launchChromium } from './browser.js';

/** A dashboard that can plan (the given desk) on a run harness's store, and a Chromium to drive it. */
export interface PlanningDashboard {
  server: DashboardServer;
  browser: Browser;
  /** Closes the browser, the desk, the server and the harness (each that was opened). */
  close(): Promise<void>;
}

/** Starts the dashboard with `desk` on the harness's store and data dir, and launches Chromium. */
export async function openPlanningDashboard(harness: RunHarness, desk: PlanDesk): Promise<PlanningDashboard> {
  const server = await createDashboardServer({
    store: harness.orchestrator.store,
    dataDir: harness.dataDir,
    port: 0,
    planning: desk,
  });
  const browser = await launchChromium();
  return {
    server,
    browser,
    close: async () => {
      await browser.close();
      desk.close();
      await server.close();
      await harness.close();
    },
  };
}
