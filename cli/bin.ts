import { main } from './main.js';

// Entry of the CLI (bin/nightshift.js) and of the demo's child processes (`node --import tsx cli/bin.ts …`).
process.exitCode = await main(process.argv);
