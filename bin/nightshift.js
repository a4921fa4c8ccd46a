#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx's loader: one artefact to ship, no stale build output.
// docs/architecture.md says why (and how `npm run build` still type-checks and bundles the dashboard UI).
import { register } from 'tsx/esm/api';

register();
await import('../cli/bin.ts');
