import { armExitWatchdog } from './exit-watchdog.js';
import { main } from './main.js';

// Entry of the CLI (bin/nightshift.js) and of the demo's child processes (`node --import tsx cli/bin.ts …`).
const exitCode = await main(process.argv);
process.exitCode = exitCode;
// Whatever a failed path left open cannot keep the process alive for ever after its command ended.
armExitWatchdog(exitCode);
