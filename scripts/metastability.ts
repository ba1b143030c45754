/**
 * Re-creates docs/metastability.md, its CSV files (metastability.csv, metastability-branches.csv)
 * and its charts (metastability.svg, metastability-loop.svg, metastability-hotel.svg): metastable
 * failures with per-try timeouts, the analysis's two equilibria beside the simulator's runs.
 * Run with `npm run metastability` (about a minute on 2 cores); progress goes to stderr.
 *
 * The networks and schedules are the example files the page names, so that each figure can also
 * be re-created with `difftry analyze` / `difftry simulate` (same seed, same streams).
 */
import { writeFileSync } from 'node:fs';
import {
  builtinExample,
  loadNetworkFile,
  loadScheduleFile,
  parseNetwork,
  toNetworkModel,
} from '../src/config/index.js';
import type { MetastabilityConfig } from '../src/experiments/metastability/MetastabilityConfig.js';
import { runMetastability } from '../src/experiments/metastability/metastabilityExperiment.js';
import { renderMetastability } from '../src/experiments/metastability/metastabilityReport.js';

const SEED = 12;
const REPLICATIONS = 20;
const example = (file: string) => new URL(`../examples/${file}`, import.meta.url).pathname;

const started = performance.now();
const elapsed = () => ((performance.now() - started) / 1000).toFixed(1);

const single = await loadNetworkFile(example('metastable-classes.yaml'));
const singleModel = toNetworkModel(single);
const hotelFile = builtinExample('hotel-calls');
const hotel = parseNetwork(hotelFile.text, hotelFile.fileName);
const loop = await loadScheduleFile(example('load-loop.yaml'), singleModel);
const turn = loop.changes[0]?.until;
if (turn === undefined) throw new RangeError('examples/load-loop.yaml: expected a ramp up first');

const config: MetastabilityConfig = {
  seed: SEED,
  replications: REPLICATIONS,
  single,
  drop: await loadScheduleFile(example('capacity-drop.yaml'), singleModel),
  lightDrop: await loadScheduleFile(example('capacity-drop-light.yaml'), singleModel),
  dropRun: { duration: 300, windowSeconds: 5, tailSeconds: 50 },
  loop,
  loopRun: { duration: 600, windowSeconds: 10, turn },
  loopSweep: Array.from({ length: 141 }, (_, i) => 10 + i / 2),
  hotel,
  hotelSchedule: await loadScheduleFile(example('hotel-frontend-drop.yaml'), toNetworkModel(hotel)),
  hotelRun: { duration: 300, windowSeconds: 10, tailSeconds: 50 },
  hotelAnalysisTimeoutsMs: [100, 200, 300, 500],
  hotelSimulatedTimeoutsMs: [100, 200, 300],
  hotelSweep: Array.from({ length: 51 }, (_, i) => 5 * i),
  hotelTuneTimeoutMs: 200,
  tuneMaxRetries: 5,
  onProgress: (message) => process.stderr.write(`${elapsed()} s  ${message}\n`),
};

const result = runMetastability(config);
const files = renderMetastability(result, config, {
  seconds: (performance.now() - started) / 1000,
  command: 'npm run metastability',
});
for (const [name, text] of Object.entries(files)) {
  writeFileSync(new URL(`../docs/${name}`, import.meta.url), text);
}
process.stderr.write(`wrote docs/${Object.keys(files).join(', docs/')} in ${elapsed()} s\n`);
