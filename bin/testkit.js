#!/usr/bin/env node
// The testkit's scripted model server as a process: `bin/testkit.js <policy-module> [--latency-ms N] [--port N]`.
// The policy module is bundled with the server (bin/entry-bundle.js), so both share one copy of every module.
import { existsSync } from 'node:fs';
import { importEntries } from './entry-bundle.js';

const argv = process.argv.slice(2);
const policyPath = argv.find((argument) => !argument.startsWith('-'));
if (policyPath && existsSync(policyPath)) {
  const [testkit, policy] = await importEntries(['testkit/main.ts', policyPath]);
  testkit.runAsEntry(argv, { policyModule: policy });
} else {
  const [testkit] = await importEntries(['testkit/main.ts']);
  testkit.runAsEntry(argv);
}
