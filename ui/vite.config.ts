// Builds the web UI (issue 18) into dist/ui, which the services serve at /ui/
// (src/kernel/http/ui.ts). Hashed file names under assets/ let them be cached for good.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/ui/',
  plugins: [react()],
  build: {
    outDir: '../dist/ui',
    emptyOutDir: true,
    assetsDir: 'assets',
    // No inline data: URLs for scripts; small assets as files too, under the CSP's 'self'.
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
