import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { repositoryPath, webAliases } from './packageSources.js';

// The web UI (`difftry ui`): built into dist/web, which ships in the package so `npx difftry ui`
// needs no build step. The page imports the library through the package's public subpaths,
// resolved to the repository's src/ (packageSources.ts), and runs the models in the browser:
// no Node built-in may enter its graph (noNodeBuiltins).

const BUILTINS = new Set(builtinModules);

/**
 * Fails the build on the first Node built-in (`node:fs`, `fs`, …) anything in the page's graph
 * imports, naming the importer: vite would only warn and put an empty module in its place.
 */
function noNodeBuiltins(): Plugin {
  return {
    name: 'difftry:no-node-builtins',
    enforce: 'pre',
    resolveId(id, importer) {
      const name = id.startsWith('node:') ? id.slice('node:'.length) : id;
      if (id.startsWith('node:') || BUILTINS.has(name.split('/')[0] as string)) {
        this.error(`the page imports Node built-in ${id} (from ${importer ?? 'the entry'})`);
      }
      return null;
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  logLevel: 'warn',
  resolve: { alias: webAliases() },
  plugins: [noNodeBuiltins()],
  build: {
    outDir: repositoryPath('dist/web'),
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
  worker: { format: 'es', plugins: () => [noNodeBuiltins()] },
});
