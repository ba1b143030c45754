/**
 * How long each entry point of the built package takes to import in a fresh Node process, beside
 * two peers measured the same way: the fetch adapter's module alone (the least a user of
 * `difftry` can load) and `undici`, the HTTP client the runtime builds on. Also counts each
 * entry's value exports (what `import * as m` holds, types aside).
 *
 * The package is compiled (tsconfig.build.json) into node_modules/.cache/difftry-bench-dist, so
 * its imports resolve through the repository's node_modules; each figure is the median of RUNS
 * fresh processes, timed inside the process (`performance.now()` around the dynamic import).
 *
 * Run alone with `npx tsx bench/importTime.ts`.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, report } from './harness.js';

const RUNS = 9;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = `${ROOT}node_modules/.cache/difftry-bench-dist`;

/** The package's entry points (package.json `exports`) and the peers, as files under OUT. */
const ENTRIES: readonly (readonly [string, string])[] = [
  ['difftry', 'index.js'],
  ['difftry/model', 'model/index.js'],
  ['difftry/sim', 'sim/index.js'],
  ['difftry/spec', 'spec/index.js'],
  ['difftry/mesh', 'mesh/index.js'],
  ['difftry/grpc', 'runtime/grpc.js'],
  ['difftry/xds', 'xds/index.js'],
];
const FETCH_ADAPTER = 'runtime/fetch.js';

/** Milliseconds to import `specifier` in a fresh process, and its number of value exports. */
function importOnce(specifier: string): { ms: number; values: number } {
  const script = `const t = performance.now(); const m = await import(${JSON.stringify(specifier)}); const ms = performance.now() - t; console.log(JSON.stringify({ ms, values: Object.keys(m).length }));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(out) as { ms: number; values: number };
}

function measure(specifier: string): { ms: number; values: number } {
  importOnce(specifier); // warm the file system cache
  const runs = Array.from({ length: RUNS }, () => importOnce(specifier));
  return { ms: median(runs.map((r) => r.ms)), values: runs[0]?.values ?? 0 };
}

export async function run(): Promise<void> {
  rmSync(OUT, { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [`${ROOT}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json', '--outDir', OUT],
    { cwd: ROOT, stdio: 'inherit' },
  );
  const file = (path: string) => pathToFileURL(`${OUT}/${path}`).href;
  const fetchAdapter = measure(file(FETCH_ADAPTER));
  const undici = measure('undici');
  const lines: [string, string][] = [];
  let root = 0;
  for (const [name, path] of ENTRIES) {
    const { ms, values } = measure(file(path));
    if (name === 'difftry') root = ms;
    lines.push([name, `${ms.toFixed(1).padStart(6)} ms   ${String(values).padStart(3)} values`]);
  }
  lines.push(['peer: the fetch adapter alone', `${fetchAdapter.ms.toFixed(1).padStart(6)} ms`]);
  lines.push(['peer: undici', `${undici.ms.toFixed(1).padStart(6)} ms`]);
  lines.push(['ratio difftry / undici', `${(root / undici.ms).toFixed(2)}×`]);
  report(`Import time of each entry, fresh process (median of ${RUNS}), built package`, lines);
  rmSync(OUT, { recursive: true, force: true });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
