/**
 * The loop closed (issue 28, docs/traces.md): runs hotelReservation (call-graph form) on the live
 * testbed at three loads with every request traced through the runtime library's OpenTelemetry
 * output, rebuilds the network with `difftry from-traces`' inference, and prints, per load: the
 * call graph against the file's, arrival rates against those sent, capacities against the
 * testbed's calibrated ones, and the analysis of the inferred network against the measured
 * per-class rejection.
 *
 *   npx tsx scripts/traces-loop.ts [--loads 0.5,0.8,1] [--duration 30] [--warmup 8] [--seed 1]
 *                                  [--example hotel-calls] [--markdown FILE]
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { builtinExample } from '../src/config/examples.js';
import { parseNetwork } from '../src/config/parseNetwork.js';
import { closedLoopPoint, type LoopPoint } from '../src/experiments/traces/closedLoop.js';

const { values } = parseArgs({
  options: {
    loads: { type: 'string', default: '0.5,0.8,1' },
    duration: { type: 'string', default: '30' },
    warmup: { type: 'string', default: '8' },
    seed: { type: 'string', default: '1' },
    example: { type: 'string', default: 'hotel-calls' },
    markdown: { type: 'string' },
  },
});
const { fileName, text } = builtinExample(values.example);
const network = parseNetwork(text, fileName);
const loads = values.loads.split(',').map(Number);
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const rel = (a: number, b: number) => `${(100 * (a / b - 1)).toFixed(1)} %`;

const points: LoopPoint[] = [];
for (const load of loads) {
  const dir = await mkdtemp(join(tmpdir(), 'difftry-loop-'));
  try {
    process.stderr.write(`load ×${load}: running the testbed (${values.duration} s window)…\n`);
    points.push(
      await closedLoopPoint(network, load, {
        seed: Number(values.seed),
        warmupS: Number(values.warmup),
        durationS: Number(values.duration),
        traces: dir,
      }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const lines: string[] = [];
for (const point of points) {
  lines.push(`### Load ×${point.load} (${point.spans.toLocaleString('en-US')} spans)`, '');
  const g = point.callGraph;
  lines.push(
    `Call graph: ${g.sameEdges ? 'the same edges as the file' : `differs: missing ${g.missing.join(', ') || 'none'}; extra ${g.extra.join(', ') || 'none'}`}; largest gap in a call set's share ${g.largestShareGap.toFixed(4)}.`,
    '',
    '| class | measured rejection | inferred network, analysed | gap | file + calibrated μ, analysed |',
    '| :--- | ---: | ---: | ---: | ---: |',
  );
  for (const c of point.classes) {
    lines.push(
      `| ${c.name} | ${pct(c.measured)} ± ${pct(c.measuredCi95)} | ${pct(c.inferred)} | ${(c.inferred - c.measured).toFixed(3)} | ${pct(c.predicted)} |`,
    );
  }
  lines.push(
    '',
    '| entry | class | sent/s | inferred/s | error |',
    '| :--- | :--- | ---: | ---: | ---: |',
  );
  for (const a of point.arrivals) {
    lines.push(
      `| ${a.entry} | ${a.className} | ${a.sent.toFixed(2)} | ${a.inferred.toFixed(2)} | ${rel(a.inferred, a.sent)} |`,
    );
  }
  lines.push(
    '',
    '| service | calibrated μ | inferred μ | error | spans | ± (95 %, 1.96/√spans) |',
    '| :--- | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const c of point.capacities) {
    lines.push(
      `| ${c.service} | ${c.calibrated.toFixed(2)} | ${c.inferred.toFixed(2)} | ${rel(c.inferred, c.calibrated)} | ${c.spans.toLocaleString('en-US')} | ${((100 * 1.96) / Math.sqrt(c.spans)).toFixed(0)} % |`,
    );
  }
  lines.push('');
}
const capacityMisses = points.flatMap((p) =>
  p.capacities
    .filter((c) => Math.abs(c.inferred / c.calibrated - 1) > 0.1)
    .map((c) => `${c.service} at ×${p.load} (${rel(c.inferred, c.calibrated)}, ${c.spans} spans)`),
);
lines.push(
  `Capacities more than 10 % from the calibrated ones: ${capacityMisses.length === 0 ? 'none' : capacityMisses.join('; ')}.`,
);
const worstArrival = Math.max(
  ...points.flatMap((p) => p.arrivals.map((a) => Math.abs(a.inferred / a.sent - 1))),
);
lines.push(`Worst arrival-rate error: ${(100 * worstArrival).toFixed(1)} % (target ≤ 5 %).`);
const worst = Math.max(
  ...points.flatMap((p) => p.classes.map((c) => Math.abs(c.inferred - c.measured))),
);
lines.push(
  `Worst gap between the inferred network's analysis and the measured rejection: ${worst.toFixed(3)} (target ≤ 0.05).`,
);
const report = `${lines.join('\n')}\n`;
process.stdout.write(report);
if (values.markdown !== undefined) await writeFile(values.markdown, report);
