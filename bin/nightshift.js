#!/usr/bin/env node
// Runs the TypeScript sources: from a bundle remade whenever a source changes, or through tsx's loader
// (bin/entry-bundle.js; docs/architecture.md says why, and how `npm run build` still type-checks).
import { importEntries } from './entry-bundle.js';

await importEntries(['cli/bin.ts']);
