/**
 * Writes examples/latencies.csv, the sample file of `difftry timeouts fit`: 2,000 latencies (s)
 * drawn from a bimodal law, 70 % lognormal with median 0.1 s and 30 % lognormal with median
 * 0.5 s (σ = 0.25 on ln latency for both), from seededRandom(20261129), to 6 significant digits.
 *
 * Run with `npx tsx scripts/generate-latencies.ts`; the same file on every run and machine (a
 * test regenerates it and compares).
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { seededRandom } from '../src/model/random.js';

export const LATENCIES_SEED = 20261129;

/** The text of examples/latencies.csv: a header line, then one latency a line. */
export function latencyExampleCsv(count = 2000, seed = LATENCIES_SEED): string {
  const random = seededRandom(seed);
  const lines = ['latency_s'];
  for (let i = 0; i < count; i++) {
    const median = random() < 0.7 ? 0.1 : 0.5;
    // Box–Muller: one standard normal per draw.
    const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    lines.push(String(Number((median * Math.exp(0.25 * normal)).toPrecision(6))));
  }
  return `${lines.join('\n')}\n`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const target = new URL('../examples/latencies.csv', import.meta.url);
  writeFileSync(target, latencyExampleCsv());
  process.stderr.write(`wrote ${target.pathname}\n`);
}
