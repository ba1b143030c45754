/**
 * How often a dashboard's window reads a storm at a fixed load: the orbit law's `windowReading`
 * (the window's request count and the state's swing of its failed share) beside the simulator.
 * The ramp validation (scripts/tipping-recovery.ts) integrates these chances along a ramp; this
 * checks them one load at a time, where nothing moves.
 *
 * On the services of src/experiments/tipping/tippingCases.ts, at the loads where the law's lowest
 * state fails 5 %, 15 % and 30 % of the high class's requests (bisected on the total load):
 * simulated runs started idle (windows of 5 s after a warm-up), the share of their windows whose
 * high-class rejection is above ½, their mean and standard deviation, beside the law: R, the
 * chance a window reads above ½, the same with the count's scatter alone, and the spread of a
 * window's share (latent swing and count) — where the law has two states, each state's figure
 * weighted by the share of the runs' window it holds (`runShares`, from the escape times). A
 * bistable service's healthy state fails next to nothing until it vanishes: there, 0.85, 0.9 and
 * 0.95 of that load.
 *
 * Writes docs/validation-windows.md (`npm run validate:windows`, a few minutes on 2 cores);
 * `-- --quick` runs two services for 300 s and writes nothing. Progress goes to stderr.
 */
import { writeFileSync } from 'node:fs';
import { toNetworkModel } from '../src/config/index.js';
import type { NetworkSpec } from '../src/config/schema.js';
import { STORM_ABOVE } from '../src/experiments/metastability/stormWindows.js';
import { toNetworkSimulationOptions } from '../src/experiments/simulation/networkSimulationOptions.js';
import {
  asMm1m,
  atRate,
  meanField,
  tippingCases,
} from '../src/experiments/tipping/tippingCases.js';
import { analyzeNetwork } from '../src/model/network/analyzeNetwork.js';
import type { NetworkModel } from '../src/model/network/NetworkModel.js';
import { runShares } from '../src/model/network/runShares.js';
import { windowReading } from '../src/model/network/windowReading.js';
import { windowAverageVariance } from '../src/model/numeric/birthDeathFluctuation.js';
import { simulateNetwork } from '../src/sim/network/simulateNetwork.js';

const quick = process.argv.includes('--quick');
const SEED = 2033;
const WINDOW = 5;
const DURATION = quick ? 300 : 2000;
const WARMUP = 100;
const REPLICATIONS = quick ? 1 : 4;
/** The law's high-class rejections whose loads are checked. */
const TARGETS = [0.05, 0.15, 0.3];
/** Where no load gives them: these shares of the load at which the healthy state vanishes. */
const BELOW_VANISHING = [0.85, 0.9, 0.95];
/** Bisections of the load for each target. */
const BISECTIONS = 14;

const started = performance.now();
const progress = (message: string) =>
  process.stderr.write(`${((performance.now() - started) / 1000).toFixed(1)} s  ${message}\n`);

interface Row {
  readonly name: string;
  readonly load: number;
  readonly states: number;
  readonly lawR: number;
  readonly lawAbove: number;
  readonly countOnly: number;
  readonly lawSpread: number;
  readonly simR: number;
  readonly simAbove: number;
  readonly simSpread: number;
  /**
   * `windowReading` fed the runs' own R and swing (their spread less the count's binomial part):
   * the reading's machinery checked apart from the law's figures.
   */
  readonly atSimulated: number;
  readonly windows: number;
}

/** The spec with every class's arrivals scaled as `atRate` scales the model. */
function specAt(spec: NetworkSpec, network: ReturnType<typeof atRate>): NetworkSpec {
  return {
    ...spec,
    services: spec.services.map((s, i) => ({
      ...s,
      arrivals: Object.fromEntries(
        network.classes.map((c, p) => [c.name, network.services[i]?.arrivals[p] ?? 0]),
      ),
    })),
  };
}

/** The law's reading of a window at `load`: per state, R, the chance above ½, and the spread. */
function lawAt(network: NetworkModel, load: number) {
  const report = analyzeNetwork(asMm1m(atRate(network, load)), { law: 'orbit' });
  const per = report.equilibria.map((state) => {
    const swing = state.services.api?.failedShares?.high;
    const requests = (state.endToEnd.high?.requests ?? 0) * WINDOW;
    const rejection = state.endToEnd.high?.rejection ?? Number.NaN;
    const shareVariance = swing === undefined ? 0 : windowAverageVariance(swing, WINDOW);
    const read = (variance: number) =>
      windowReading({ requests, rejection, shareVariance: variance, threshold: STORM_ABOVE }).above;
    return {
      rejection,
      above: read(shareVariance),
      countOnly: read(0),
      // A window's share of n requests: the latent swing plus the binomial scatter, n ≈ λW.
      spread2: shareVariance + (rejection * (1 - rejection)) / Math.max(requests, 1),
      escape: state.services.api?.escapeSeconds ?? Number.POSITIVE_INFINITY,
      requests,
    };
  });
  const [healthy, storm] = per;
  if (healthy === undefined) throw new Error(`no state at ${load}`);
  // Two states: a run started idle holds each for a share of its window.
  const shares =
    storm === undefined
      ? { healthy: 1, storm: 0 }
      : runShares(healthy.escape, storm.escape, WARMUP, WARMUP + DURATION);
  const mix = (pick: (x: typeof healthy) => number) =>
    shares.healthy * pick(healthy) + (storm === undefined ? 0 : shares.storm * pick(storm));
  const rejection = mix((x) => x.rejection);
  return {
    requests: healthy.requests,
    states: per.length,
    lowestR: healthy.rejection,
    rejection,
    above: mix((x) => x.above),
    countOnly: mix((x) => x.countOnly),
    // The mixture's spread: within each state, and between them.
    spread: Math.sqrt(mix((x) => x.spread2 + (x.rejection - rejection) ** 2)),
  };
}

/** The load at which the law's lowest state fails `target` of the high class, by bisection. */
function loadFor(network: NetworkModel, target: number, tipping: number): number {
  let low = 0.2 * tipping;
  let high = tipping;
  for (let i = 0; i < BISECTIONS; i++) {
    const mid = (low + high) / 2;
    if (lawAt(network, mid).lowestR < target) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

const rows: Row[] = [];
for (const item of await tippingCases(quick ? 2 : 5)) {
  const network = toNetworkModel(item.spec);
  const capacity = network.services[0]?.capacity ?? 1;
  const tipping = meanField(network, capacity).tipping;
  if (tipping === undefined) continue;
  // Where the healthy state fails next to nothing until it vanishes (a bistable service), no
  // load gives the targets: the loads 15 %, 10 % and 5 % below where it vanishes instead.
  const vanishes = loadFor(network, TARGETS[0] as number, tipping);
  // A flank the targets lie on rises gradually: 5 % below, the lowest state fails a fifth of it.
  const reachable = lawAt(network, 0.95 * vanishes).lowestR > (TARGETS[0] as number) / 5;
  for (const [index, target] of TARGETS.entries()) {
    const load = reachable
      ? loadFor(network, target, tipping)
      : (BELOW_VANISHING[index] as number) * vanishes;
    const law = lawAt(network, load);
    const scaled = atRate(network, load);
    const shares: number[] = [];
    let windows = 0;
    for (let r = 0; r < REPLICATIONS; r++) {
      const simulated = simulateNetwork(scaled, {
        ...toNetworkSimulationOptions(specAt(item.spec, scaled), {
          duration: DURATION,
          warmup: WARMUP,
          seed: SEED,
        }),
        stream: r,
        windowSeconds: WINDOW,
      });
      // The windows after the warm-up: the runs' watched part.
      const watched = (simulated.windows ?? []).filter((w) => w.start >= WARMUP);
      windows += watched.length;
      for (const w of watched) {
        const share = w.classes.high?.rejection ?? Number.NaN;
        if (Number.isFinite(share)) shares.push(share);
      }
    }
    const simR = shares.reduce((a, b) => a + b, 0) / shares.length;
    const simSpread = Math.sqrt(shares.reduce((a, b) => a + (b - simR) ** 2, 0) / shares.length);
    const requests = law.requests;
    const atSimulated = windowReading({
      requests,
      rejection: Math.min(Math.max(simR, 0), 1),
      shareVariance: Math.max(simSpread ** 2 - (simR * (1 - simR)) / Math.max(requests, 1), 0),
      threshold: STORM_ABOVE,
    }).above;
    rows.push({
      name: item.name,
      load,
      states: law.states,
      lawR: law.rejection,
      lawAbove: law.above,
      countOnly: law.countOnly,
      lawSpread: law.spread,
      simR,
      simAbove: windows > 0 ? shares.filter((x) => x > STORM_ABOVE).length / windows : 0,
      simSpread,
      atSimulated,
      windows,
    });
    progress(`${item.name} at ${load.toFixed(2)}/s: done`);
  }
}

const f = (x: number, digits = 3) => (Number.isFinite(x) ? x.toFixed(digits) : '—');
const seconds = (performance.now() - started) / 1000;
/** Law over simulated chance of a window above ½, worst / median / highest, over `of`. */
function ratios(of: readonly Row[]): string {
  const r = of
    .filter((row) => row.simAbove > 0 && row.lawAbove > 0)
    .map((row) => row.lawAbove / row.simAbove)
    .sort((a, b) => a - b);
  return `lowest ${f(r[0] ?? Number.NaN, 2)}, median ${f(r[Math.floor(r.length / 2)] ?? Number.NaN, 2)}, highest ${f(r.at(-1) ?? Number.NaN, 2)} (${r.length} loads)`;
}
const text = [
  '# How often a window reads a storm at a fixed load: the orbit law beside the simulator',
  '',
  `Made by \`npm run validate:windows\` (scripts/window-readings.ts; ${seconds.toFixed(0)} s on the 2-core dev machine). The services of docs/validation-tipping.md at the loads (total requests per second, every class's arrivals scaled together) where the law's lowest state fails ${TARGETS.map((t) => `${100 * t} %`).join(', ')} of the high class's requests, or, for a bistable service whose healthy state fails next to nothing until it vanishes, ${BELOW_VANISHING.join(', ')} of the load where it vanishes. Simulated: ${REPLICATIONS} runs of ${DURATION} s a load (after a warm-up of ${WARMUP} s, started idle, seed ${SEED}), windows of ${WINDOW} s; a window reads a storm when its high-class rejection is above ${STORM_ABOVE} (a window with no high-class request reads nothing). The law: its state, or where it has two ("states") each weighted by the share of the runs' watched window it holds (\`runShares\`, from the escape times); \`windowReading\` with the state's swing of its failed share over ${WINDOW} s (\`failedShares\`, \`windowAverageVariance\`), and with the count's scatter alone; its spread is √(swing + R(1 − R)/λW). "At the runs' R and swing": \`windowReading\` fed the runs' own mean and latent swing instead of the law's, which checks the reading apart from the law's figures. docs/model.md, "What a window reads", says what this shows.`,
  '',
  '| case | load | states | R: law | R: simulated | window above ½: law | count alone | at the runs’ R and swing | simulated | spread: law | simulated | windows |',
  '| :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map(
    (r) =>
      `| ${r.name} | ${f(r.load, 1)} | ${r.states} | ${f(r.lawR)} | ${f(r.simR)} | ${f(r.lawAbove, 4)} | ${f(r.countOnly, 4)} | ${f(r.atSimulated, 4)} | ${f(r.simAbove, 4)} | ${f(r.lawSpread)} | ${f(r.simSpread)} | ${r.windows} |`,
  ),
  '',
  `The law's chance of a window reading above ½ over the simulated one, where both are above 0 — on a flank with one state (the window's swing alone): ${ratios(rows.filter((r) => r.states === 1))}; where the law has two states (mostly the escape times: the runs tip): ${ratios(rows.filter((r) => r.states > 1))}. The reading fed the runs' own R and swing ("at the runs' R and swing": their spread less the count's binomial part R(1 − R)/λW) over the simulated chance, on the one-state flanks: ${ratios(
    rows.filter((r) => r.states === 1).map((r) => ({ ...r, lawAbove: r.atSimulated })),
  )}.`,
  '',
].join('\n');
process.stdout.write(text);
if (!quick) {
  writeFileSync(new URL('../docs/validation-windows.md', import.meta.url), text);
  progress('wrote docs/validation-windows.md');
}
