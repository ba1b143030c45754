/**
 * Network simulator throughput: hotelReservation in overload with retries (γ_high = 50,
 * γ_low = 250 at the frontend, μ = 143, k = (5, 1)), call-graph form (`hotel-calls`, nested
 * retries) and routing form (`hotel`), at one point of the Figure 5 sweep (random backoff, mean
 * 2 s) whose virtual length brings about 100,000 external requests. Two figures per form: events
 * per wall second (target: at least 2 M in call-graph mode) and the wall time of that sweep point.
 *
 * The named peer, measured in the same run: the single-service simulator on the network's
 * bottleneck alone (the frontend: same μ, m, classes, limits, backoff and virtual time), so the
 * ratio says what the network's own work (seven more services, routes or call programs, one
 * `RetryPolicy.decide` per rejected attempt) costs per event.
 *
 * Run alone with `npx tsx bench/networkSimulator.ts`.
 */
import { pathToFileURL } from 'node:url';
import { builtinExample, parseNetwork, toNetworkModel } from '../src/config/index.js';
import type { NetworkModel } from '../src/model/network/NetworkModel.js';
import { simulateNetwork } from '../src/sim/network/simulateNetwork.js';
import type { SingleServiceConfig } from '../src/sim/SingleServiceConfig.js';
import { simulateSingleService } from '../src/sim/singleService.js';
import { interleavedEventRates } from './harness.js';

/** Timed rounds, after one untimed warm-up run of each case; medians are reported. */
const REPETITIONS = 7;
/** The target in call-graph mode, events per second. */
const TARGET_EVENTS_PER_SECOND = 2e6;
/** External requests per second at the frontend: γ_high + γ_low. */
const GAMMA_HIGH = 50;
const GAMMA_LOW = 250;
/** Virtual seconds in all (warm-up included) so that about 100,000 external requests arrive. */
const REQUESTS = 100_000;
const TOTAL_SECONDS = REQUESTS / (GAMMA_HIGH + GAMMA_LOW);
/** Warm-up and retry delays of scripts/figure5.ts's sweep. */
const WARMUP = 30;
const DURATION = TOTAL_SECONDS - WARMUP;
const BACKOFF = { kind: 'random', meanMs: 2000 } as const;
const SEED = 5;
const RETRIES = { high: 5, low: 1 } as const;

/** The peer: the frontend alone, as the single-service simulator sees it. */
const FRONTEND: SingleServiceConfig = {
  capacity: 143,
  queue: 50,
  classes: [
    { name: 'high', arrivalRate: GAMMA_HIGH, retryLimit: RETRIES.high, backoff: BACKOFF },
    { name: 'low', arrivalRate: GAMMA_LOW, retryLimit: RETRIES.low, backoff: BACKOFF },
  ],
  duration: DURATION,
  warmup: WARMUP,
  seed: SEED,
};

interface Measurement {
  readonly events: number;
  /** External requests measured (those arriving in the window). */
  readonly requests: number;
  readonly checksum: number;
}

interface Timed {
  readonly eventsPerSecond: number;
  readonly milliseconds: number;
  readonly events: number;
  readonly requests: number;
  readonly checksum: number;
}

/** hotelReservation in one of its two forms, at γ = (50, 250) and k = (5, 1). */
function hotel(example: 'hotel' | 'hotel-calls'): NetworkModel {
  const { fileName, text } = builtinExample(example);
  const network = toNetworkModel(parseNetwork(text, fileName), { retries: { ...RETRIES } });
  const frontend = network.services.find((s) => s.name === 'frontend');
  if (frontend === undefined || frontend.capacity !== FRONTEND.capacity) {
    throw new Error(`${example}: the frontend is not the peer's service`);
  }
  return {
    ...network,
    services: network.services.map((s) =>
      s === frontend ? { ...s, arrivals: [GAMMA_HIGH, GAMMA_LOW] } : s,
    ),
  };
}

function network(model: NetworkModel): Measurement {
  const result = simulateNetwork(model, {
    duration: DURATION,
    warmup: WARMUP,
    seed: SEED,
    backoff: BACKOFF,
  });
  const high = result.endToEnd.high;
  const low = result.endToEnd.low;
  if (high === undefined || low === undefined) throw new Error('simulator lost a class');
  return {
    events: result.events,
    requests: high.originals + low.originals,
    checksum: result.events + high.rejection + low.rejection + result.load.attemptsPerRequest,
  };
}

function singleService(): Measurement {
  const result = simulateSingleService(FRONTEND);
  const high = result.classes.high;
  const low = result.classes.low;
  if (high === undefined || low === undefined) throw new Error('simulator lost a class');
  return {
    events: result.events,
    requests: high.originals + low.originals,
    checksum: result.events + result.s + high.rejection + low.rejection,
  };
}

/** Median events per second and wall time of each case (see {@link interleavedEventRates}). */
function measureAll(cases: readonly (readonly [string, () => Measurement])[]): Timed[] {
  return interleavedEventRates(cases, REPETITIONS).map(
    ({ reference, eventsPerSecond, milliseconds }) => ({
      eventsPerSecond,
      milliseconds,
      events: reference.events,
      requests: reference.requests,
      checksum: reference.checksum,
    }),
  );
}

/** Measures and prints the table. */
export async function run(): Promise<void> {
  const calls = hotel('hotel-calls');
  const routing = hotel('hotel');
  const [peer, callGraph, routed] = measureAll([
    ['single service', singleService],
    ['hotel-calls', () => network(calls)],
    ['hotel', () => network(routing)],
  ]) as [Timed, Timed, Timed];
  const rows = [
    ['(a) single service: the frontend alone (peer)', peer],
    ['(b) hotelReservation, call-graph form', callGraph],
    ['(c) hotelReservation, routing form', routed],
  ] as const;
  console.log(
    `\nnetwork simulator throughput (median of ${REPETITIONS} runs): γ = (${GAMMA_HIGH}, ${GAMMA_LOW}), ` +
      `k = (${RETRIES.high}, ${RETRIES.low}), random backoff mean ${BACKOFF.meanMs} ms, ` +
      `${TOTAL_SECONDS.toFixed(1)} s virtual (${WARMUP} s warm-up) ≈ ${REQUESTS.toLocaleString('en-US')} requests`,
  );
  for (const [label, t] of rows) {
    console.log(
      `  ${label.padEnd(48)} ${(t.eventsPerSecond / 1e6).toFixed(2).padStart(6)} M events/s` +
        `  ${t.milliseconds.toFixed(0).padStart(5)} ms per point` +
        `  (${t.events.toLocaleString('en-US')} events, ${t.requests.toLocaleString('en-US')} measured requests)`,
    );
  }
  const ratio = (t: Timed) => (t.eventsPerSecond / peer.eventsPerSecond).toFixed(3).padStart(6);
  console.log(`  ratio (b)/(a) events/s${' '.repeat(27)}${ratio(callGraph)}`);
  console.log(`  ratio (c)/(a) events/s${' '.repeat(27)}${ratio(routed)}`);
  const met = callGraph.eventsPerSecond >= TARGET_EVENTS_PER_SECOND;
  console.log(
    `  target ≥ ${TARGET_EVENTS_PER_SECOND / 1e6} M events/s in call-graph mode: ${met ? 'met' : 'NOT met'}`,
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run();
}
