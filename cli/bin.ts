import { main } from './main.js';

// Entry for child processes started with `node --import tsx cli/bin.ts …` (the demo's worker and dashboard).
// Short commands stay quiet unless asked; a worker's log is its record.
process.env.NIGHTSHIFT_LOG_LEVEL ??= process.argv[2] === 'worker' ? 'info' : 'warn';
process.exitCode = await main(process.argv);
