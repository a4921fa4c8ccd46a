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
beyond the table (measured at 10×; the same night three times as the evaluator's turns came down):

| 10×, 12 features | 4 lanes, projected | 1 lane | requests (4 lanes / 1 lane) | $ per working feature (4 lanes) |
|---|---|---|---|---|
| one browser action a reply, a closing reply after the verdicts | 50.3 min | 86.2 min | 337 / 361 | $0.144 |
| a form's fields and its button in one reply | 42.8 min | 63.4 min | 234 / 248 | $0.132 |
| and no request after the last verdict (this table's figures) | 39.2 min | 63.3 min | 219 / 230 | $0.124 |

- **Where the money goes**: model turns. The evaluator sessions were the dearer half: 7.6 turns a session at 4 lanes
  when the simulated evaluator sent one browser action a reply (a sign-up took five) and closed with a reply after
  its verdicts. Now it sends a form's fields and its button in one reply, as models do when the refs are on one
  snapshot (the evaluator prompt says it may), and the harness ends an evaluator session once its last verdict is
  in: 5.9–6.9 turns a session, 35 % fewer requests than the first night. The generators' 3.6–4.1 turns are about
  the loop's 5.3 a session less its self-check; the 3 false fails each still cost a generator and an evaluator.
- **What the target asks**: 4 lanes need at least 5 rounds of generator and evaluator for these 12 features (the
  longest \`depends_on\` chain: sign-up, my recipes, new recipe, recipe page, edit recipe), so lanes can at best
  make the night 2.4× shorter than 1 lane; 4× the loop then needs 1 lane within 0.6× of the loop's time, and
  nightshift does a feature as a generator and an independent evaluator where the loop has one session. On all 50
  features the graph allows 3.6× at 4 lanes (14 rounds), so the target would still need 1 lane within 0.9× of
  the loop: an evaluation that costs next to no model turns. 0.52× is where the 12-feature night stands.
- **A false pass, found and fixed** (earlier the same day): before the recorded checks pinned the page they end
  on, the 1-lane night ended 11 of 12 working with 12 claimed: F-006's check expected the text "My recipes",
  which the home page's menu also shows, so F-008's planted regression of F-006 stayed green. The recorder now
  also keeps the heading named exactly as a quoted text and the URL path the evidence names
  (\`checks/recorder-place.ts\`); every night since catches that regression with the recorded check.
- **Compression**: at 100× a turn is ~0.08 s while an app start or a merge takes seconds uncompressed, so the lanes'
  model waits rarely coincide and the projection adds them almost end to end (4 lanes 69.5 min against 1 lane's
  89.9 at 100×, before the changes above); 10× is the figure to compare, and a real night overlaps more still.
`;
