/**
 * Sections of the report measured by hand, not by `npm run bench` (kept here so a rerun of the report keeps them):
 * process start, and the affected-check strategy simulation (`bench/affected-sim.ts`, counts rather than times).
 */

/** Process start from the bundle vs through tsx's loader (`/usr/bin/time node bin/nightshift.js --version`). */
export const PROCESS_START = `## Process start: bundle vs tsx's loader

Not a bench section (measured by hand, \`/usr/bin/time node bin/nightshift.js --version\`, 2026-12-02): the CPU a
process spends before it runs anything. Through tsx's loader, ~400 modules one by one: 4.5 s user on a quiet
machine (a profile: module loading 2.9 s, GC 0.8 s). From the bundle (\`bin/entry-bundle.js\`): 1.6 s user, the rest
being the packages themselves (playwright-core 0.8 s, the two SDKs 0.8 s, bullmq and ioredis 0.3 s). Side by side at
load ~20: tsx 3.9 s user + 1.5 s sys, bundle 1.6 s + 0.7 s. Making the bundle takes ~0.6 s of CPU, once per change.
`;

/** The strategy simulation's figures (`npx tsx bench/affected-sim.ts 200`; counts, not times: not rerun by the bench). */
export const AFFECTED_SIMULATION = `## Affected checks

\`npx tsx bench/affected-sim.ts 200\` (issue 29): which checks a merge replays, by the strategies of
\`evaluation/affected-checks.ts\`, on a simulated app grown to 200 features merge by merge (not a browser run: it
measures the selection). Each feature adds a page module, a route line and a nav link in two shared files (the route
table imports every page module), 30 % add a helper module that 40 % of later features import, all import the
initializer's store. A sixth of the merges break other features: a helper's code (its owner and importers break),
another feature's route line, the store (three users break) or the stylesheet (one page breaks; no import leads
there). Three seeds (29, 7, 2026), summed:

| strategy | breaking merges | caught at merge | broken features missed (found by the full sweep) | checks per merge at 24 / 100 / 200 passing | select time per merge |
|---|---|---|---|---|---|
| \`diff\` (changed files) | 97 | 97 | 0 / 191 | 19.5 / 95.5 / 195.5 | 0.1–0.4 ms |
| \`imports\` | 97 | 61 | 36 / 191 (15 route lines, 21 stylesheet) | 1.0–2.6 / 1.0–1.4 / 1.0–20.8 | 0.6–0.9 ms |
| \`lines\` (default) | 97 | 76 | 21 / 191 (all stylesheet) | 1.1–2.6 / 1.0–1.4 / 1.1–20.8 | 0.9–3.7 ms |
| \`all\` (before issue 29) | 97 | 97 | 0 / 191 | 19.5 / 95.5 / 195.5 | < 0.3 ms |

- By changed files alone every merge replays everything: the shared route table is in every footprint. Linking a
  shared file by its changed lines keeps the merge at one or two checks and still catches a mangled route line.
- A shared file links by its changed lines only, never by what it imports: a route table imports every page module,
  so through it the lane's new module reached every check. Until that was fixed (when the simulation's route table
  imported nothing, it did not show), \`lines\` replayed 19.5 / 95.5 / 195.5 checks per merge here, like \`all\`.
- The import graph catches every helper and store breakage (a store change replays all its importers: the 20.8 at
  200 is such a merge in the window). What no static link sees (a stylesheet rule hiding another page) is 11 % of
  the broken features; the full sweep (every 8 merges, and before done) finds it and bisects it to its merge
  (\`test/integration/lanes/lanes-run.test.ts\`: a lane's module breaks another feature after a reload, the sweep sends
  it back).
- So the merge queue's replays per merge stay flat from 24 to 200 features (1.1–2.6 checks, against 19.5 → 195.5
  for \`all\`), plus one full sweep per 8 merges. Load while measuring: 18.5 / 16.7 / 11.7 on 2 cores (the selection
  is milliseconds; the figures are counts, not times).
`;

/** What the 12-feature meal-planner nights showed beyond their figures (read from their runs, 2026-12-03). */
export const MEAL_PLANNER_NIGHT_NOTES = `What the 12-feature meal-planner nights (2026-12-03, quiet machine, 2 cores) showed
beyond the table (measured at 10×; a first pair of nights at 100×, load 2–8, for comparison):

- **A false pass, found and fixed**: before the recorded checks pinned the page they end on, the 1-lane night at
  100× ended 11 of 12 working with 12 claimed. F-008's generator planted the regression of F-006 (log in lands on
  the home page instead of the page asked for); F-006's recorded check expected the quoted text "My recipes",
  which the home page's menu also shows, so it stayed green through every sweep. The recorder now also keeps the
  heading of a quoted text's exact name and the URL path the evidence names (\`checks/recorder-place.ts\`): the
  nights since catch the regression with the recorded check and end 12 of 12.
- **Where the money goes**: 361 model requests at 1 lane, 337 at 4, against the loop's 90: an evaluator drives the
  browser one action a turn (a sign-up is six), so every evaluation costs more turns than the generator's work,
  and the simulated evaluator's 3 false fails each cost another generator and evaluator round. Cached prefixes keep
  the dollars at 1.7× the loop's for 3.7× the requests. What would move it: evaluations that replay a feature's
  recorded check instead of a model where its code did not change, and a cheaper evaluator model.
- **Compression hides what lanes gain**: at 100× a turn is ~0.08 s while an app start, a browser check or a merge
  takes seconds uncompressed, so the lanes' model waits rarely coincided (1.24 requests in flight on average while
  any was) and the projection added them almost end to end: 4 lanes 69.5 min against 1 lane's 89.9 (1.29×). At 10×
  the same night gives 50.3 min against 86.2 (1.71×); a real night overlaps more still, so the 4-lane figure is an
  upper bound. The 12 features' longest \`depends_on\` path is 5 (sign-up, my-recipes, new-recipe, recipe-page,
  edit-recipe), so 4 lanes need at least 5 rounds of generator and evaluator where 1 lane does 12.
`;
