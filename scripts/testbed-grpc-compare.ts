/**
 * `npm run testbed:grpc:compare`: the four recorded Figure 5 sweeps of docs/testbed-grpc.md side
 * by side, as Markdown on stdout — HTTP sidecars and gRPC xDS retries, each with the random
 * 500 ms delay and Envoy's 25 ms base backoff: per point and class the gap measured − predicted
 * (call graph, percentage points; how far the analysis's independence assumption holds at each
 * delay), and the heaviest point's latency. Reads the runs' CSVs; writes nothing.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The recorded runs: label, folder under docs/testbed-grpc. */
const RUNS = [
  { label: 'HTTP, 500 ms', dir: 'http' },
  { label: 'gRPC, 500 ms', dir: '.' },
  { label: 'HTTP, 25 ms', dir: 'backoff-25ms/http' },
  { label: 'gRPC, 25 ms', dir: 'backoff-25ms' },
] as const;

type Row = Record<string, string>;

async function rows(dir: string): Promise<Row[]> {
  const text = await readFile(join('docs', 'testbed-grpc', dir, 'testbed-fig5.csv'), 'utf8');
  const [head, ...lines] = text.trim().split('\n');
  const fields = (head ?? '').split(',');
  return lines.map((line) => {
    const cells = line.split(',');
    return Object.fromEntries(fields.map((f, i) => [f, cells[i] ?? '']));
  });
}

const key = (r: Row) => `${r.gammaLow}|${r.k}|${r.className}`;
const points = (x: string) => (100 * Number(x)).toFixed(1);
const signed = (x: string) => {
  const v = 100 * Number(x);
  return `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(1)}`;
};

const runs = await Promise.all(RUNS.map(async (run) => ({ ...run, rows: await rows(run.dir) })));
const first = runs[0]?.rows ?? [];
const out: string[] = [];
out.push(
  `| γ_low | k | class | ${runs.map((r) => `${r.label}: measured / predicted %, gap`).join(' | ')} |`,
  `| ---: | :--- | :--- | ${runs.map(() => '---:').join(' | ')} |`,
);
for (const row of first) {
  const cells = runs.map((run) => {
    const r = run.rows.find((x) => key(x) === key(row));
    return r === undefined
      ? '—'
      : `${points(r.measured as string)} / ${points(r.predictedCalls as string)}, ${signed(r.gapCalls as string)}`;
  });
  out.push(
    `| ${row.gammaLow} | (${(row.k as string).replace('/', ', ')}) | ${row.className} | ${cells.join(' | ')} |`,
  );
}
out.push(
  '',
  '| run | largest \\|gap\\| (points) | class-points outside 3 points | mean \\|gap\\| where predicted ≥ 1 % |',
  '| :--- | ---: | ---: | ---: |',
);
for (const run of runs) {
  const gaps = run.rows.map((r) => Math.abs(Number(r.gapCalls)));
  const loaded = run.rows
    .filter((r) => Number(r.predictedCalls) >= 0.01)
    .map((r) => Math.abs(Number(r.gapCalls)));
  out.push(
    `| ${run.label} | ${(100 * Math.max(...gaps)).toFixed(1)} | ${gaps.filter((g) => g > 0.03).length} of ${gaps.length} | ${((100 * loaded.reduce((a, b) => a + b, 0)) / loaded.length).toFixed(1)} |`,
  );
}
const heaviest = Math.max(...first.map((r) => Number(r.gammaLow)));
out.push(
  '',
  `Latency at γ_low = ${heaviest} (successful requests, ms: p50 / p99):`,
  '',
  `| k | class | ${runs.map((r) => r.label).join(' | ')} |`,
  `| :--- | :--- | ${runs.map(() => '---:').join(' | ')} |`,
);
for (const row of first.filter((r) => Number(r.gammaLow) === heaviest)) {
  const cells = runs.map((run) => {
    const r = run.rows.find((x) => key(x) === key(row));
    return r === undefined
      ? '—'
      : `${Math.round(1000 * Number(r.latencyP50))} / ${Math.round(1000 * Number(r.latencyP99))}`;
  });
  out.push(
    `| (${(row.k as string).replace('/', ', ')}) | ${row.className} | ${cells.join(' | ')} |`,
  );
}
console.log(out.join('\n'));
