import { builtinModules } from 'node:module';
import { build, type Plugin } from 'vite';
import { describe, expect, it } from 'vitest';
import { PACKAGE_SOURCES } from '../../web/packageSources.js';

// The web UI runs the model in the browser, so `difftry/model` (the solvers,
// the timeout model) must import no Node built-in, directly or through a dependency. It is
// bundled here for the browser by vite (as the UI will be), with a resolver that fails the build
// on the first `node:` module or bare built-in name.

const BUILTINS = new Set(builtinModules);

/** Fails a bundle that reaches a Node built-in, naming it and its importer. */
function noNodeBuiltins(): Plugin {
  return {
    name: 'difftry:no-node-builtins',
    enforce: 'pre',
    resolveId(id, importer) {
      const name = id.startsWith('node:') ? id.slice('node:'.length) : id;
      if (id.startsWith('node:') || BUILTINS.has(name.split('/')[0] as string)) {
        throw new Error(`Node built-in ${id} imported by ${importer ?? 'the entry'}`);
      }
      return null;
    },
  };
}

/** Bundles `entry` for the browser in memory; resolves to the size of the code. */
async function browserBundle(entry: string): Promise<number> {
  const result = await build({
    configFile: false,
    logLevel: 'silent',
    build: {
      write: false,
      minify: false,
      lib: { entry, formats: ['es'], fileName: 'bundle' },
    },
    plugins: [noNodeBuiltins()],
  });
  const outputs = Array.isArray(result) ? result : [result];
  let size = 0;
  for (const output of outputs) {
    if (!('output' in output)) continue;
    for (const chunk of output.output) if (chunk.type === 'chunk') size += chunk.code.length;
  }
  return size;
}

describe('difftry/model in a browser bundle', () => {
  it('bundles with no Node built-in anywhere in its graph', async () => {
    expect(await browserBundle('src/model/index.ts')).toBeGreaterThan(10_000);
  });

  // Every subpath the web UI (web/) imports in the page and its worker, at the source its build
  // resolves it to (`difftry/spec`: its browser entry). `difftry/ui` holds types only: no code.
  const typesOnly = new Set(['difftry/ui']);
  it.each(Object.entries(PACKAGE_SOURCES))(
    '%s (%s) bundles with no Node built-in either',
    async (subpath, entry) => {
      const size = await browserBundle(entry);
      expect(size).toBeGreaterThanOrEqual(typesOnly.has(subpath) ? 0 : 1_000);
    },
  );

  it('is checked by a bundler that does fail on a Node built-in', async () => {
    // The request context needs node:async_hooks: a check that let it through would prove nothing.
    await expect(browserBundle('src/runtime/context.ts')).rejects.toThrow(
      'Node built-in node:async_hooks',
    );
  });
});
