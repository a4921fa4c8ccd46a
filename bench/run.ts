/**
 * `npm run bench`: measures the harness against the DESIGN.md performance targets and writes
 * bench/results/latest.json and docs/benchmarks.md. Options: `--quick` (fewer repetitions),
 * `--report-only` (re-render the Markdown from latest.json), `--only demo,evaluator,app-start,scale,dashboard` (measure those
 * sections, keep the others from latest.json), `--recovery workers,sentinel` (the parts of the recovery section to
 * measure: worker kills, Redis master kills under Sentinel). Needs Redis and Chromium; ~10–15 min on 2 cores for all of it.
 */
// Harness logs would drown the progress lines; the logger reads the level when the modules load.
process.env.NIGHTSHIFT_LOG_LEVEL ??= 'warn';
const { main } = await import('./main.js');
await main(process.argv.slice(2));
