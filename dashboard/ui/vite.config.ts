import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = path.dirname(fileURLToPath(import.meta.url));

// The dashboard UI: plain TypeScript, bundled to dashboard/ui/dist with no inline script (the CSP forbids it).
export default defineConfig({
  root,
  base: '/',
  logLevel: 'warn',
  publicDir: false,
  build: {
    outDir: path.join(root, 'dist'),
    emptyOutDir: true,
    modulePreload: false,
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
  },
});
