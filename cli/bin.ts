import { armExitWatchdog } from './exit-watchdog.js';
import { main } from './main.js';

// Entry of the CLI (bin/nightshift.js) and of the demo's child processes (`node --import tsx cli/bin.ts …`).
process.exitCode = await main(process.argv);
// Whatever a failed path left open cannot keep the process alive for ever after its command ended.
armExitWatchdog(process.exitCode);
