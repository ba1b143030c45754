/**
 * The sidecar the bench runs (bench/sidecar.ts): compiled to plain JavaScript first, as the
 * package ships it (`difftry proxy` runs the tsc build), rather than through tsx. tsx compiles
 * with esbuild's `keepNames`, which wraps every named function made at run time in a `__name(…)`
 * call that sets its `name`: on the request path (a closure per request, per attempt, per timer)
 * that cost about 8 % of the sidecar's CPU in profiles, a cost the shipped package never pays and
 * http-proxy (plain JavaScript from node_modules) is not charged. The mesh entry is bundled with
 * its packages left external, so they load from node_modules as in the package.
 */

import { mkdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT_DIR = `${ROOT}node_modules/.cache/difftry-bench-sidecar`;

/** How the bench runs the sidecar: compiled (the default) or from source through tsx. */
export type SidecarBuild = 'compiled' | 'tsx';

/**
 * The build the environment asks for: `DIFFTRY_BENCH_SIDECAR=tsx` runs the sources through tsx
 * as before (to compare); anything else, the compiled sidecar.
 */
export function sidecarBuild(): SidecarBuild {
  return process.env.DIFFTRY_BENCH_SIDECAR === 'tsx' ? 'tsx' : 'compiled';
}

/**
 * The URL of the module a sidecar process imports `startSidecar` from: src/mesh/index.ts
 * bundled to one ES module (esbuild, which tsx itself is built on; no `keepNames`, no minifying),
 * or the source itself for `tsx`.
 */
export async function sidecarModule(build: SidecarBuild): Promise<string> {
  const source = `${ROOT}src/mesh/index.ts`;
  if (build === 'tsx') return pathToFileURL(source).href;
  const { build: bundle } = await import('esbuild');
  mkdirSync(OUT_DIR, { recursive: true });
  const outfile = `${OUT_DIR}/mesh.mjs`;
  await bundle({
    entryPoints: [source],
    outfile,
    bundle: true,
    // Dynamic imports of the entry's own files are bundled too (no code splitting).
    splitting: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  return pathToFileURL(outfile).href;
}
