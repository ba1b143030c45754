/**
 * How long each entry point of the built package takes to import in a fresh Node process, beside
 * two peers measured the same way: the fetch adapter's module alone (the least a user of
 * `difftry` can load) and `undici`, the HTTP client the runtime builds on. Also counts each
 * entry's value exports (what `import * as m` holds, types aside).
 *
 * Each entry is the file package.json `exports` maps it to (so `difftry/spec` and
 * `difftry/config` are both `dist/config/index.js`, and are timed once), and `difftry`,
 * `difftry/spec` and `difftry/mesh` are also given as a ratio to undici (issue 29's target for
 * `difftry/spec`: ≤ 1).
 *
 * The package is compiled (tsconfig.build.json) into node_modules/.cache/difftry-bench-dist-PID,
 * a folder per run, so its imports resolve through the repository's node_modules; each figure is
 * the median of RUNS fresh processes, timed inside the process (`performance.now()` around the
 * dynamic import), the specifiers taken in turn in each round.
 *
 * Run alone with `npx tsx bench/importTime.ts`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, report } from './harness.js';

const RUNS = 9;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** This run's own folder: two runs at once (two engineers, one checkout) must not share one. */
const OUT = `${ROOT}node_modules/.cache/difftry-bench-dist-${process.pid}`;

/** The package's entry points measured, by their names in package.json `exports`. */
const ENTRIES: readonly string[] = [
  'difftry',
  'difftry/model',
  'difftry/sim',
  'difftry/config',
  'difftry/spec',
  'difftry/mesh',
  'difftry/grpc',
  'difftry/xds',
];
/** Entries whose import time is also given as a ratio to undici's. */
const RATIOS: readonly string[] = ['difftry', 'difftry/spec', 'difftry/mesh'];
const FETCH_ADAPTER = 'runtime/fetch.js';

/**
 * The file under OUT that `entry` resolves to in Node, as package.json `exports` maps it (its
 * `default` condition, `./dist/…`): read from the package, not restated here, so that a renamed
 * folder cannot leave the bench measuring a file that no longer exists.
 */
function entryFile(entry: string): string {
  const manifest = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
    name: string;
    exports: Record<string, { default?: string }>;
  };
  const key = entry === manifest.name ? '.' : `./${entry.slice(manifest.name.length + 1)}`;
  const target = manifest.exports[key]?.default;
  if (target === undefined || !target.startsWith('./dist/')) {
    throw new Error(`package.json exports has no ./dist/ default for ${entry} (${key})`);
  }
  return target.slice('./dist/'.length);
}

/** Milliseconds to import `specifier` in a fresh process, and its number of value exports. */
function importOnce(specifier: string): { ms: number; values: number } {
  const script = `const t = performance.now(); const m = await import(${JSON.stringify(specifier)}); const ms = performance.now() - t; console.log(JSON.stringify({ ms, values: Object.keys(m).length }));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(out) as { ms: number; values: number };
}

/**
 * The median import time (ms) and value exports of each specifier: one warm-up import each (the
 * file system cache), then RUNS rounds, each importing every specifier once in a rotating order,
 * so that a drift of the machine's speed touches them alike (the ratios are read in one run).
 */
function measureAll(specifiers: readonly string[]): Map<string, { ms: number; values: number }> {
  const samples = new Map<string, number[]>(specifiers.map((s) => [s, []]));
  const values = new Map<string, number>();
  for (const specifier of specifiers) values.set(specifier, importOnce(specifier).values);
  for (let round = 0; round < RUNS; round++) {
    for (let i = 0; i < specifiers.length; i++) {
      const specifier = specifiers[(round + i) % specifiers.length] as string;
      samples.get(specifier)?.push(importOnce(specifier).ms);
    }
  }
  return new Map(
    specifiers.map((s) => [s, { ms: median(samples.get(s) ?? []), values: values.get(s) ?? 0 }]),
  );
}

export async function run(): Promise<void> {
  try {
    execFileSync(
      process.execPath,
      [`${ROOT}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json', '--outDir', OUT],
      { cwd: ROOT, stdio: 'inherit' },
    );
    report(
      `Import time of each entry, fresh process (median of ${RUNS} rounds), built package`,
      importTimes(),
    );
  } finally {
    rmSync(OUT, { recursive: true, force: true });
  }
}

/** The report's lines: each entry, the peers, and the ratios to undici. */
function importTimes(): [string, string][] {
  const file = (path: string) => pathToFileURL(`${OUT}/${path}`).href;
  const paths = new Map(ENTRIES.map((entry) => [entry, entryFile(entry)]));
  const fetchAdapter = file(FETCH_ADAPTER);
  const measured = measureAll([
    'undici',
    fetchAdapter,
    ...new Set([...paths.values()].map((path) => file(path))),
  ]);
  const of = (specifier: string) => measured.get(specifier) ?? { ms: Number.NaN, values: 0 };
  const undici = of('undici').ms;
  const lines: [string, string][] = [];
  for (const [entry, path] of paths) {
    const { ms, values } = of(file(path));
    lines.push([
      `${entry} (dist/${path})`,
      `${ms.toFixed(1).padStart(6)} ms   ${String(values).padStart(3)} values`,
    ]);
  }
  lines.push(['peer: the fetch adapter alone', `${of(fetchAdapter).ms.toFixed(1).padStart(6)} ms`]);
  lines.push(['peer: undici', `${undici.toFixed(1).padStart(6)} ms`]);
  for (const entry of RATIOS) {
    const ms = of(file(paths.get(entry) ?? '')).ms;
    lines.push([`ratio ${entry} / undici`, `${(ms / undici).toFixed(2)}×`]);
  }
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
