import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The web UI (`difftry ui`): built into dist/web, which ships in the package so `npx difftry ui`
// needs no build step. The models run in the browser from the repository's own src/ (model,
// spec, sim and the timeouts experiment are browser-safe; test/package/browserModel.test.ts).
const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: './',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 2048,
    rollupOptions: {
      onwarn(warning, warn) {
        // hdr-histogram-js (the simulator's histograms) carries a direct eval in its UMD build;
        // the page never reaches it (no WebAssembly mode), and the warning is not ours to fix.
        if (warning.code === 'EVAL' && warning.id?.includes('hdr-histogram-js')) return;
        warn(warning);
      },
    },
  },
  worker: { format: 'es' },
});
