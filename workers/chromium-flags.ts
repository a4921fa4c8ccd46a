/** The command-line flags every Chromium launch of the worker gets (workers/browser-pool.ts). */

/**
 * The features playwright-core (the pinned version) disables by its own `--disable-features`; a unit test
 * compares this copy with the installed package, so an upgrade that changes it fails until it is updated here.
 */
export const PLAYWRIGHT_DISABLED_FEATURES: readonly string[] = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * Features nightshift disables on top: Chromium's own requests from a page's context (autofill queries for a
 * form, translation) go through the context's gate, are refused there and would show in the evaluator's console
 * as errors of the app. And `RenderDocument`, which builds a new frame host in the browser and a new frame in the
 * renderer for every navigation, same-site ones included: a replay navigates two or three times, and without it
 * a replay of the demo's checks costs about 15 % less CPU (docs/benchmarks.md, recorded checks). Main-frame ids
 * and page CDP sessions survive navigations either way; site isolation stays on. One thing a page can tell: the
 * frame keeps the pointer's last position across same-site navigations, so a sweep moves the pointer out of the
 * viewport when it clears its reused page (checks/replay-context.ts).
 * It does put the app's pages on Chromium's older navigation path, and a Chromium that drops the feature name
 * ignores it silently (the figure in the bench would show it). The back/forward cache is off in every Playwright
 * launch already (`--disable-back-forward-cache`), exported checks' included.
 */
export const NIGHTSHIFT_DISABLED_FEATURES: readonly string[] = [
  'AutofillServerCommunication',
  'AutofillCrowdsourcing',
  'Translate',
  'InterestFeedContentSuggestions',
  'RenderDocument',
];

/**
 * Flags every launch gets: root needs `--no-sandbox`; the rest keep Chromium from phoning Google
 * (refused on an offline machine, and noise in the evaluator's network log) and from using a GPU.
 */
export const CHROMIUM_BASE_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // WebRTC is the one way a page reaches the network around the context's proxy (UDP to any address): pinned
  // to proxied TCP, where the gate refuses it (workers/browser-gate.ts). The full Chromium reads the first
  // switch, the headless shell (workers/chromium-path.ts) only the second; each ignores the other.
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  // Chromium honours only the last --disable-features, so this one carries Playwright's list with ours.
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...NIGHTSHIFT_DISABLED_FEATURES].join(',')}`,
];
