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

/** What the first meal-planner night showed beyond its figures (read from its run's verdicts and logs, 2026-12-02). */
export const MEAL_PLANNER_NIGHT_NOTES = `What the first meal-planner night (3 features, load 22–31 on 2 cores) showed
beyond the table:

- **The one block is a false block by the grounding guard** (\`evaluation/grounding.ts\`), at both lane counts:
  F-003 (log in) passed the browser check every time, and every pass was turned into \`blocked\` ("ungrounded pass:
  … your evidence quotes "not-the-password", which the page showed only in a field you typed it into"). The guard
  counts one action per verb of a step ("Sign up as a new user" is one action; the evaluator's sign-up is six), so
  its cursor trails the session and a later step's typed text falls outside the actions it credits to that step.
  At 4 lanes the blocked feature's code stays in its lane, so the judge of the final code counts it as not working
  (0 false blocks by that count); it is the same false block.
- **The run lock expired under load**: with the event loop starved (load ~30), the run lock was not renewed in
  time and an evaluator was stopped mid-check ("run lock lost: stopping the session"), ending without a verdict —
  two more \`blocked\` verdicts on F-001 at 1 lane before it passed.
- **Model wait is measured on a starved machine**: a request's span includes the client's own event-loop delay,
  and the projection multiplies it by the compression, so at this load the projected walls are upper bounds.
- Three chained features (F-002 needs F-001, F-003 both) leave 4 lanes nothing to run side by side; the 4-lane
  figures here are the lanes' overhead, not their speed-up. A run of 12 or more features was not reached in the
  time of this session.
`;
